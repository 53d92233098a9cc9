"""The decode step and the roofline, the chunked-prefill token budget, and speculative decoding's
break-even: problems on one step of a dense model's replica under tensor parallelism."""

from __future__ import annotations

import random

from .. import formulas as f
from ..lookup import dtype_bytes, get_gpu, get_model, peak_flops
from ..model.scenario import DEFAULT_EFFICIENCY, scenario
from ..specs import Gpu, Model
from .base import Draw, Given, Solution, Value

DENSE_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b")  # GQA, no sliding window
GPUS = ("a100", "h100", "h200", "b200", "mi300x", "l40s")
GPU_COUNTS = (1, 2, 4, 8)
WEIGHTS = ("bf16", "fp8")


def _replica(rng: random.Random, models: tuple[str, ...] = DENSE_MODELS) -> tuple[Model, Gpu, str, int]:
    """A model, a GPU, a weight format and a group size, drawn from the pools."""
    m, gpu, weights = get_model(rng.choice(models)), get_gpu(rng.choice(GPUS)), rng.choice(WEIGHTS)
    return m, gpu, weights, rng.choice(GPU_COUNTS)


# --- the decode step ------------------------------------------------------------------------------


def solve_decode(g: dict[str, Value]) -> Solution:
    """The decode-step floor, max(bytes / (g B), FLOPs / (g P)), with 2 N FLOPs per token (attention
    left out) and every sequence at full context; KV heads replicate past H_kv ranks."""
    weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    kv_seq = f.kv_bytes_per_seq(kv_token, g["layers"], g["seq_len"])
    copies = f.kv_copies("tp", g["gpus"], g["kv_heads"], False)
    moved = f.decode_step_bytes(weights, g["batch"], copies * kv_seq)
    flops = f.decode_step_flops(g["params"], g["batch"])
    balance = f.machine_balance(g["peak_flops"], g["bandwidth"])
    memory_bound = bool(f.is_memory_bound(flops, moved, balance))
    return dict(answer=f.step_floor_s(moved, flops, g["gpus"], g["bandwidth"], g["peak_flops"]), unit="s",
                verdict="memory" if memory_bound else "compute", weights=weights, kv_per_token=kv_token,
                kv_per_seq=kv_seq, copies=copies, bytes=moved, flops=flops, balance=balance,
                intensity=f.intensity(flops, moved), memory_s=f.memory_time_s(moved, g["gpus"], g["bandwidth"]),
                compute_s=f.compute_time_s(flops, g["gpus"], g["peak_flops"]))


BATCHES = (1, 8, 32, 64, 128, 256, 512, 1024)
CONTEXTS = (512, 1024, 2048, 4096, 8192)


def draw_decode(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights, gpus = _replica(rng)
    kv, seq, batch = rng.choice(("bf16", "fp8")), rng.choice(CONTEXTS), rng.choice(BATCHES)
    if scenario(m.key, gpu.key, gpus=gpus, seq_len=seq, weights=weights, kv=kv).max_batch < batch:
        return None  # the batch must fit the replica the problem describes
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("layers", m.layers, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", dtype_bytes(kv), "bytes"),
             Given("seq_len", seq, "tokens"), Given("batch", batch, "count"), Given("gpus", gpus, "count"),
             Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"), Given("peak_flops", peak_flops(gpu, weights),
                                                                          "FLOP/s"))
    want = ("memory", "compute")[n % 2]
    ok = solve_decode({x.name: x.value for x in exact})["verdict"] == want
    return Draw(want, exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4}) if ok else None


# --- the chunked-prefill token budget --------------------------------------------------------------


def solve_chunk(g: dict[str, Value]) -> Solution:
    """The largest chunk that rides with the decodes within the TPOT target; for the "steps" variant,
    how many steps a prompt takes in chunks of that size."""
    chunk = f.largest_prefill_chunk(g["tpot"], g["efficiency"], g["gpus"], g["peak_flops"], g["active_params"],
                                    g["batch"])
    step_tokens = chunk + g["batch"]
    out = dict(answer=chunk, unit="tokens", chunk=chunk, step_tokens=step_tokens,
               floor_budget=g["tpot"] * g["efficiency"])
    if "prompt" in g:
        out.update(answer=f.blocks_needed(g["prompt"], chunk), unit="steps")
    return out


CHUNK_MODELS = (*DENSE_MODELS, "mixtral-8x7b", "qwen3-235b-a22b")
TPOTS = (0.03, 0.05, 0.1)
DECODES = (16, 32, 64, 128)
PROMPTS = (8000, 16000, 32000, 64000, 128000)


def draw_chunk(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights, gpus = _replica(rng, CHUNK_MODELS)
    tpot, batch = rng.choice(TPOTS), rng.choice(DECODES)
    s = scenario(m.key, gpu.key, gpus=gpus, seq_len=4096, weights=weights)
    if s.max_batch < batch:
        return None
    reads = f.memory_time_s(scenario(m.key, gpu.key, gpus=gpus, seq_len=4096, weights=weights,
                                     batch=batch).decode_bytes, gpus, gpu.bandwidth_bytes_per_s)
    if reads >= tpot * DEFAULT_EFFICIENCY:
        return None  # the decodes alone fill the step: no chunk rides along, and the question would mislead
    exact = (Given("active_params", float(m.active), "params"), Given("gpus", gpus, "count"),
             Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"),
             Given("efficiency", DEFAULT_EFFICIENCY, "fraction"), Given("tpot", tpot, "s"),
             Given("batch", batch, "count"))
    variant = ("chunk", "steps")[n % 2]
    if variant == "steps":
        exact += (Given("prompt", rng.choice(PROMPTS), "tokens"),)
    s = solve_chunk({x.name: x.value for x in exact})
    if s["chunk"] < 64 or (variant == "steps" and s["answer"] < 3):
        return None  # a chunk too small to be worth it, or a prompt that needs no chunking
    return Draw(variant, exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4})


# --- speculative decoding's break-even -------------------------------------------------------------


def solve_speculative(g: dict[str, Value]) -> Solution:
    """The batch at which verifying k draft tokens per sequence turns the step compute-bound: with the KV
    read counted (break-even), or with it ignored (ceiling, P / B / (k + 1))."""
    balance = f.machine_balance(g["peak_flops"], g["bandwidth"])
    if "kv_per_seq" in g:
        flops_per_token = f.decode_step_flops(g["params"], 1)
        weights = f.weight_bytes(g["params"], g["bytes_per_weight"])
        answer = f.speculative_break_even_batch(weights, g["kv_per_seq"], flops_per_token, g["draft_tokens"],
                                                balance)
        return dict(answer=answer, unit="sequences", balance=balance, weights=weights,
                    flops_per_token=flops_per_token, verified=g["draft_tokens"] + 1)
    return dict(answer=f.speculative_batch_ceiling(balance, g["draft_tokens"]), unit="sequences", balance=balance,
                verified=g["draft_tokens"] + 1)


DRAFT_TOKENS = (2, 3, 4, 5, 7)


def draw_speculative(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights, gpus = _replica(rng)
    seq = rng.choice(CONTEXTS)
    base = (Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"), Given("bandwidth", gpu.bandwidth_bytes_per_s,
                                                                           "B/s"),
            Given("draft_tokens", rng.choice(DRAFT_TOKENS), "count"))
    if n % 2:
        return Draw("ceiling", base, {"gpu": gpu.key}, {"peak_flops": 4})
    s = scenario(m.key, gpu.key, gpus=gpus, seq_len=seq, weights=weights)
    exact = (Given("params", float(m.params), "params"), Given("bytes_per_weight", dtype_bytes(weights), "bytes"),
             Given("kv_per_seq", float(s.kv_bytes_per_seq), "B"), *base)
    answer = solve_speculative({x.name: x.value for x in exact})["answer"]
    if not answer < s.max_batch:  # a break-even the replica cannot reach teaches nothing here
        return None
    return Draw("break-even", exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4})
