"""The capacity planner (ARCHITECTURE.md) against figures derived by hand, and against an independent
recomputation of the planner from the raw spec files on workloads the planner has not seen."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT

from macros.engine.fleet.planner import (
    Infeasible,
    Plan,
    PlanError,
    Shortfall,
    cheapest,
    plan,
    plan_shape,
    require,
    with_prefill,
)
from macros.engine.fleet.workload_file import Workload, WorkloadError, load_workload_file
from macros.engine.specs import catalog
from macros.text import plan_report

ANCHOR = dict(name="anchor", model="llama-70b", gpu="h100", gpus_per_replica=4, peak_requests_per_s=10.0,
              prompt_tokens=3996, output_tokens=100, ttft_s=2.0, tpot_s=0.05, efficiency=0.4, headroom=0.2,
              price_per_gpu_hour=2.5)


def test_a_tpot_target_forces_a_smaller_batch():
    # The 70B preset on 4 x H100 at 3,996 + 100 = 4,096 tokens holds 122 sequences. The floor is memory-bound:
    # (140e9 + b x 1,342,177,280) / 13.4e12. Planned = floor / 0.4 <= 50 ms means floor <= 20 ms:
    # b <= (268e9 - 140e9) / 1,342,177,280 = 95.37, so b* = 95.
    p = plan(Workload(**ANCHOR))
    assert (p.max_batch, p.slo_batch, p.binding) == (122, 95, "tpot")
    # floor(95) = (140e9 + 127.507e9) / 13.4e12 = 19.963 ms; planned 49.91 ms;
    # capacity 95 / 49.91 ms = 1,903.5 tokens/s.
    assert p.step_s == pytest.approx(19.963e-3, rel=1e-4)
    assert p.decode_tokens_per_s_per_replica == pytest.approx(1903.5, rel=1e-3)
    assert p.tpot_ok


def test_a_loose_target_leaves_the_kv_budget_binding():
    p = plan(Workload(**{**ANCHOR, "tpot_s": 1.0}))
    assert (p.slo_batch, p.binding) == (122, "kv")


def test_prefill_counts_only_uncached_tokens_attending_to_the_cached_prefix():
    # 2,000-token prompt, half cached: 1,000 new tokens. Weights 2 x 70e9 x 1,000 = 140 TFLOP; attention
    # 4 x 64 x 128 x 80 x (2,000 x 2,001 / 2 - 1,000 x 1,001 / 2) = 2,621,440 x 1,500,500 = 3.9335 TFLOP.
    # 143.93 TFLOP / (4 x 989.4 TFLOP/s) = 36.37 ms (above the 10.4 ms weight read); / 0.4 = 90.92 ms.
    p = plan(Workload(**{**ANCHOR, "prompt_tokens": 2000, "output_tokens": 400, "prefix_hit_rate": 0.5}))
    assert p.uncached_prompt_tokens == 1000
    assert p.planned_prefill_s == pytest.approx(90.92e-3, rel=1e-3)
    assert p.ttft_ok


def test_a_full_prefix_hit_removes_prefill():
    # No prefill: replica time is decode alone, 10 x 100 = 1,000 tokens/s over 1,903.5 per replica = 0.525,
    # x 1.2 headroom = 0.63 -> 1 replica, 4 GPUs; $2.50 x 4 x 24 = $240 a day.
    p = plan(Workload(**{**ANCHOR, "prefix_hit_rate": 1.0}))
    assert (p.planned_prefill_s, p.prefill_share) == (0, 0)
    assert p.replica_seconds_per_s == pytest.approx(1000 / 1903.5, rel=1e-3)
    assert (p.replicas, p.gpus, p.cost_per_day) == (1, 4, 240)
    # $10 an hour / 3,600 / 1,000 tokens/s x 1e6 = $2.78 per million output tokens.
    assert p.cost_per_million_output_tokens == pytest.approx(2.7778, rel=1e-4)


def test_replicas_cover_decode_and_prefill_with_headroom():
    # 500 requests/s x 100 = 50,000 tokens/s out over 1,903.5 = 26.27 replicas of decode; prefill of 3,996
    # tokens: 2 x 70e9 x 3,996 + 2,621,440 x 3,996 x 3,997 / 2 = 559.44 + 20.935 = 580.37 TFLOP over
    # 3,957.6 TFLOP/s = 146.65 ms, / 0.4 = 366.6 ms; 500 x 0.3666 = 183.3 replicas. 209.6 x 1.2 = 251.5 -> 252.
    p = plan(Workload(**{**ANCHOR, "peak_requests_per_s": 500.0}))
    assert p.planned_prefill_s == pytest.approx(0.3666, rel=1e-3)
    assert p.replica_seconds_per_s == pytest.approx(209.6, rel=1e-3)
    assert (p.replicas, p.gpus) == (252, 1008)
    assert p.prefill_share == pytest.approx(183.3 / 209.6, rel=1e-3)
    assert p.decode_replicas == pytest.approx(26.27, rel=1e-3) and p.prefill_replicas == pytest.approx(183.3, rel=1e-3)


def test_the_replica_shape_is_chosen_when_not_given():
    # One H100 cannot hold 140 GB; two leave 160 - 140 - 8 = 12 GB (8 sequences) but one sequence's planned
    # step is (140 + 1.34) GB / 6.7 TB/s / 0.4 = 52.7 ms > 50 ms; four meet both targets.
    p = plan(Workload(**{**ANCHOR, "gpus_per_replica": None}))
    assert p.gpus_per_replica == 4 and p.gpus_per_replica_chosen


@pytest.fixture
def h100(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Change the H100's spec for one test, as a reader editing gpus.toml would (the catalog is restored after)."""
    def change(**fields: float) -> None:
        gpus = catalog().gpus
        monkeypatch.setitem(gpus, "h100", dataclasses.replace(gpus["h100"], **fields))
    return change


# One sequence of the anchor (4,096 tokens) at batch 1: 140e9 B of weights + 1,342,177,280 B of KV
# = 141,342,177,280 B a step, one KV copy up to 8 GPUs (8 KV heads); decode at batch 1 is memory-bound.
ONE_SEQUENCE_BYTES = 140e9 + 1_342_177_280


def test_a_pinned_shape_that_misses_the_tpot_is_widened_and_says_why(h100):
    # With the H100 at 2.0 TB/s, 4 GPUs plan 141.342e9 / (4 x 2e12) / 0.4 = 44.17 ms per token at batch 1,
    # 4.17 ms over a 40 ms target; 8 GPUs plan half of it, 22.08 ms, and meet it.
    h100(bandwidth_bytes_per_s=2.0e12)
    p = plan(Workload(**{**ANCHOR, "tpot_s": 0.04}))
    assert isinstance(p, Plan) and p.gpus_per_replica == 8 and not p.gpus_per_replica_chosen
    assert p.widened_from == Shortfall(4, "tpot", pytest.approx(ONE_SEQUENCE_BYTES / 8e12 / 0.4), 0.04)
    assert p.widened_from.planned_s - 0.04 == pytest.approx(4.17e-3, rel=1e-3)
    assert plan_report.widened(p) == ("pinned at 4; on this data 4 × H100 SXM cannot meet the 40 ms TPOT, planning "
                                      "44.2 ms per token for one sequence, so the planner widened it to 8")
    data = p.as_json()
    assert (data["gpus_per_replica"], data["gpus_per_replica_pinned"], data["widened_because"]) == (8, 4, "tpot")
    assert data["feasible"] is True and data["infeasible_because"] is None


def test_a_pinned_shape_that_meets_the_targets_is_kept(h100):
    # At the datasheet's 3.35 TB/s the same 4 GPUs plan 141.342e9 / 13.4e12 / 0.4 = 26.4 ms: within 40 ms.
    p = plan(Workload(**{**ANCHOR, "tpot_s": 0.04}))
    assert isinstance(p, Plan) and (p.gpus_per_replica, p.widened_from) == (4, None)
    assert plan_report.widened(p) == "" and p.as_json()["widened_because"] is None


def test_a_pinned_shape_too_small_for_the_weights_is_widened_past_every_shape_that_fails():
    # One H100 cannot hold 140 GB; two hold it, but one sequence plans 141.342e9 / 6.7e12 / 0.4 = 52.7 ms
    # against 50 ms; four meet both targets. The plan records the pinned shape's own failure: memory.
    p = plan(Workload(**{**ANCHOR, "gpus_per_replica": 1}))
    assert isinstance(p, Plan) and p.gpus_per_replica == 4
    assert p.widened_from == Shortfall(1, "memory", None, None)
    assert "1 × H100 SXM cannot hold the weights, the reserve and one 4,096-token sequence" in plan_report.widened(p)


def test_no_shape_up_to_a_node_is_an_infeasible_result_not_an_error(h100):
    # At 2.0 TB/s and a 20 ms target: 4 GPUs plan 44.17 ms, 8 GPUs 141.342e9 / 16e12 / 0.4 = 22.08 ms, still
    # 2.08 ms over. The planner stops at one node (8) and says so.
    h100(bandwidth_bytes_per_s=2.0e12)
    r = plan(Workload(**{**ANCHOR, "tpot_s": 0.02}))
    assert isinstance(r, Infeasible)
    assert r.widest == Shortfall(8, "tpot", pytest.approx(ONE_SEQUENCE_BYTES / 16e12 / 0.4), 0.02)
    assert r.pinned == Shortfall(4, "tpot", pytest.approx(ONE_SEQUENCE_BYTES / 8e12 / 0.4), 0.02)
    assert r.message == ("anchor: the TPOT target is too tight for the bandwidth: on 8 × H100 SXM even one sequence "
                         "plans 22.1 ms per token against 20 ms (tried replicas of 4 to 8 GPUs)")
    assert plan_report.infeasible(r) == ("pinned at 4; no replica of up to 8 GPUs meets the targets: on this data "
                                         "8 × H100 SXM cannot meet the 20 ms TPOT, planning 22.1 ms per token for "
                                         "one sequence")
    data = json.loads(json.dumps(r.as_json(), allow_nan=False))  # valid JSON: null where no figure exists
    assert (data["feasible"], data["infeasible_because"], data["gpus_per_replica"]) == (False, "tpot", 8)
    assert data["shortfall_planned_s"] == pytest.approx(22.08e-3, rel=1e-3) and data["shortfall_target_s"] == 0.02
    assert all(data[key] is None for key in ("slo_batch", "replicas", "gpus", "cost_per_day", "planned_step_s"))
    assert data["peak_output_tokens_per_s"] == 10.0 * 100  # the workload's own figures are still there
    with pytest.raises(PlanError) as err:
        require(r, "macros/data/designs/x.toml: [variants.y]")
    assert str(err.value).startswith("macros/data/designs/x.toml: [variants.y]: anchor: the TPOT target")


@pytest.mark.parametrize("change, constraint, words", [
    # 64 GPUs hold 8 copies of the KV (past 8 KV heads): (140e9 + 8 x 1.342e9) / (64 x 3.35e12) / 0.4
    # = 1.76 ms per token against 1 ms.
    ({"tpot_s": 0.001}, "tpot", "TPOT target is too tight for the bandwidth"),
    ({"prompt_tokens": 100_000, "ttft_s": 0.5}, "ttft", "TTFT target is too tight for the prompt"),
])
def test_with_no_shape_pinned_the_search_goes_to_64_gpus(change: dict, constraint: str, words: str):
    r = plan(Workload(**{**ANCHOR, "gpus_per_replica": None, **change}))
    assert isinstance(r, Infeasible) and r.pinned is None
    assert (r.widest.gpus_per_replica, r.widest.constraint) == (64, constraint)
    assert words in r.message and r.message.endswith("(tried replicas of 1 to 64 GPUs)")


def test_a_shape_asked_for_exactly_is_never_widened():
    # The tables of shapes price each shape as it is: 2 GPUs miss the 50 ms target (52.7 ms, above).
    assert plan_shape(Workload(**ANCHOR), 2) == Shortfall(2, "tpot", pytest.approx(ONE_SEQUENCE_BYTES / 6.7e12 / 0.4),
                                                          0.05)
    # ... and cheapest() compares exact shapes: 1 (memory) and 2 (TPOT) have no plan, so it picks from 4 and 8.
    shapes = {g: plan_shape(Workload(**ANCHOR), g) for g in (1, 2, 4, 8)}
    assert [g for g, p in shapes.items() if isinstance(p, Plan)] == [4, 8]
    best = cheapest(Workload(**ANCHOR))
    assert best.gpus == min(shapes[4].gpus, shapes[8].gpus) and best.widened_from is None


GOOD = """name = "t"
model = "llama-70b"
gpu = "h100"
[traffic]
peak_requests_per_s = 10
prompt_tokens = 1000
output_tokens = 100
[slo]
ttft_s = 1
tpot_s = 0.05
"""


@pytest.mark.parametrize("old, new, words", [
    ("[slo]\nttft_s = 1\ntpot_s = 0.05\n", "", "[slo] ttft_s is missing"),
    ("peak_requests_per_s = 10", "peak_requests_per_s = -10", "peak_requests_per_s must be a positive number"),
    ("output_tokens = 100", "output_tokens = 100\nprefix_hit_rate = 1.5",
     "prefix_hit_rate must be a number between 0 and 1"),
    ('model = "llama-70b"', 'model = "llama-71b"', "unknown model 'llama-71b'"),
    ("peak_requests_per_s = 10", "requests_per_day = 1e6", "peak_requests_per_s is missing"),
    ("tpot_s = 0.05", "tpot_s = 0.05\nlatency = 1", "unknown field latency"),
    ('gpu = "h100"', 'gpu = "h100"\nlayout = "ep"', "layout must be one of tp, dp-attention"),
])
def test_a_bad_workload_file_fails_in_one_line(tmp_path: Path, old: str, new: str, words: str):
    path = tmp_path / "w.toml"
    assert old in GOOD
    path.write_text(GOOD.replace(old, new))
    with pytest.raises(WorkloadError) as err:
        load_workload_file(path)
    message = str(err.value)
    assert words in message and "w.toml" in message and "\n" not in message
    cli = subprocess.run([sys.executable, "gpu_math.py", "plan", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert cli.returncode == 2 and cli.stdout == "" and words in cli.stderr and cli.stderr.count("\n") == 1


def test_daily_requests_with_a_peak_to_mean_ratio(tmp_path: Path):
    # 86.4 million requests a day = 1,000 a second on average; x 3 peak-to-mean = 3,000 a second at peak.
    path = tmp_path / "w.toml"
    path.write_text(GOOD.replace("peak_requests_per_s = 10", "requests_per_day = 86_400_000\npeak_to_mean = 3"))
    assert load_workload_file(path)[0].peak_requests_per_s == pytest.approx(3000)


def test_the_cli_says_an_infeasible_workload_in_words_and_in_json(tmp_path: Path):
    # 4 GPUs pinned, 5 ms per token: even 8 GPUs plan 141.342e9 / 26.8e12 / 0.4 = 13.2 ms for one sequence.
    path = tmp_path / "w.toml"
    path.write_text(GOOD.replace('gpu = "h100"', 'gpu = "h100"\ngpus_per_replica = 4').replace("prompt_tokens = 1000",
                    "prompt_tokens = 3996").replace("tpot_s = 0.05", "tpot_s = 0.005"))
    text = subprocess.run([sys.executable, "gpu_math.py", "plan", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert text.returncode == 0 and text.stderr == ""
    assert ("infeasible: pinned at 4; no replica of up to 8 GPUs meets the targets: on this data 8 × H100 SXM cannot "
            "meet the 5 ms TPOT, planning 13.2 ms per token for one sequence.") in text.stdout
    out = subprocess.run([sys.executable, "gpu_math.py", "plan", str(path), "--json"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout

    def no_constants(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    data = json.loads(out, parse_constant=no_constants)
    assert (data["feasible"], data["gpus_per_replica_pinned"], data["infeasible_because"]) == (False, 4, "tpot")
    assert data["gpus"] is None and data["replicas"] is None


def test_cli_json_has_the_design_keys():
    out = subprocess.run([sys.executable, "gpu_math.py", "plan", "macros/data/designs/consumer-chat.toml", "--json"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    for key in ("name", "model", "gpu", "gpus_per_replica", "layout", "weights_dtype", "kv_dtype", "seq_len",
                "max_batch", "slo_batch", "step_s", "planned_step_s", "decode_tokens_per_s_per_replica",
                "planned_prefill_s", "peak_requests_per_s", "peak_input_tokens_per_s", "peak_output_tokens_per_s",
                "prefill_share", "replicas", "gpus", "price_per_gpu_hour", "cost_per_day",
                "cost_per_million_output_tokens", "ttft_ok", "tpot_ok", "feasible", "gpus_per_replica_pinned",
                "widened_because", "infeasible_because", "shortfall_planned_s", "shortfall_target_s"):
        assert key in data, key


# --- an independent recomputation of the planner, from the raw TOML files --------------------------


def _independent(spec: dict) -> dict:
    """The planner for a dense GQA model with no window, from the formula contract alone: no engine code."""
    data = ROOT / "macros" / "data"
    m = tomllib.loads((data / "models.toml").read_text())[spec["model"]]
    g = tomllib.loads((data / "gpus.toml").read_text())[spec["gpu"]]
    n, layers, hq, hkv, dh = m["params"], m["layers"], m["query_heads"], m["kv_heads"], m["head_dim"]
    gpus, eta, s = spec["gpus_per_replica"], spec["efficiency"], spec["prompt_tokens"] + spec["output_tokens"]
    bw, peak = g["bandwidth_bytes_per_s"] * gpus, g["bf16_flops"] * gpus
    kv_seq = 2 * layers * hkv * dh * 2 * s
    copies = max(1, gpus / hkv)
    most = int((gpus * g["memory_bytes"] - 2 * n - gpus * 4e9) // (copies * kv_seq))

    def floor(b: int) -> float:
        flops = b * (2 * n + 4 * hq * dh * layers * s)
        return max((2 * n + b * copies * kv_seq) / bw, flops / peak)

    best = max(b for b in range(1, most + 1) if floor(b) / eta <= spec["tpot_s"])
    capacity = best / (floor(best) / eta)
    prompt, hit = spec["prompt_tokens"], spec["prefix_hit_rate"]
    new = prompt * (1 - hit)
    pairs = lambda t: t * (t + 1) / 2  # noqa: E731
    pre_flops = 2 * n * new + 4 * hq * dh * layers * (pairs(prompt) - pairs(prompt - new))
    prefill = max(pre_flops / peak, 2 * n / bw) / eta if new else 0
    load_ = spec["peak_requests_per_s"] * spec["output_tokens"] / capacity + spec["peak_requests_per_s"] * prefill
    replicas = math.ceil(round(load_ * (1 + spec["headroom"]), 9))
    return dict(slo_batch=best, planned_prefill_s=prefill, replicas=replicas, gpus=replicas * gpus,
                cost_per_day=replicas * gpus * spec["price_per_gpu_hour"] * 24)


def test_the_planner_agrees_with_an_independent_recomputation():
    rng = random.Random(20261201)
    checked = 0
    for _ in range(12):
        spec = dict(name="random", model=rng.choice(["llama-3.1-8b", "llama-3.1-70b", "llama-70b"]),
                    gpu=rng.choice(["h100", "h200", "a100"]), gpus_per_replica=rng.choice([4, 8]),
                    peak_requests_per_s=rng.uniform(1, 3000), prompt_tokens=rng.randint(100, 8000),
                    output_tokens=rng.randint(20, 1500), prefix_hit_rate=rng.choice([0, 0.3, 0.8]),
                    ttft_s=10.0, tpot_s=rng.uniform(0.03, 0.2), efficiency=rng.uniform(0.3, 0.7),
                    headroom=rng.uniform(0, 0.5), price_per_gpu_hour=rng.uniform(1, 5))
        got = plan(Workload(**spec))
        if isinstance(got, Infeasible):
            continue
        # A pinned 4 that misses the target is widened to 8: recompute on the shape the planner used.
        want = _independent({**spec, "gpus_per_replica": got.gpus_per_replica})
        for key, value in want.items():
            assert getattr(got, key) == pytest.approx(value, rel=1e-9), (spec, key)
        checked += 1
    assert checked >= 8


def test_a_pinned_node_that_cannot_hold_the_weights_is_infeasible_not_widened():
    # 8 x H100 hold 640 GB; Llama-3.1-405B in BF16 is 405.9e9 x 2 B = 812 GB. A pinned 8 is one node, the
    # widest the planner widens to, so it says so instead of trying 16.
    r = plan(Workload(**{**ANCHOR, "model": "llama-3.1-405b", "gpus_per_replica": 8}))
    assert isinstance(r, Infeasible) and r.widest == r.pinned == Shortfall(8, "memory", None, None)
    assert r.message.endswith("does not fit 8 × H100 SXM (tried replicas of 8 GPUs)")


def test_held_and_spare_kv_count_every_copy_of_the_latent():
    # DeepSeek-V3, FP8 weights, BF16 KV, on 8 x H200 under TP: the latent per token is 61 layers x (512 + 64)
    # x 2 B = 70,272 B, and every one of the 8 ranks holds it, so a 2,400-token sequence holds
    # 8 x 70,272 x 2,400 = 1,349,222,400 B on the replica (one copy would be 168,652,800 B).
    w = Workload(name="mla", model="deepseek-v3", gpu="h200", gpus_per_replica=8, weights="fp8", kv="bf16",
                 peak_requests_per_s=10.0, prompt_tokens=2000, output_tokens=400, ttft_s=2.0, tpot_s=0.1)
    p = require(plan(w), "mla")
    assert p.kv_bytes_per_seq_group == pytest.approx(1_349_222_400)
    assert p.kv_bytes_per_seq == pytest.approx(168_652_800)
    assert p.held_kv_bytes == pytest.approx(p.slo_batch * 1_349_222_400)
    # At a loose 100 ms TPOT the KV budget caps the batch, so the spare is what the budget leaves after it:
    # less than one more sequence's group (the one-copy form would leave 7 x 168.7 MB per sequence spare).
    assert p.binding == "kv"
    assert p.spare_kv_bytes == pytest.approx(p.at_slo.kv_budget_bytes - p.slo_batch * 1_349_222_400)
    assert 0 <= p.spare_kv_bytes < 1_349_222_400


def test_live_sequences_are_littles_law_on_the_planned_time_in_system():
    # The same DeepSeek-V3 replica, its fleet figures set by hand: 20 requests/s at peak over 10 replicas is
    # 2 requests/s per replica; each spends 0.5 s in prefill and 400 x 20 ms = 8 s decoding, 8.5 s in all, so
    # Little's law holds 2 x 8.5 = 17 sequences on a replica. At full context each holds the 8-rank latent,
    # 1,349,222,400 B, so they hold 17 x 1,349,222,400 = 22,936,780,800 B and leave the rest of the budget;
    # one token is 1,349,222,400 / 2,400 = 562,176 B (8 copies of 70,272 B).
    w = Workload(name="mla", model="deepseek-v3", gpu="h200", gpus_per_replica=8, weights="fp8", kv="bf16",
                 peak_requests_per_s=10.0, prompt_tokens=2000, output_tokens=400, ttft_s=2.0, tpot_s=0.1)
    p = dataclasses.replace(require(plan(w), "mla"), replicas=10, peak_requests_per_s=20.0, planned_prefill_s=0.5,
                            planned_step_s=0.02)
    assert p.time_in_system_s == pytest.approx(8.5)
    assert p.live_sequences == pytest.approx(17)
    assert p.kv_bytes_per_token == pytest.approx(562_176)
    assert p.cache_room_bytes == pytest.approx(p.at_slo.kv_budget_bytes - 22_936_780_800)


def test_the_live_sequences_stay_below_the_slo_batch_over_the_headroom():
    # The fleet is sized so that R >= (1 + h) x (lambda x out x step / b + lambda x prefill) with b >= 1, so
    # lambda / R x (prefill + out x step) <= b / (1 + h): at the 20 % headroom, at most 5/6 of the SLO batch.
    w = Workload(name="anchor", model="llama-3.1-70b", gpu="h100", gpus_per_replica=4, peak_requests_per_s=100.0,
                 prompt_tokens=2000, output_tokens=400, ttft_s=2.0, tpot_s=0.05, headroom=0.2)
    p = require(plan(w), "anchor")
    assert 0 < p.live_sequences <= p.slo_batch / 1.2
    assert p.cache_room_bytes > p.spare_kv_bytes


def test_a_plan_with_another_prefill_resizes_its_fleet():
    # 10 requests/s of 400 output tokens is 4,000 tokens/s; at 1,000 tokens/s a replica that is 4 replicas of
    # decode. A 0.2 s prefill adds 10 x 0.2 = 2: 6 busy replicas, x 1.2 headroom = 7.2, so 8 replicas of 8 GPUs,
    # 64 GPUs, 64 x $3 x 24 h = $4,608 a day; prefill is 2 / 6 of the work, and 0.2 s meets the 2 s TTFT.
    w = Workload(name="mla", model="deepseek-v3", gpu="h200", gpus_per_replica=8, weights="fp8", kv="bf16",
                 peak_requests_per_s=10.0, prompt_tokens=2000, output_tokens=400, ttft_s=2.0, tpot_s=0.1)
    p = dataclasses.replace(require(plan(w), "mla"), decode_tokens_per_s_per_replica=1000.0, price_per_gpu_hour=3.0)
    q = with_prefill(p, 0.2)
    assert (q.replica_seconds_per_s, q.replicas, q.gpus) == (pytest.approx(6), 8, 64)
    assert q.cost_per_day == pytest.approx(4608) and q.prefill_share == pytest.approx(1 / 3)
    assert q.planned_prefill_s == 0.2 and q.ttft_ok and q.slo_batch == p.slo_batch
