"""The problems at the end of chapter 2 (docs/guide/roofline.md), on other GPUs and models than the
anchor: machine balances in FP8, the batch at which decode turns compute-bound on an H200, a mixture of
experts at batch 1 and at a large batch, FP8 weights on the anchor group, and an 8B on an L4. The inputs
are named here (page-only); every figure comes from the engine. SI units; the page formats them."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.lookup import dtype_bytes, get_gpu
from ...engine.model.scenario import anchor, scenario
from ...engine.workloads import workloads
from ._shared import group_words, memory_bound, worked_batch

BALANCE_GPUS = ("l4", "b200")  # P1: a small inference card and a Blackwell, in BF16 and in FP8
CROSSOVER_GPU = "h200"  # P2: the anchor model on the anchor group size of H200s ...
CROSSOVER_CONTEXTS = (512, 4096)  # ... with short and with full-length sequences
MOE_MODEL, MOE_GPU, MOE_GPUS = "mixtral-8x7b", "h100", 4  # P3: a mixture of experts on four H100s ...
MOE_BATCHES = (1, 256)  # ... alone, and at a large batch (or the most the group holds, if fewer)
SMALL_MODEL, SMALL_GPU = "llama-3.1-8b", "l4"  # P5: an 8B on the fewest L4s that hold it (one, today), at its max batch


def _balance(key: str) -> SimpleNamespace:
    """P1: P/B in BF16 and FP8, and the batch at which weights-only intensity (2 N b FLOPs over N w bytes,
    so b in BF16 and 2b in FP8) reaches each."""
    g = get_gpu(key)
    bf16, fp8 = (f.machine_balance(p, g.bandwidth_bytes_per_s) for p in (g.bf16_flops, g.fp8_flops))
    return SimpleNamespace(gpu=g, bf16=bf16, fp8=fp8,
                           batch_bf16=bf16 * dtype_bytes("bf16") / 2, batch_fp8=fp8 * dtype_bytes("fp8") / 2)


def _crossover(seq_len: int) -> SimpleNamespace:
    """P2: the batch at which the anchor model's decode turns compute-bound on the H200 group at seq_len
    tokens (the speculative break-even with no draft tokens: W / (F / balance - KV)); inf when never."""
    w = workloads()
    s = scenario(w["model"], CROSSOVER_GPU, gpus=w["gpus"], seq_len=seq_len, batch=1)
    flops_per_token = s.decode_flops  # batch 1: one token's FLOPs, weights and attention
    batch = f.speculative_break_even_batch(s.weight_bytes, s.kv_bytes_per_seq_group, flops_per_token, 0,
                                           s.machine_balance)
    return SimpleNamespace(s=s, seq_len=seq_len, batch=batch, finite=math.isfinite(batch),
                           fits=batch <= s.max_batch, max_batch=s.max_batch,
                           kv_seq=s.kv_bytes_per_seq_group, flops_per_token=flops_per_token,
                           kv_flops=s.machine_balance * s.kv_bytes_per_seq_group,  # FLOPs that pay for one KV read
                           limit=flops_per_token / s.kv_bytes_per_seq_group)


def _fp8(batch: int | None) -> SimpleNamespace:
    """P4: the anchor group in BF16 and with FP8 weights (the KV cache stays BF16) at one batch."""
    bf16, fp8 = anchor(batch=batch), anchor(batch=batch, weights="fp8")
    return SimpleNamespace(bf16=bf16, fp8=fp8, speedup=bf16.decode_step_s / fp8.decode_step_s)


def problems() -> SimpleNamespace:
    w = workloads()
    most = scenario(MOE_MODEL, MOE_GPU, gpus=MOE_GPUS).max_batch
    moe = [scenario(MOE_MODEL, MOE_GPU, gpus=MOE_GPUS, batch=min(b, most)) for b in MOE_BATCHES]
    small = scenario(SMALL_MODEL, SMALL_GPU)  # the group chosen: the fewest that hold one sequence
    h200 = get_gpu(CROSSOVER_GPU)
    fp8_batch = worked_batch()  # P4: FP8 weights on the anchor group, at the worked batch
    fp8_batches: dict[Any, SimpleNamespace] = {1: _fp8(1), fp8_batch: _fp8(fp8_batch), "max": _fp8(None)}
    return SimpleNamespace(
        balances=[_balance(k) for k in BALANCE_GPUS],
        h200=h200, h200_balance=f.machine_balance(h200.bf16_flops, h200.bandwidth_bytes_per_s),
        crossover=[_crossover(n) for n in CROSSOVER_CONTEXTS],
        moe=moe, moe_dense_read=moe[0].weight_bytes,
        moe_per_user_ratio=moe[0].decode_tokens_per_s_per_user / moe[1].decode_tokens_per_s_per_user,
        moe_throughput_ratio=moe[1].decode_tokens_per_s / moe[0].decode_tokens_per_s,
        moe_memory_bound=memory_bound(*moe),  # "Both steps stay memory-bound"
        fp8_batch=fp8_batch, fp8=fp8_batches,
        fp8_kv_share=fp8_batches[fp8_batch].fp8.kv_bytes_total / fp8_batches[fp8_batch].fp8.decode_bytes,
        small=small, small_group=group_words(small),
        small_below_balance=small.machine_balance / small.decode_intensity,
        small_idle=f.compute_idle_fraction(small.decode_intensity, small.machine_balance),
        anchor_gpus=w["gpus"],
    )
