"""The roofline: step time as the larger of its memory and compute terms, FLOPs per step,
throughput and cost.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from ._array import Number, maximum, minimum

__all__ = [
    "machine_balance", "memory_time_s", "full_memory_step_s", "compute_time_s", "step_floor_s", "intensity",
    "is_memory_bound", "compute_idle_fraction", "attainable_flops", "decode_step_bytes",
    "decode_step_flops", "prefill_flops", "prefill_time_s", "attention_flops_per_token",
    "attention_flops_causal", "tokens_per_s", "cost_per_million_tokens",
    "compute_ceiling_tokens_per_s", "compute_ceiling_run_tokens_per_s", "run_tokens_per_s",
    "attention_flop_coefficients",
    "causal_pairs", "attention_flops_prefill", "planned_time_s", "tp_allreduce_s", "tp_allreduces_per_step",
    "ring_allreduce_bytes",
]



def machine_balance(peak_flops: Number, bandwidth_bytes_per_s: Number) -> Number:
    """P / B in FLOP per byte: the intensity at which compute and memory time are equal."""
    return peak_flops / bandwidth_bytes_per_s


def memory_time_s(bytes_moved: Number, gpus: Number, bandwidth_bytes_per_s: Number) -> Number:
    """bytes / (g * B): the memory term of a step, each GPU streaming its share in parallel."""
    return bytes_moved / (gpus * bandwidth_bytes_per_s)


def full_memory_step_s(memory_bytes: Number, reserve_bytes: Number, bandwidth_bytes_per_s: Number) -> Number:
    """(M - R) / B: one GPU reading all its memory but the reserve, the floor of a memory-bound step at
    the max batch. Weights plus a full KV cache fill every GPU of the group up to the reserve, and each
    GPU streams its own share, so the step is this whatever the model or the group size."""
    return memory_time_s(memory_bytes - reserve_bytes, 1, bandwidth_bytes_per_s)


def compute_time_s(flops: Number, gpus: Number, peak_flops: Number) -> Number:
    """FLOPs / (g * P): the compute term of a step at dense peak."""
    return flops / (gpus * peak_flops)


def step_floor_s(
    bytes_moved: Number, flops: Number, gpus: Number, bandwidth_bytes_per_s: Number, peak_flops: Number
) -> Number:
    """max(bytes / (g * B), FLOPs / (g * P)): tensor parallelism splits both over g GPUs."""
    return maximum(memory_time_s(bytes_moved, gpus, bandwidth_bytes_per_s), compute_time_s(flops, gpus, peak_flops))


def intensity(flops: Number, bytes_moved: Number) -> Number:
    """Arithmetic intensity, FLOP per byte."""
    return flops / bytes_moved


def is_memory_bound(flops: Number, bytes_moved: Number, balance: Number) -> Number:
    """Memory-bound when the intensity is below the machine balance."""
    return intensity(flops, bytes_moved) < balance


def compute_idle_fraction(intensity_flop_per_byte: Number, balance: Number) -> Number:
    """1 - min(1, I / (P / B)): the share of peak compute a step leaves unused while it runs
    at the bandwidth roof. Zero once the step is compute-bound (I at or above the balance)."""
    return 1 - minimum(intensity_flop_per_byte / balance, 1)


def attainable_flops(intensity_flop_per_byte: Number, peak_flops: Number, bandwidth_bytes_per_s: Number) -> Number:
    """min(P, I * B): the roofline, the FLOP/s one GPU can sustain at arithmetic intensity I."""
    return minimum(peak_flops, intensity_flop_per_byte * bandwidth_bytes_per_s)


def decode_step_bytes(weight_bytes_read: Number, batch: Number, kv_per_seq: Number) -> Number:
    """Weights read once per step, plus every sequence's KV cache (all at full context: the worst case)."""
    return weight_bytes_read + batch * kv_per_seq


def decode_step_flops(active_params: Number, batch: Number, attention_flops_per_seq: Number = 0) -> Number:
    """b * (2 * N_a + A): one multiply-add per active parameter per sequence, plus each sequence's
    attention over its cached tokens (A, from attention_flops_decode; 0 leaves attention out)."""
    return batch * (2 * active_params + attention_flops_per_seq)


def prefill_flops(active_params: Number, seq_len: Number, attention_flops: Number = 0) -> Number:
    """2 * N_a * s + attention: the FLOPs of prefilling one s-token prompt (attention from
    attention_flops_prefill; 0 leaves it out)."""
    return 2 * active_params * seq_len + attention_flops


def prefill_time_s(
    active_params: Number,
    seq_len: Number,
    weight_bytes_total: Number,
    gpus: Number,
    peak_flops: Number,
    bandwidth_bytes_per_s: Number,
    attention_flops: Number = 0,
) -> Number:
    """max(prefill FLOPs / (g * P), N * w / (g * B)) for one prompt of s tokens."""
    return step_floor_s(weight_bytes_total, prefill_flops(active_params, seq_len, attention_flops), gpus,
                       bandwidth_bytes_per_s, peak_flops)


def attention_flops_per_token(layers: int, query_heads: int, head_dim: int, context: Number) -> Number:
    """4 * L * H_q * d_h * s: the attention FLOPs one new token spends over s cached tokens.

    Per layer and query head, Q.K for s keys is s * d_h multiply-adds and the weighted sum of
    s values another s * d_h: 2 * s * d_h multiply-adds = 4 * s * d_h FLOPs. This is what the
    2 * N rule leaves out; it grows with context while 2 * N does not.
    """
    return 4 * layers * query_heads * head_dim * context


def attention_flops_causal(layers: int, query_heads: int, head_dim: int, tokens: Number) -> Number:
    """2 * L * H_q * d_h * n * (n + 1): attention FLOPs over a whole causal sequence of n tokens.

    Token i attends to i tokens (itself and those before it), so the sum over i = 1..n of
    4 * L * H_q * d_h * i. The same total whether the n tokens arrive as one prefill or as a
    prompt followed by decode steps.
    """
    return 2 * layers * query_heads * head_dim * tokens * (tokens + 1)


def tokens_per_s(batch: Number, step_s: Number) -> Number:
    """Aggregate decode throughput: b tokens per step. Per user it is 1 / step."""
    return batch / step_s


def cost_per_million_tokens(
    price_per_gpu_hour: Number, gpus: Number, tokens_per_s_aggregate: Number, efficiency: Number
) -> Number:
    """price * g / 3600 / (aggregate tokens/s * efficiency) * 1e6, in USD."""
    return price_per_gpu_hour * gpus / 3600 / (tokens_per_s_aggregate * efficiency) * 1e6


def compute_ceiling_tokens_per_s(active_params: Number, gpus: Number, peak_flops: Number) -> Number:
    """g * P / (2 * N_a): no batch can generate tokens faster than the compute allows.

    Each token costs at least 2 * N_a FLOPs (attention ignored), so the ceiling holds whatever
    the batch and sequence lengths; prefill work only lowers it further (see the run ceiling below).
    """
    return gpus * peak_flops / (2 * active_params)


def compute_ceiling_run_tokens_per_s(request_flops: Number, output_tokens: Number, gpus: Number,
                                     peak_flops: Number) -> Number:
    """g * P * n_out / F_request: the compute ceiling of a throughput run, prefill included.

    Each request's FLOPs, F_request = 2 * N_a * (n_in + n_out) + causal attention, buy n_out output
    tokens, so one output token costs 2 * N_a * (1 + n_in / n_out) plus its share of attention.
    """
    return gpus * peak_flops * output_tokens / request_flops


def run_tokens_per_s(batch: Number, output_tokens: Number, prefill_s: Number, step_s: Number) -> Number:
    """b * n_out / (prefill + n_out * step): output tokens per second for a batch of b requests
    that prefill together and then decode n_out tokens each, one step per token."""
    return batch * output_tokens / (prefill_s + output_tokens * step_s)


# --- attention FLOPs, for GQA and MLA, with sliding windows ---------------------------------


def attention_flop_coefficients(query_heads: int, head_dim: int, kv_lora_rank: int | None = None,
                                qk_rope_head_dim: int | None = None, qk_nope_head_dim: int | None = None,
                                v_head_dim: int | None = None) -> tuple[Number, Number]:
    """(decode, prefill) FLOPs per layer per (query, key) pair.

    MHA/GQA/MQA: Q.K over d_h and the weighted sum of V over d_h, 2 FLOPs a multiply-add, for each
    of H_q heads: 4 * H_q * d_h, in decode and prefill alike. MLA decodes with its projections
    absorbed (scores and values in the r-wide latent plus the d_rope RoPE key): 2 * H_q * (2r + d_rope);
    it prefills with decompressed heads: 2 * H_q * (d_nope + d_rope + d_v).
    """
    if kv_lora_rank is None:
        gqa = 4 * query_heads * head_dim
        return gqa, gqa
    decode = 2 * query_heads * (2 * kv_lora_rank + qk_rope_head_dim)
    prefill = 2 * query_heads * (qk_nope_head_dim + qk_rope_head_dim + v_head_dim)
    return decode, prefill


def causal_pairs(tokens: Number, window: Number | None = None) -> Number:
    """Sum over i = 1..n of min(i, w): the (query, key) pairs of a causal pass over n tokens.
    n(n + 1)/2 with no window; a window w < n gives w(w + 1)/2 + (n - w) * w."""
    full = tokens * (tokens + 1) / 2
    if window is None:
        return full
    w = minimum(tokens, window)
    return w * (w + 1) / 2 + (tokens - w) * w


def attention_flops_prefill(coefficient: Number, layers: int, tokens: Number, window_layers: int = 0,
                            window: int | None = None) -> Number:
    """coefficient * sum over layers of the causal pairs: the attention FLOPs of prefilling n tokens."""
    full = (layers - window_layers) * causal_pairs(tokens)
    if not window_layers:
        return coefficient * full
    return coefficient * (full + window_layers * causal_pairs(tokens, window))


def planned_time_s(floor_s: Number, efficiency: Number) -> Number:
    """floor / eta: a step or a prefill as a real engine runs it, at realised efficiency eta."""
    return floor_s / efficiency


def tp_allreduces_per_step(layers: int) -> int:
    """Tensor parallelism's all-reduces in one forward pass: two per layer (after attention, after the MLP)."""
    return 2 * layers


def ring_allreduce_bytes(gpus: Number, tokens: Number, hidden: int, bytes_per_activation: float = 2) -> Number:
    """What each GPU sends over its link, one direction, in one ring all-reduce of the tokens' activations:
    2 (g - 1) / g of t * d * bytes. A reduce-scatter then an all-gather, each passing g - 1 of the g shares on."""
    return 2 * (gpus - 1) / gpus * tokens * hidden * bytes_per_activation


def tp_allreduce_s(layers: int, gpus: Number, tokens: Number, hidden: int, link_bytes_per_s: Number,
                   latency_s: Number, bytes_per_activation: float = 2) -> Number:
    """Tensor parallelism's communication per step, shown beside the floor (not in it).

    Two all-reduces per layer (after attention and after the MLP), each a ring over g GPUs moving
    2 * (g - 1) / g of the tokens' activations (t * d * 2 B in BF16) per GPU over one link
    direction, plus a fixed latency per collective. Zero on one GPU.
    """
    ring = ring_allreduce_bytes(gpus, tokens, hidden, bytes_per_activation) / link_bytes_per_s
    return tp_allreduces_per_step(layers) * (ring + latency_s) * (gpus > 1)
