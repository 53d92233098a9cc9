"""Operations: the scaling signal, cost per million output tokens at a stated efficiency, and fleet sizing by
the planner's first-order method (ARCHITECTURE.md, the formula contract). A cold start is coldstart.py's."""

from __future__ import annotations

import random

from .. import formulas as f
from ..fleet.planner import Plan, plan
from ..fleet.workload_file import parse
from ..lookup import get_model
from ..model.scenario import scenario
from ..specs import catalog
from .base import Draw, Given, Solution, Value

# --- the scaling signal ---------------------------------------------------------------------------


def solve_scaling(g: dict[str, Value]) -> Solution:
    """The HPA rule on the composite signal, ceil(current * max(KV / target, wait / target))."""
    signal = f.scaling_signal(g["kv_occupancy"], g["kv_target"], g["wait_p95"], g["wait_target"])
    return dict(answer=f.desired_replicas(g["current"], signal), unit="replicas", signal=signal,
                kv_ratio=g["kv_occupancy"] / g["kv_target"], wait_ratio=g["wait_p95"] / g["wait_target"])


OCCUPANCIES = (0.55, 0.62, 0.7, 0.78, 0.85, 0.92, 0.97)
KV_TARGETS = (0.7, 0.75, 0.8)
WAITS = (0.05, 0.12, 0.2, 0.35, 0.5, 0.8)
WAIT_TARGETS = (0.1, 0.2, 0.25)
CURRENT = (4, 6, 8, 10, 12, 16, 20)


def draw_scaling(n: int, rng: random.Random) -> Draw | None:
    exact = (Given("current", rng.choice(CURRENT), "count"),
             Given("kv_occupancy", rng.choice(OCCUPANCIES), "fraction"),
             Given("kv_target", rng.choice(KV_TARGETS), "fraction"), Given("wait_p95", rng.choice(WAITS), "s"),
             Given("wait_target", rng.choice(WAIT_TARGETS), "s"))
    return Draw("signal", exact)


# --- cost per million output tokens -----------------------------------------------------------------


def solve_cost(g: dict[str, Value]) -> Solution:
    """price * g / 3600 / (b / step * eta) * 1e6, the floor's throughput times the stated efficiency."""
    floor_rate = f.tokens_per_s(g["batch"], g["step"])
    return dict(answer=f.cost_per_million_tokens(g["price"], g["gpus"], floor_rate, g["efficiency"]), unit="USD",
                floor_rate=floor_rate, planned_rate=floor_rate * g["efficiency"],
                per_hour=g["price"] * g["gpus"])


COST_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "qwen3-235b-a22b", "deepseek-v3")
EFFICIENCIES = (0.3, 0.4, 0.5, 0.6)
COST_BATCHES = (8, 32, 64, 128, 256)


def draw_cost(n: int, rng: random.Random) -> Draw | None:
    m = get_model(rng.choice(COST_MODELS))
    gpu = rng.choice(sorted(catalog().prices))
    s = scenario(m.key, gpu, seq_len=4096)  # the fewest GPUs that hold the model
    batch = min(rng.choice(COST_BATCHES), s.max_batch)
    s = scenario(m.key, gpu, gpus=s.gpus, seq_len=4096, batch=batch)
    exact = (Given("price", catalog().prices[gpu].typical, "USD/h"), Given("gpus", s.gpus, "count"),
             Given("batch", batch, "count"), Given("step", float(s.decode_step_s), "s"),
             Given("efficiency", rng.choice(EFFICIENCIES), "fraction"))
    return Draw("cost", exact, {"model": m.key, "gpu": gpu})


# --- fleet sizing -----------------------------------------------------------------------------------


def solve_fleet(g: dict[str, Value]) -> Solution:
    """replicas = ceil((peak output tokens/s / decode capacity + requests/s * prefill) * (1 + headroom)),
    GPUs = replicas * g."""
    output_rate = g["rate"] * g["output"]
    decode = f.decode_replicas(output_rate, g["capacity"])
    prefill = f.prefill_replicas(g["rate"], g["prefill"])
    replicas = f.replicas_for_load(decode + prefill, g["headroom"])
    return dict(answer=replicas * g["gpus"], unit="GPUs", output_rate=output_rate, decode=decode, prefill=prefill,
                load=decode + prefill, replicas=replicas)


FLEET_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b")
FLEET_GPUS = ("h100", "h200", "b200")
PEAK_RATES = (20, 50, 100, 250, 500)
FLEET_PROMPTS = (500, 2000, 4000)
FLEET_OUTPUTS = (200, 500)
TPOT_TARGETS = (0.05, 0.1)
FLEET_HEADROOMS = (0.1, 0.2, 0.3)


def draw_fleet(n: int, rng: random.Random) -> Draw | None:
    table = {"name": "practice", "model": rng.choice(FLEET_MODELS), "gpu": rng.choice(FLEET_GPUS),
             "traffic": {"peak_requests_per_s": rng.choice(PEAK_RATES), "prompt_tokens": rng.choice(FLEET_PROMPTS),
                         "output_tokens": rng.choice(FLEET_OUTPUTS)},
             "slo": {"ttft_s": 2.0, "tpot_s": rng.choice(TPOT_TARGETS)},
             "fleet": {"headroom": rng.choice(FLEET_HEADROOMS)}}
    p = plan(parse(table, "practice problems: a generated fleet workload"))
    if not isinstance(p, Plan):
        return None
    exact = (Given("rate", float(p.peak_requests_per_s), "1/s"), Given("output", table["traffic"]["output_tokens"],
                                                                       "tokens"),
             Given("gpus", p.gpus_per_replica, "count"), Given("capacity", p.decode_tokens_per_s_per_replica,
                                                               "tokens/s"),
             Given("prefill", p.planned_prefill_s, "s"), Given("headroom", p.headroom, "fraction"))
    return Draw("fleet", exact, {"model": p.model, "gpu": p.gpu})
