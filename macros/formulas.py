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
    per_expert = moe_expert_params(params, active_params, experts, experts_per_token)
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
    return _maximum(memory_time_s(bytes_moved, gpus, bandwidth_bytes_per_s), compute_time_s(flops, gpus, peak_flops))


def prefill_flops(active_params: Number, seq_len: Number) -> Number:
    """2 * N_a * s: the FLOPs of prefilling one s-token prompt (attention FLOPs ignored)."""
    return 2 * active_params * seq_len


def prefill_time_s(
    active_params: Number,
    seq_len: Number,
    weight_bytes_total: Number,
    gpus: Number,
    peak_flops: Number,
    bandwidth_bytes_per_s: Number,
) -> Number:
    """max(2 * N_a * s / (g * P), N * w / (g * B)) for one prompt of s tokens."""
    return step_time_s(weight_bytes_total, prefill_flops(active_params, seq_len), gpus, bandwidth_bytes_per_s,
                       peak_flops)


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


# --- batching and the toolkit (chapters 4 and 5) -----------------------------------------


def static_batch_utilisation(output_lengths: Number) -> Number:
    """mean(lengths) / max(lengths): the share of slot-steps doing work when a static batch
    runs until its longest sequence finishes. Takes a list, or an array with the lengths on
    its last axis (one row per batch)."""
    if hasattr(output_lengths, "shape"):
        import numpy as np

        return np.mean(output_lengths, axis=-1) / np.max(output_lengths, axis=-1)
    lengths = list(output_lengths)
    return sum(lengths) / len(lengths) / max(lengths)


def reserved_waste_fraction(reserved_tokens: Number, used_tokens: Number) -> Number:
    """1 - used / reserved: the share of a worst-case contiguous KV reservation never written."""
    return 1 - used_tokens / reserved_tokens


def blocks_needed(tokens: Number, block_tokens: Number) -> Number:
    """ceil(tokens / block): KV blocks a sequence occupies under paging, or chunks a prompt
    splits into under chunked prefill. Integer arithmetic, so no float rounding at the edge."""
    return -(-tokens // block_tokens)


def multi_turn_prefill_tokens(turns: Number, tokens_per_turn: Number, prefix_cached: bool) -> Number:
    """Prompt tokens prefilled over a conversation whose every turn adds t tokens.

    Without a prefix cache turn n re-prefills its whole history, n * t tokens, so the total is
    t * n * (n + 1) / 2, quadratic in the turns; with one, each turn prefills only its t new
    tokens, n * t in total.
    """
    if prefix_cached:
        return turns * tokens_per_turn
    return tokens_per_turn * turns * (turns + 1) / 2


def speculative_batch_ceiling(balance: Number, draft_tokens: Number) -> Number:
    """P / B / (k + 1): the batch below which verifying k draft tokens is nearly free.

    Verification runs k + 1 tokens per sequence through the model over the same weight read,
    so decode intensity (about b, KV reads ignored) becomes about b * (k + 1); the extra FLOPs
    stay hidden behind the memory time while that is below the machine balance.
    """
    return balance / (draft_tokens + 1)


# --- the roofline, term by term (chapters 1 and 2) ----------------------------------------


def memory_time_s(bytes_moved: Number, gpus: Number, bandwidth_bytes_per_s: Number) -> Number:
    """bytes / (g * B): the memory term of a step, each GPU streaming its share in parallel."""
    return bytes_moved / (gpus * bandwidth_bytes_per_s)


def compute_time_s(flops: Number, gpus: Number, peak_flops: Number) -> Number:
    """FLOPs / (g * P): the compute term of a step at dense peak."""
    return flops / (gpus * peak_flops)


def compute_idle_fraction(intensity_flop_per_byte: Number, balance: Number) -> Number:
    """1 - min(1, I / (P / B)): the share of peak compute a step leaves unused while it runs
    at the bandwidth roof. Zero once the step is compute-bound (I at or above the balance)."""
    return 1 - _minimum(intensity_flop_per_byte / balance, 1)


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


# --- autoscaling and operations (chapters 6 and 7) ----------------------------------------


def transfer_time_s(bytes_moved: Number, link_bytes_per_s: Number) -> Number:
    """bytes / link bandwidth: moving data over one link at its full rate (a floor).

    Loading weights from storage, swapping a KV cache over PCIe: no protocol overhead, no
    small-transfer penalty, nothing else sharing the link.
    """
    return bytes_moved / link_bytes_per_s


def scaling_signal(
    kv_occupancy: Number, kv_target: Number, queue_wait_p95_s: Number, queue_wait_target_s: Number
) -> Number:
    """max(kv_occupancy / kv_target, queue_wait_p95 / queue_wait_target): a composite load
    signal, 1.0 when the constraint closest to its limit sits exactly at its target.

    Taking the larger ratio responds to whichever constraint binds first: KV occupancy leads
    (it rises before a queue forms), the queue wait catches what occupancy misses.
    """
    return _maximum(kv_occupancy / kv_target, queue_wait_p95_s / queue_wait_target_s)


def desired_replicas(current_replicas: Number, signal: Number) -> Number:
    """ceil(current * signal): the Kubernetes HPA rule, with the signal already a ratio to target.

    The product is rounded to 9 decimals first, so 10 * 1.2 = 12.000000000000002 gives 12, not 13.
    """
    if hasattr(current_replicas, "shape") or hasattr(signal, "shape"):
        import numpy as np

        return np.ceil(np.round(current_replicas * signal, 9))
    import math

    return math.ceil(round(current_replicas * signal, 9))


# --- reference pages: rules, the roofline chart, floors for measured runs ------------------


def kv_overtakes_weights_batch(weight_bytes_total: Number, kv_per_seq: Number) -> Number:
    """N * w / (KV bytes per sequence): the batch above which the KV cache outweighs the weights."""
    return weight_bytes_total / kv_per_seq


def attainable_flops(intensity_flop_per_byte: Number, peak_flops: Number, bandwidth_bytes_per_s: Number) -> Number:
    """min(P, I * B): the roofline, the FLOP/s one GPU can sustain at arithmetic intensity I."""
    return _minimum(peak_flops, intensity_flop_per_byte * bandwidth_bytes_per_s)


def compute_ceiling_tokens_per_s(active_params: Number, gpus: Number, peak_flops: Number) -> Number:
    """g * P / (2 * N_a): no batch can generate tokens faster than the compute allows.

    Each token costs at least 2 * N_a FLOPs (attention ignored), so the ceiling holds whatever
    the batch and sequence lengths; prefill work only lowers it further.
    """
    return gpus * peak_flops / (2 * active_params)


def run_tokens_per_s(batch: Number, output_tokens: Number, prefill_s: Number, step_s: Number) -> Number:
    """b * n_out / (prefill + n_out * step): output tokens per second for a batch of b requests
    that prefill together and then decode n_out tokens each, one step per token."""
    return batch * output_tokens / (prefill_s + output_tokens * step_s)


def moe_expert_params(params: Number, active_params: Number, experts: int, experts_per_token: int) -> Number:
    """e = (N - N_a) / (E - k_e): parameters in one routed expert (the DESIGN's MoE split).

    The N - N_a parameters a token skips are the E - k_e experts it does not choose.
    """
    return (params - active_params) / (experts - experts_per_token)
