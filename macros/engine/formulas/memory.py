"""The memory budget: weights, the KV cache, what is left for it and the batch it holds.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from ._array import Number, maximum, minimum

__all__ = [
    "weight_bytes", "kv_bytes_per_token_gqa", "kv_bytes_per_token_mla",
    "kv_bytes_per_token_mla_as_mha", "kv_bytes_per_seq", "kv_budget_bytes", "max_batch",
    "kv_overtakes_weights_batch", "kv_copies", "weight_bytes_held", "max_batch_per_rank",
    "attention_params_gqa", "attention_params_mla", "attended_tokens", "LAYOUTS",
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
    return kv_bytes_per_token / layers * attended_tokens(layers, seq_len, window_layers, window)


def kv_budget_bytes(gpus: Number, memory_bytes: float, weight_bytes_total: Number, reserve_bytes: float) -> Number:
    """g * M - N * w - g * R: what is left for the KV cache across the group."""
    return gpus * memory_bytes - weight_bytes_total - gpus * reserve_bytes


def max_batch(kv_budget: Number, kv_per_seq: Number) -> Number:
    """floor(budget / KV per sequence), never below zero."""
    return maximum(kv_budget // kv_per_seq, 0)


def kv_overtakes_weights_batch(weight_bytes_total: Number, kv_per_seq: Number) -> Number:
    """N * w / (KV bytes per sequence): the batch above which the KV cache outweighs the weights."""
    return weight_bytes_total / kv_per_seq


# --- placement: where the weights and the KV cache sit on a replica of g GPUs ---------------

LAYOUTS = ("tp", "dp-attention")


def kv_copies(layout: str, gpus: Number, kv_heads: int, is_mla: bool) -> Number:
    """c: how many copies of one sequence's KV cache the replica holds.

    Under tensor parallelism a rank holds whole KV heads, so past H_kv ranks the heads are
    replicated: max(1, g / H_kv) copies. An MLA latent is shared by every head, so each of the g
    ranks holds all of it. Under data-parallel attention a sequence lives on one rank: 1 copy.
    """
    if layout == "dp-attention":
        return 1 + 0 * gpus
    if is_mla:
        return gpus
    return maximum(1, gpus / kv_heads)


def weight_bytes_held(weight_bytes_total: Number, attention_weight_bytes: Number, gpus: Number,
                      layout: str) -> Number:
    """Weight bytes the replica holds across its g GPUs: N * w under tensor parallelism (each
    weight once); under data-parallel attention every rank holds the attention weights whole and
    the rest is split, N * w + (g - 1) * N_attn * w."""
    if layout == "dp-attention":
        return weight_bytes_total + (gpus - 1) * attention_weight_bytes
    return weight_bytes_total


def max_batch_per_rank(gpus: Number, per_rank_budget: Number, kv_per_seq: Number) -> Number:
    """g * floor(per-rank budget / KV per sequence): data-parallel attention places whole
    sequences on ranks, so each rank's budget is filled on its own."""
    return gpus * maximum(per_rank_budget // kv_per_seq, 0)


def attention_params_gqa(layers: int, hidden: int, query_heads: int, kv_heads: int, head_dim: int) -> Number:
    """L * (2 * d * H_q * d_h + 2 * d * H_kv * d_h): the Q and output projections at full width,
    K and V at the KV heads' width (biases and norms, a rounding error, left out)."""
    return layers * (2 * hidden * query_heads * head_dim + 2 * hidden * kv_heads * head_dim)


def attention_params_mla(layers: int, hidden: int, query_heads: int, q_lora_rank: int, kv_lora_rank: int,
                         qk_nope_head_dim: int, qk_rope_head_dim: int, v_head_dim: int) -> Number:
    """MLA's projections per layer, summed over L layers: the query down- and up-projections
    (d * r_q + r_q * H_q * (d_nope + d_rope)), the KV down-projection with the shared RoPE key
    (d * (r_kv + d_rope)), the K and V up-projections (r_kv * H_q * (d_nope + d_v)) and the output
    (H_q * d_v * d). Norms left out."""
    per_layer = (hidden * q_lora_rank + q_lora_rank * query_heads * (qk_nope_head_dim + qk_rope_head_dim)
                 + hidden * (kv_lora_rank + qk_rope_head_dim)
                 + kv_lora_rank * query_heads * (qk_nope_head_dim + v_head_dim)
                 + query_heads * v_head_dim * hidden)
    return layers * per_layer


def attended_tokens(layers: int, seq_len: Number, window_layers: int = 0, window: int | None = None) -> Number:
    """Sum over layers of the cached tokens a new token attends to: (L - L_w) * s + L_w * min(s, w).
    The same count sizes the KV cache and the decode attention FLOPs."""
    if not window_layers:
        return layers * seq_len
    return (layers - window_layers) * seq_len + window_layers * minimum(seq_len, window)
