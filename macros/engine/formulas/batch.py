"""Batch serving (the batch API design): the interactive fleet's trough over the day, packed prefill,
what a request costs a KV-bound replica, fair shares between tenants, and the work a preemption loses.

Pure functions in SI base units (see the package docstring); a replica-second is one replica busy for
one second.
"""

from __future__ import annotations

import math

from ._array import Number, maximum
from .capacity import HOURS_PER_DAY, whole_count

__all__ = [
    "diurnal_load_fraction", "lendable_replicas", "packed_prefill_s", "kv_bound_request_cost_s",
    "round_robin_shares", "preemption_lost_s",
]


def diurnal_load_fraction(hours_from_peak: Number, peak_to_mean: Number) -> Number:
    """1/p + (1 - 1/p) cos(2π h / 24): a cosine day's load as a fraction of its peak, h hours from it.

    Its mean over the day is 1/p (the peak is p times the mean) and its trough, twelve hours from the
    peak, is 2/p - 1 of the peak: a shape with one number, for 1 <= p <= 2 (past 2 the trough would
    go negative). Real days have two humps and a weekend; this is the first-order shape.
    """
    if hasattr(hours_from_peak, "shape"):
        import numpy as np

        cos = np.cos(2 * np.pi * hours_from_peak / HOURS_PER_DAY)
    else:
        cos = math.cos(2 * math.pi * hours_from_peak / HOURS_PER_DAY)
    return 1 / peak_to_mean + (1 - 1 / peak_to_mean) * cos


def lendable_replicas(replicas: int, busy_at_peak: float, load_fraction: float, headroom: float) -> int:
    """replicas - ceil(busy_at_peak * load * (1 + headroom)), at least 0: whole replicas an interactive
    fleet can lend while keeping its own headroom over its load of the moment.

    A replica is lent whole (drained of interactive work), so the kept replicas round up; the product
    is rounded to 9 decimals first so a float residue does not keep one more.
    """
    kept = whole_count(busy_at_peak * load_fraction * (1 + headroom))
    return max(0, replicas - kept)


def packed_prefill_s(compute_s: Number, weight_read_s: Number, prompts_per_step: Number) -> Number:
    """max(k * compute, weight read) / k: one prompt's share of a prefill step that packs k prompts.

    Prefilled alone, a short prompt on a large model waits on one read of every weight (the memory
    term); packed k to a step, the read is shared and past k = weight read / compute the step is
    compute-bound, so each prompt costs only its own FLOPs.
    """
    return maximum(prompts_per_step * compute_s, weight_read_s) / prompts_per_step


def kv_bound_request_cost_s(input_tokens: Number, output_tokens: Number, s_per_input_token: Number,
                            s_per_output_token: Number, slot_tokens: Number) -> Number:
    """n_in * α + n_out * β * (n_in + n_out) / s_slot: a request's replica-seconds on a KV-bound replica.

    α is the replica-seconds one prompt token's prefill costs, β one output token's decode when the
    sequence fills one KV slot of s_slot tokens (the planned context). When the KV budget caps the
    batch, a sequence holding twice the context takes two slots for every step it decodes, so its
    output tokens cost twice as much: the replica sells KV-byte-seconds, not tokens. Worst case, as
    the planner: the sequence holds its full context from its first step.
    """
    return input_tokens * s_per_input_token + output_tokens * s_per_output_token * (
        (input_tokens + output_tokens) / slot_tokens)


def round_robin_shares(costs: list[float]) -> list[float]:
    """c_i / Σ c: each backlogged tenant's share of the replicas when a scheduler serves one request
    from each in turn (fair by requests). The tenant with the costliest requests takes the most."""
    total = sum(costs)
    return [c / total for c in costs]


def preemption_lost_s(batch: Number, prefill_s: Number, output_tokens: Number, step_s: Number) -> Number:
    """n_out * t_step / 2 + b * t_prefill: replica-seconds of work a replica loses when it dies without
    warning, every sequence in flight redone from its prompt.

    In steady state the b sequences are spread evenly through their generation, so on average each
    has decoded half its output: b * (n_out / 2) tokens, b to a step, n_out * t_step / 2 of replica
    time; and every one of them was prefilled, b prefills of t_prefill each.
    """
    return output_tokens * step_s / 2 + batch * prefill_s
