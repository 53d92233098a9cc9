"""Shared by the reference pages (the numbers sheet, the cheat sheet, the KV cache tables): the anchor
model on the smallest group of the anchor GPU that holds the worked batch (the group the anchors and
cost tables use), and the single-GPU whiteboard figures. Not a page model itself (no model())."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.scenario import DEFAULT_DTYPE, Scenario, dtype_bytes, scenario, sensible_gpus
from ...engine.specs import Gpu, Model
from ...engine.workloads import workloads

def reference_group(**overrides: Any) -> Scenario:
    """The anchor model on the smallest power-of-two group of the anchor GPU that holds the worked
    batch, at the max batch unless `overrides` (batch, seq_len, weights, kv) say otherwise."""
    w = workloads()
    return scenario(w["model"], w["gpu"], gpus=sensible_gpus(w["model"], w["gpu"]), **overrides)


def whiteboard(m: Model, gpu: Gpu, prompt_tokens: int) -> SimpleNamespace:
    """`m` in BF16 on one `gpu`, where a 70B model does not fit: a device for the derivation, term by
    term. The weight read against one token's compute, and a prompt's prefill compute."""
    weights = f.weight_bytes(m.params, dtype_bytes(DEFAULT_DTYPE))
    read_s = f.memory_time_s(weights, 1, gpu.bandwidth_bytes_per_s)
    token_flops = f.decode_step_flops(m.active, 1)
    prompt_flops = f.prefill_flops(m.active, prompt_tokens)
    token_compute_s = f.compute_time_s(token_flops, 1, gpu.bf16_flops)
    prompt_compute_s = f.compute_time_s(prompt_flops, 1, gpu.bf16_flops)
    return SimpleNamespace(
        weight_bytes=weights,
        read_s=read_s,
        token_flops=token_flops,
        token_compute_s=token_compute_s,
        memory_over_compute=read_s / token_compute_s,  # the machine balance, seen at batch 1
        prompt_flops=prompt_flops,
        prompt_compute_s=prompt_compute_s,
        prompt_over_read=prompt_compute_s / read_s,  # how compute-bound the prefill is
        # the sparsity trap: the "with sparsity" peak halves both compute times, wrongly
        token_compute_sparse_s=f.compute_time_s(token_flops, 1, gpu.bf16_sparse_flops),
        prompt_compute_sparse_s=f.compute_time_s(prompt_flops, 1, gpu.bf16_sparse_flops),
    )
