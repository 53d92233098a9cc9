"""Where a replica of g GPUs puts the weights and the KV cache, and so how many sequences it holds.

Two layouts (ARCHITECTURE.md, the formula contract):
- `tp`: tensor parallelism over all g GPUs. Weights are split once; a rank holds whole KV heads, so
  past H_kv ranks the heads are replicated, and an MLA latent is held by every rank.
- `dp-attention`: attention runs data-parallel (each rank holds the attention weights and the KV
  cache of its own sequences); the rest (MLP or experts) is split, as DeepSeek-style serving does
  with expert parallelism.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..formulas.memory import LAYOUTS, kv_budget_bytes, kv_copies, max_batch, max_batch_per_rank, weight_bytes_held
from ..lookup import InputError
from ..specs import Gpu, Model
from .geometry import attention_weight_bytes, model_kv_bytes_per_seq, model_weight_bytes

DEFAULT_LAYOUT = "tp"
MAX_AUTO_GPUS = 4096


@dataclass(frozen=True)
class Placement:
    layout: str
    kv_copies: float  # copies of each sequence's KV cache across the replica
    weight_bytes_held: float  # across the replica, replicated attention weights included
    attention_weight_bytes: float | None  # one copy of N_attn * w (dp-attention only)
    kv_budget_bytes: float  # across the replica
    max_batch: int


def check_layout(layout: str) -> str:
    if layout not in LAYOUTS:
        raise InputError(f"unknown layout {layout!r}. Valid: {', '.join(LAYOUTS)}")
    return layout


def place(model: Model, gpu: Gpu, gpus: int, seq_len: int, weights: str, kv: str, reserve_bytes: float,
          layout: str) -> Placement:
    """The replica's weights, KV budget and max batch under `layout`."""
    total = model_weight_bytes(model, weights)
    kv_seq = model_kv_bytes_per_seq(model, seq_len, kv)
    if check_layout(layout) == "dp-attention":
        attn = attention_weight_bytes(model, weights)
        held = weight_bytes_held(total, attn, gpus, layout)
        budget = kv_budget_bytes(gpus, gpu.memory_bytes, held, reserve_bytes)
        most = int(max_batch_per_rank(gpus, budget / gpus, kv_seq))
        return Placement(layout, 1.0, held, attn, budget, most)
    copies = kv_copies(layout, gpus, model.kv_heads, model.is_mla)
    budget = kv_budget_bytes(gpus, gpu.memory_bytes, total, reserve_bytes)
    return Placement(layout, float(copies), total, None, budget, int(max_batch(budget, copies * kv_seq)))


def choose_gpus(model: Model, gpu: Gpu, seq_len: int, sequences: int, weights: str, kv: str,
                reserve_bytes: float, layout: str = DEFAULT_LAYOUT) -> int:
    """The smallest of 1, 2, 4, 8, ... whose replica holds the weights, the reserve and `sequences`
    sequences under `layout`."""
    g = 1
    while place(model, gpu, g, seq_len, weights, kv, reserve_bytes, layout).max_batch < sequences:
        g *= 2
        if g > MAX_AUTO_GPUS:
            raise InputError(f"no replica of up to {MAX_AUTO_GPUS} {gpu.name} holds {sequences} sequence(s) of "
                             f"{model.name} under {layout}: is the reserve larger than the GPU's memory?")
    return g
