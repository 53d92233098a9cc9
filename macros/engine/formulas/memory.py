"""The memory budget: weights, the KV cache, what is left for it and the batch it holds.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from ._array import Number, maximum, minimum

__all__ = [
    "weight_bytes", "kv_bytes_per_token_gqa", "kv_bytes_per_token_mla",
    "kv_bytes_per_token_mla_as_mha", "kv_bytes_per_seq", "kv_budget_bytes", "max_batch",
    "kv_overtakes_weights_batch",
]



def weight_bytes(params: Number, bytes_per_weight: float) -> Number:
    """N * w."""
    return params * bytes_per_weight


def kv_bytes_per_token_gqa(layers: int, kv_heads: int, head_dim: int, bytes_per_kv: float) -> Number:
    """2 * L * H_kv * d_h * k: one K and one V vector per KV head per layer (MHA, GQA, MQA)."""
    return 2 * layers * kv_heads * head_dim * bytes_per_kv


def kv_bytes_per_token_mla(
    layers: int, kv_lora_rank: int, qk_rope_head_dim: int, bytes_per_kv: float
) -> Number:
    """L * (kv_lora_rank + qk_rope_head_dim) * k: MLA caches one latent per layer, not K and V."""
    return layers * (kv_lora_rank + qk_rope_head_dim) * bytes_per_kv


def kv_bytes_per_token_mla_as_mha(
    layers: int, query_heads: int, head_dim: int, qk_rope_head_dim: int, bytes_per_kv: float
) -> Number:
    """L * H_q * (2 * d_h + d_rope) * k: the same MLA model caching full per-head K and V, the
    baseline its latent saves against. The key carries the RoPE dimensions too (d_h + d_rope for K,
    d_h for V)."""
    return layers * query_heads * (2 * head_dim + qk_rope_head_dim) * bytes_per_kv


def kv_bytes_per_seq(
    kv_bytes_per_token: Number,
    layers: int,
    seq_len: Number,
    window_layers: int = 0,
    window: int | None = None,
) -> Number:
    """Per-layer bytes * ((L - L_w) * s + L_w * min(s, window)).

    The L_w sliding-window layers keep only the last `window` tokens; the rest keep all s.
    """
    per_layer = kv_bytes_per_token / layers
    if not window_layers:
        return per_layer * layers * seq_len
    return per_layer * ((layers - window_layers) * seq_len + window_layers * minimum(seq_len, window))


def kv_budget_bytes(gpus: Number, memory_bytes: float, weight_bytes_total: Number, reserve_bytes: float) -> Number:
    """g * M - N * w - g * R: what is left for the KV cache across the group."""
    return gpus * memory_bytes - weight_bytes_total - gpus * reserve_bytes


def max_batch(kv_budget: Number, kv_per_seq: Number) -> Number:
    """floor(budget / KV per sequence), never below zero."""
    return maximum(kv_budget // kv_per_seq, 0)


def kv_overtakes_weights_batch(weight_bytes_total: Number, kv_per_seq: Number) -> Number:
    """N * w / (KV bytes per sequence): the batch above which the KV cache outweighs the weights."""
    return weight_bytes_total / kv_per_seq
