"""Batching, the toolkit and operations (chapters 4 to 6): static batches, paging, prefix
caching, speculation, transfers and autoscaling.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from ._array import Number, maximum, minimum
from .capacity import whole_count

__all__ = [
    "static_batch_utilisation", "reserved_waste_fraction", "blocks_needed",
    "multi_turn_prefill_tokens", "largest_prefill_chunk", "speculative_batch_ceiling", "speculative_break_even_batch",
    "transfer_time_s", "weight_load_bytes_per_s",
    "scaling_signal", "desired_replicas",
]



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


def largest_prefill_chunk(tpot_s: Number, efficiency: Number, gpus: Number, peak_flops: Number,
                          active_params: Number, decodes: Number) -> Number:
    """floor(TPOT * eta * g * P / (2 * N_a)) - b: the most prefill tokens that ride in one step with b
    decodes and keep the planned step (floor / eta) within the TPOT target.

    Once the chunk joins, the step is compute-bound: 2 * N_a FLOPs per token over g * P (attention
    ignored), so the step's floor may carry TPOT * eta * g * P / (2 * N_a) tokens, b of them the decodes'.
    Valid only while the decodes' reads alone take less than TPOT * eta (otherwise no chunk rides along).
    """
    import math

    return math.floor(round(tpot_s * efficiency * gpus * peak_flops / (2 * active_params), 9)) - decodes


def speculative_batch_ceiling(balance: Number, draft_tokens: Number) -> Number:
    """P / B / (k + 1): the batch below which verifying k draft tokens is nearly free.

    Verification runs k + 1 tokens per sequence through the model over the same weight read,
    so decode intensity (about b, KV reads ignored) becomes about b * (k + 1); the extra FLOPs
    stay hidden behind the memory time while that is below the machine balance.
    """
    return balance / (draft_tokens + 1)


def speculative_break_even_batch(weight_bytes_read: Number, kv_bytes_per_seq: Number, flops_per_token: Number,
                                 draft_tokens: Number, balance: Number) -> Number:
    """W / ((k + 1) * F / (P / B) - KV): the batch at which verifying k draft tokens per sequence
    makes the decode step compute-bound, counting the KV read the verified tokens share.

    The k + 1 verified tokens of a sequence read its KV cache once, so the step moves W + b * KV
    bytes while it computes b * (k + 1) * F FLOPs (F per token, weights and attention). Setting
    FLOPs / P = bytes / B and solving for b gives the formula; when (k + 1) * F / balance <= KV the
    step never turns compute-bound and the break-even is infinite.
    """
    denominator = (draft_tokens + 1) * flops_per_token / balance - kv_bytes_per_seq
    return float("inf") if denominator <= 0 else weight_bytes_read / denominator


def transfer_time_s(bytes_moved: Number, link_bytes_per_s: Number) -> Number:
    """bytes / link bandwidth: moving data over one link at its full rate (a floor).

    Loading weights from storage, swapping a KV cache over PCIe: no protocol overhead, no
    small-transfer penalty, nothing else sharing the link.
    """
    return bytes_moved / link_bytes_per_s


def weight_load_bytes_per_s(storage_bytes_per_s: Number, pcie_bytes_per_s: Number, gpus: Number) -> Number:
    """min(storage read rate, g * PCIe): how fast a new replica's weights reach its g GPUs.

    The node reads the weights once from where they are stored, and each GPU takes its own share
    over its own PCIe link from the host, so the narrower of the two paths sets the load: a network
    store or a drive binds before g PCIe links do; weights already in host memory load at PCIe speed.
    """
    return minimum(storage_bytes_per_s, gpus * pcie_bytes_per_s)


def scaling_signal(
    kv_occupancy: Number, kv_target: Number, queue_wait_p95_s: Number, queue_wait_target_s: Number
) -> Number:
    """max(kv_occupancy / kv_target, queue_wait_p95 / queue_wait_target): a composite load
    signal, 1.0 when the constraint closest to its limit sits exactly at its target.

    Taking the larger ratio responds to whichever constraint binds first: KV occupancy leads
    (it rises before a queue forms), the queue wait catches what occupancy misses.
    """
    return maximum(kv_occupancy / kv_target, queue_wait_p95_s / queue_wait_target_s)


def desired_replicas(current_replicas: Number, signal: Number) -> Number:
    """ceil(current * signal): the Kubernetes HPA rule, with the signal already a ratio to target.

    The product is rounded to 9 decimals first, so 10 * 1.2 = 12.000000000000002 gives 12, not 13.
    """
    if hasattr(current_replicas, "shape") or hasattr(signal, "shape"):
        import numpy as np

        return np.ceil(np.round(current_replicas * signal, 9))
    return whole_count(current_replicas * signal)
