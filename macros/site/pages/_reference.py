"""Shared by the reference pages (the numbers sheet, the cheat sheet, the KV cache tables): the anchor
model on the smallest group of the anchor GPU that holds the worked batch (the group the anchors and
cost tables use), and the single-GPU whiteboard figures. Not a page model itself (no model())."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.model.scenario import Scenario, scenario, sensible_gpus
from ...engine.workloads import workloads
from ._shared import one_gpu_decode


def reference_group(**overrides: Any) -> Scenario:
    """The anchor model on the smallest power-of-two group of the anchor GPU that holds the worked
    batch, at the max batch unless `overrides` (batch, seq_len, weights, kv) say otherwise."""
    w = workloads()
    return scenario(w["model"], w["gpu"], gpus=sensible_gpus(w["model"], w["gpu"]), **overrides)


def whiteboard(s: Scenario, prompt_tokens: int) -> SimpleNamespace:
    """The scenario's model on ONE of its GPUs, where a 70B model does not fit: a device for the
    derivation, term by term. The decode terms are _shared.one_gpu_decode's; to them it adds a
    prompt's prefill compute (2 N_a per token, at the dense and at the sparse peak)."""
    d = one_gpu_decode(s)
    gpu = s.gpu_spec
    prompt_flops = f.prefill_flops(s.active_params, prompt_tokens)
    prompt_compute_s = f.compute_time_s(prompt_flops, 1, gpu.bf16_flops)
    return SimpleNamespace(
        weight_bytes=s.weight_bytes,
        read_s=d["weight_read_one_gpu_s"],
        token_flops=d["flops_one_token"],
        token_compute_s=d["decode_compute_one_gpu_s"],
        memory_over_compute=d["memory_over_compute_one_gpu"],  # the machine balance, seen at batch 1
        prompt_flops=prompt_flops,
        prompt_compute_s=prompt_compute_s,
        prompt_over_read=prompt_compute_s / d["weight_read_one_gpu_s"],  # how compute-bound the prefill is
        # the sparsity trap: the "with sparsity" peak halves both compute times, wrongly
        token_compute_sparse_s=d["decode_compute_sparse_s"],
        prompt_compute_sparse_s=f.compute_time_s(prompt_flops, 1, gpu.bf16_sparse_flops),
    )
