"""Memory and fit, and MoE placement under tp and dp-attention: how many sequences a replica holds.

Memory-and-fit problems are near-misses: a third do not fit, by less than one sequence's KV cache or by
weights at most a tenth over the replica's memory (never the absurd KV budget of minus half a terabyte);
the rest fit, a third of them only just (at most sixteen sequences).
"""

from __future__ import annotations

import random

from .. import formulas as f
from ..lookup import dtype_bytes, get_gpu, get_model
from ..model.geometry import attention_params, kv_bytes_per_token
from ..model.scenario import DEFAULT_RESERVE_BYTES as RESERVE_BYTES
from .base import Draw, Given, Solution, Value

NEAR_MISS_SHARE = 0.1  # a "no" problem's weights exceed the replica's memory by at most this share of it
JUST_FITS = 16  # a "just fits" problem holds at most this many sequences


def _fit(g: dict[str, Value], copies: float, held: float) -> tuple[float, float, float]:
    """(KV per sequence, the KV budget, one sequence's bytes across its copies)."""
    kv_seq = f.kv_bytes_per_seq(g["kv_per_token"], g["layers"], g["seq_len"])
    budget = f.kv_budget_bytes(g["gpus"], g["memory"], held, g["reserve"])
    return kv_seq, budget, copies * kv_seq


def solve_memory(g: dict[str, Value]) -> Solution:
    """Max batch under tensor parallelism of a GQA model: weights N w, KV 2 L H_kv d_h k per token."""
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    copies = f.kv_copies("tp", g["gpus"], g["kv_heads"], False)
    kv_seq = f.kv_bytes_per_seq(kv_token, g["layers"], g["seq_len"])
    budget = f.kv_budget_bytes(g["gpus"], g["memory"], weights, g["reserve"])
    batch = int(f.max_batch(budget, copies * kv_seq))
    return dict(answer=batch, unit="sequences", kv_per_token=kv_token, weights=weights, copies=copies,
                kv_per_seq=kv_seq, budget=budget, total_memory=g["gpus"] * g["memory"],
                reserve_total=g["gpus"] * g["reserve"], fits=batch >= 1)


MEMORY_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b", "mixtral-8x7b", "mixtral-8x22b",
                 "qwen3-235b-a22b")  # GQA, no sliding window: the KV formula a reader knows
MEMORY_GPUS = ("a100", "h100", "h200", "b200", "mi300x", "l40s", "l4")
GPU_COUNTS = (1, 2, 4, 8)
CONTEXTS = (2048, 4096, 8192, 16384, 32768)
WEIGHTS = ("bf16", "fp8")
KV = ("bf16", "fp8")


def draw_memory(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(MEMORY_MODELS)), get_gpu(rng.choice(MEMORY_GPUS))
    weights, kv = rng.choice(WEIGHTS), rng.choice(KV)
    seq = rng.choice([c for c in CONTEXTS if c <= m.max_context])
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("layers", m.layers, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", dtype_bytes(kv), "bytes"),
             Given("seq_len", seq, "tokens"), Given("gpus", rng.choice(GPU_COUNTS), "count"),
             Given("memory", gpu.memory_bytes, "B"), Given("reserve", RESERVE_BYTES, "B"))
    s = solve_memory({x.name: x.value for x in exact})
    want = ("near-miss", "just-fits", "fits")[n % 3]
    if want == "near-miss":
        usable = s["budget"] < s["copies"] * s["kv_per_seq"] and s["budget"] > -NEAR_MISS_SHARE * s["total_memory"]
    else:
        usable = 1 <= s["answer"] <= JUST_FITS if want == "just-fits" else s["answer"] > JUST_FITS
    return Draw(want, exact, {"model": m.key, "gpu": gpu.key}) if usable else None


# --- MoE placement: tp against dp-attention --------------------------------------------------------


def solve_placement(g: dict[str, Value]) -> Solution:
    """Max batch under both layouts (ARCHITECTURE.md); the answer is the asked layout's. Under tp a rank holds
    whole KV heads (an MLA latent on every rank); under dp-attention each rank holds the attention weights
    whole and its own sequences' KV cache once."""
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    attention = f.weight_bytes(g["attention_params"], g["bytes_per_weight"])
    mla = g["attention"] == "MLA"
    copies = f.kv_copies("tp", g["gpus"], g.get("kv_heads", 1), mla)  # an MLA latent has no KV heads to split
    kv_seq, tp_budget, tp_seq = _fit(g, copies, weights)
    held = f.weight_bytes_held(weights, attention, g["gpus"], "dp-attention")
    _, dp_budget, _ = _fit(g, 1, held)
    tp = int(f.max_batch(tp_budget, tp_seq))
    dp = int(f.max_batch_per_rank(g["gpus"], dp_budget / g["gpus"], kv_seq))
    return dict(answer=tp if g["layout"] == "tp" else dp, unit="sequences", weights=weights, attention=attention,
                copies=copies, kv_per_seq=kv_seq, tp_budget=tp_budget, tp_batch=tp, dp_held=held,
                dp_budget=dp_budget, dp_rank_budget=dp_budget / g["gpus"], dp_batch=dp,
                total_memory=g["gpus"] * g["memory"], reserve_total=g["gpus"] * g["reserve"])


MOE_MODELS = ("deepseek-v3", "qwen3-235b-a22b", "mixtral-8x7b", "mixtral-8x22b")
MOE_GPUS = ("h100", "h200", "b200", "mi300x")
MOE_GPU_COUNTS = (4, 8)


def draw_placement(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(MOE_MODELS)), get_gpu(rng.choice(MOE_GPUS))
    weights, kv = rng.choice(WEIGHTS), rng.choice(KV)
    layout = ("tp", "dp-attention")[n % 2]
    seq = rng.choice([c for c in CONTEXTS if c <= m.max_context])
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("attention_params", float(attention_params(m)), "params"),
             Given("attention", "MLA" if m.is_mla else "GQA", "text"),
             *(() if m.is_mla else (Given("kv_heads", m.kv_heads, "count"),)), Given("layers", m.layers, "count"),
             Given("kv_per_token", int(kv_bytes_per_token(m, kv)), "bytes"),
             Given("seq_len", seq, "tokens"), Given("gpus", rng.choice(MOE_GPU_COUNTS), "count"),
             Given("memory", gpu.memory_bytes, "B"), Given("reserve", RESERVE_BYTES, "B"),
             Given("layout", layout, "text"))
    s = solve_placement({x.name: x.value for x in exact})
    return Draw(layout, exact, {"model": m.key, "gpu": gpu.key}) if s["answer"] >= 1 else None
