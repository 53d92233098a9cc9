"""The formula contract (DESIGN section 3): pure functions in SI base units.

Every argument and result is in bytes, seconds, FLOP, FLOP/s, bytes/s or USD. Each
function takes plain numbers or numpy arrays alike, so tables and charts reuse the same
code; numpy is imported only when an array is passed, which keeps the calculator's
start-up fast. Nothing here rounds or formats: that is fmt.py's job.

Symbols: N total parameters, N_a active parameters per token, L layers, H_kv KV heads,
d_h head dim, w bytes per weight, k bytes per KV element, g GPUs in one tensor-parallel
group, M memory per GPU, B bandwidth per GPU, P dense peak FLOP/s per GPU, s tokens of
context, b batch (concurrent sequences), R reserve per GPU.
"""

from __future__ import annotations

from typing import Any

Number = Any  # a float, an int or a numpy array: every function broadcasts


def _maximum(a: Number, b: Number) -> Number:
    """Elementwise max; numpy only when an array is involved."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.maximum(a, b)
    return max(a, b)


def _minimum(a: Number, b: Number) -> Number:
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)


# --- memory -----------------------------------------------------------------------


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
    return per_layer * ((layers - window_layers) * seq_len + window_layers * _minimum(seq_len, window))


def kv_budget_bytes(gpus: Number, memory_bytes: float, weight_bytes_total: Number, reserve_bytes: float) -> Number:
    """g * M - N * w - g * R: what is left for the KV cache across the group."""
    return gpus * memory_bytes - weight_bytes_total - gpus * reserve_bytes


def max_batch(kv_budget: Number, kv_per_seq: Number) -> Number:
    """floor(budget / KV per sequence), never below zero."""
    return _maximum(kv_budget // kv_per_seq, 0)


# --- the roofline -------------------------------------------------------------------


def machine_balance(peak_flops: Number, bandwidth_bytes_per_s: Number) -> Number:
    """P / B in FLOP per byte: the intensity at which compute and memory time are equal."""
    return peak_flops / bandwidth_bytes_per_s


def experts_touched(experts: int, experts_per_token: int, batch: Number) -> Number:
    """u(b) = E * (1 - (1 - k_e / E) ** b): distinct experts that b tokens route to, on average."""
    return experts * (1 - (1 - experts_per_token / experts) ** batch)


def moe_params_read(
    params: Number, active_params: Number, experts: int, experts_per_token: int, batch: Number
) -> Number:
    """Parameters read in one decode step of b tokens: a + u(b) * e.

    e = (N - N_a) / (E - k_e) per routed expert; a = N_a - k_e * e is read by every token
    (attention, embeddings, shared experts). At b = 1 this is N_a; for large b it tends to N.
    """
    per_expert = (params - active_params) / (experts - experts_per_token)
    always_read = active_params - experts_per_token * per_expert
    return always_read + experts_touched(experts, experts_per_token, batch) * per_expert


def decode_step_bytes(weight_bytes_read: Number, batch: Number, kv_per_seq: Number) -> Number:
    """Weights read once per step, plus every sequence's KV cache (all at full context: the worst case)."""
    return weight_bytes_read + batch * kv_per_seq


def decode_step_flops(active_params: Number, batch: Number) -> Number:
    """2 * N_a * b: one multiply-add per active parameter per sequence (attention FLOPs ignored)."""
    return 2 * active_params * batch


def step_time_s(
    bytes_moved: Number, flops: Number, gpus: Number, bandwidth_bytes_per_s: Number, peak_flops: Number
) -> Number:
    """max(bytes / (g * B), FLOPs / (g * P)): tensor parallelism splits both over g GPUs."""
    return _maximum(bytes_moved / (gpus * bandwidth_bytes_per_s), flops / (gpus * peak_flops))


def prefill_time_s(
    active_params: Number,
    seq_len: Number,
    weight_bytes_total: Number,
    gpus: Number,
    peak_flops: Number,
    bandwidth_bytes_per_s: Number,
) -> Number:
    """max(2 * N_a * s / (g * P), N * w / (g * B)) for one prompt of s tokens."""
    return step_time_s(weight_bytes_total, 2 * active_params * seq_len, gpus, bandwidth_bytes_per_s, peak_flops)


def intensity(flops: Number, bytes_moved: Number) -> Number:
    """Arithmetic intensity, FLOP per byte."""
    return flops / bytes_moved


def is_memory_bound(flops: Number, bytes_moved: Number, balance: Number) -> Number:
    """Memory-bound when the intensity is below the machine balance."""
    return intensity(flops, bytes_moved) < balance


# --- throughput and cost ---------------------------------------------------------------


def tokens_per_s(batch: Number, step_s: Number) -> Number:
    """Aggregate decode throughput: b tokens per step. Per user it is 1 / step."""
    return batch / step_s


def cost_per_million_tokens(
    price_per_gpu_hour: Number, gpus: Number, tokens_per_s_aggregate: Number, efficiency: Number
) -> Number:
    """price * g / 3600 / (aggregate tokens/s * efficiency) * 1e6, in USD."""
    return price_per_gpu_hour * gpus / 3600 / (tokens_per_s_aggregate * efficiency) * 1e6
