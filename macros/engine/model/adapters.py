"""A LoRA adapter on a model in the data: its parameters, bytes and FLOPs per token, from the model's
geometry (hidden size, heads, head dim, feed-forward width) through formulas/lora.py.

Dense GQA/MHA/MQA models only: an MoE's MLP targets are per expert and an MLA model's attention
projections are not the q/k/v/o of LORA_TARGETS, so both raise rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..formulas.lora import LORA_TARGETS, lora_adapter_params, lora_flops_per_token, lora_matrix_widths
from ..formulas.memory import weight_bytes
from ..lookup import DEFAULT_DTYPE, InputError, dtype_bytes, get_model


@dataclass(frozen=True)
class Adapter:
    model: str
    rank: int
    targets: tuple[str, ...]
    dtype: str
    params: float  # r · Σ (d_in + d_out) · L
    bytes: float  # params · bytes per weight
    flops_per_token: float  # 2 · params
    base_share: float  # the adapter's bytes against the base model's in the same format


def adapter(model: str, rank: int, targets: tuple[str, ...] = LORA_TARGETS, dtype: str = DEFAULT_DTYPE) -> Adapter:
    """The adapter of rank `rank` on projections `targets` of `model`, stored in `dtype`."""
    m = get_model(model)
    if m.is_moe or m.is_mla or not (m.hidden_size and m.ffn_size):
        raise InputError(f"LoRA adapter sizes: {m.name} is not a dense GQA model with a hidden and feed-forward "
                         "width in models.toml")
    unknown = [t for t in targets if t not in LORA_TARGETS]
    if unknown or not targets or rank < 1:
        raise InputError(f"LoRA adapter: targets must be among {', '.join(LORA_TARGETS)} and the rank at least 1, "
                         f"got {list(targets)} and rank {rank}")
    widths = lora_matrix_widths(m.hidden_size, m.query_heads, m.kv_heads, m.head_dim, m.ffn_size)
    params = lora_adapter_params(rank, [widths[t] for t in targets], m.layers)
    w = dtype_bytes(dtype)
    return Adapter(model=model, rank=rank, targets=tuple(targets), dtype=dtype, params=params,
                   bytes=weight_bytes(params, w), flops_per_token=lora_flops_per_token(params),
                   base_share=params / m.params)
