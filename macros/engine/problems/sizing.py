"""Memory and fit, MoE placement under tp and dp-attention: how many sequences a replica holds; and
preemption (chapter 6.4): swap a sequence's KV cache out and back, or drop it and recompute it.

A third of the memory-and-fit problems are near misses: not even one sequence fits, but the weights, the
reserve and one sequence's KV cache together overflow the replica's memory by at most NEAR_MISS_SHARE of it
(never the absurd KV budget of minus half a terabyte); the rest fit, a third of them only just (at most
sixteen sequences).
"""

from __future__ import annotations

import functools
import itertools
import random

from .. import formulas as f
from ..lookup import dtype_bytes, get_gpu, get_model, peak_flops
from ..model.geometry import attention_params, kv_bytes_per_token, model_weight_bytes
from ..model.scenario import DEFAULT_RESERVE_BYTES as RESERVE_BYTES
from ..model.scenario import scenario
from ..specs import Gpu, Model
from ..workloads import workloads
from .base import Draw, Given, Solution, Value, stated

NEAR_MISS_SHARE = 0.05  # a near miss needs at most this share more than the replica's memory for one sequence
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
    total = g["gpus"] * g["memory"]
    need_one = weights + g["gpus"] * g["reserve"] + copies * kv_seq  # what one sequence needs in all
    return dict(answer=batch, unit="sequences", kv_per_token=kv_token, weights=weights, copies=copies,
                kv_per_seq=kv_seq, budget=budget, total_memory=total, reserve_total=g["gpus"] * g["reserve"],
                fits=batch >= 1, need_one=need_one, over=need_one / total - 1)


MEMORY_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b", "mixtral-8x7b", "mixtral-8x22b",
                 "qwen3-235b-a22b")  # GQA, no sliding window: the KV formula a reader knows
MEMORY_GPUS = ("a100", "h100", "h200", "b200", "mi300x", "l40s", "l4")
GPU_COUNTS = (1, 2, 4, 8)
CONTEXTS = (2048, 4096, 8192, 16384, 32768)
WEIGHTS = ("bf16", "fp8")
KV = ("bf16", "fp8")


NEAR_MISS_CONTEXTS = (*CONTEXTS, 65536, 131072)  # a long sequence can be the one that does not fit


def _memory_given(m: Model, gpu: Gpu, weights: str, kv: str, seq: int, gpus: int) -> tuple[Given, ...]:
    return (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
            Given("layers", m.layers, "count"), Given("kv_heads", m.kv_heads, "count"),
            Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", dtype_bytes(kv), "bytes"),
            Given("seq_len", seq, "tokens"), Given("gpus", gpus, "count"),
            Given("memory", gpu.memory_bytes, "B"), Given("reserve", RESERVE_BYTES, "B"))


@functools.cache
def near_misses() -> dict[str, tuple[tuple[str, tuple[Given, ...]], ...]]:
    """Every replica of the pools, by model, on which not even one sequence fits, as the problem states its
    numbers, while one sequence needs at most NEAR_MISS_SHARE more than the memory. Few replicas are: a random
    draw would find the commonest model's again and again, so a near miss picks its model first."""
    out: dict[str, tuple[tuple[str, tuple[Given, ...]], ...]] = {}  # model -> (GPU, the inputs)
    for key, gpu, weights, kv, gpus in itertools.product(MEMORY_MODELS, MEMORY_GPUS, WEIGHTS, KV, GPU_COUNTS):
        m = get_model(key)
        for seq in (c for c in NEAR_MISS_CONTEXTS if c <= m.max_context):
            exact = _memory_given(m, get_gpu(gpu), weights, kv, seq, gpus)
            s = solve_memory({x.name: stated(x.value) for x in exact})
            if s["answer"] == 0 and 0 < s["over"] <= NEAR_MISS_SHARE:
                out[key] = (*out.get(key, ()), (gpu, exact))
    return out


def draw_memory(n: int, rng: random.Random) -> Draw | None:
    want = ("near-miss", "just-fits", "fits")[n % 3]
    if want == "near-miss":
        model = rng.choice(sorted(near_misses()))
        gpu, exact = rng.choice(near_misses()[model])
        return Draw(want, exact, {"model": model, "gpu": gpu})
    m, gpu = get_model(rng.choice(MEMORY_MODELS)), get_gpu(rng.choice(MEMORY_GPUS))
    weights, kv = rng.choice(WEIGHTS), rng.choice(KV)
    seq = rng.choice([c for c in CONTEXTS if c <= m.max_context])
    exact = _memory_given(m, gpu, weights, kv, seq, rng.choice(GPU_COUNTS))
    s = solve_memory({x.name: x.value for x in exact})
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


# --- preemption: swap or recompute ----------------------------------------------------------------------


def solve_preemption(g: dict[str, Value]) -> Solution:
    """Chapter 6.4's floors: the whole KV cache out to host memory and back over one PCIe link, against a
    prefill of the sequence's tokens, max((2 N_a s + causal attention) / (g P), W / (g B)). The answer is how
    many times longer recomputing takes than swapping (below 1, recomputing is faster)."""
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    kv_seq = f.kv_bytes_per_seq(kv_token, g["layers"], g["seq_len"])
    swap = 2 * f.transfer_time_s(kv_seq, g["pcie"])  # out, and back
    attention = f.attention_flops_causal(g["layers"], g["query_heads"], g["head_dim"], g["seq_len"])
    flops = f.prefill_flops(g["active_params"], g["seq_len"], attention)
    recompute = f.prefill_time_s(g["active_params"], g["seq_len"], g["weights"], g["gpus"], g["peak_flops"],
                                 g["bandwidth"], attention)
    return dict(answer=recompute / swap, unit="times", verdict="swap" if swap < recompute else "recompute",
                kv_per_token=kv_token, kv_per_seq=kv_seq, swap=swap, attention=attention, flops=flops,
                compute_s=f.compute_time_s(flops, g["gpus"], g["peak_flops"]),
                memory_s=f.memory_time_s(g["weights"], g["gpus"], g["bandwidth"]), recompute=recompute)


PREEMPT_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "qwen3-235b-a22b")  # GQA
PREEMPT_GPUS = ("a100", "h100", "h200", "b200", "mi300x")
PREEMPT_CONTEXTS = (4096, 8192, 16384, 32768)


def draw_preemption(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights = get_model(rng.choice(PREEMPT_MODELS)), get_gpu(rng.choice(PREEMPT_GPUS)), rng.choice(WEIGHTS)
    seq = rng.choice([c for c in PREEMPT_CONTEXTS if c <= m.max_context])
    gpus, kv = rng.choice(GPU_COUNTS), rng.choice(KV)
    if scenario(m.key, gpu.key, gpus=gpus, seq_len=seq, weights=weights, kv=kv).max_batch < 2:
        return None  # a replica that holds one sequence has nothing to preempt it for
    exact = (Given("active_params", float(m.active), "params"),
             Given("weights", float(model_weight_bytes(m, weights)), "B"), Given("layers", m.layers, "count"),
             Given("query_heads", m.query_heads, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", dtype_bytes(kv), "bytes"),
             Given("seq_len", seq, "tokens"), Given("gpus", gpus, "count"),
             Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"), Given("bandwidth", gpu.bandwidth_bytes_per_s,
                                                                            "B/s"),
             Given("pcie", workloads()["pcie_bytes_per_s"], "B/s"))
    want = ("swap", "recompute")[n % 2]
    ok = solve_preemption({x.name: x.value for x in exact})["verdict"] == want
    return Draw(want, exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4}) if ok else None
