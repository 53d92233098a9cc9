"""Fleet capacity over a day (the autoscaler design): the diurnal curve, the warm pool sized from
the forecast error, and how fast a ramp of new replicas can get its weights.

Pure functions in SI base units (see the package docstring); rates in requests per second, times in
seconds, hours as plain numbers of hours."""

from __future__ import annotations

import math

from ._array import Number

__all__ = ["diurnal_rate", "cost_per_million_tokens_at_peak", "cost_per_million_tokens_over_day", "hourly_peak_rates",
           "warm_pool_replicas",
           "fanout_rounds", "decode_replicas", "prefill_replicas", "replicas_for_load", "whole_count", "cost_per_day",
           "HOURS_PER_DAY", "SECONDS_PER_HOUR", "SECONDS_PER_DAY"]

HOURS_PER_DAY = 24
SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = HOURS_PER_DAY * SECONDS_PER_HOUR


def whole_count(x: float) -> int:
    """ceil(x) for a count of whole things (replicas, GPUs, rounds) from a product of floats. x is rounded to
    9 decimals first, so float noise does not add one: 10 × 1.2 = 12.000000000000002 gives 12, not 13."""
    return math.ceil(round(x, 9))


def cost_per_day(gpus: Number, price_per_gpu_hour: Number) -> Number:
    """gpus × price × 24 h, in USD: a fleet held all day."""
    return gpus * price_per_gpu_hour * HOURS_PER_DAY


def cost_per_million_tokens_at_peak(gpus: Number, price_per_gpu_hour: Number, peak_tokens_per_s: Number) -> Number:
    """gpus × price / 3,600 s / the peak's tokens a second × 10⁶, in USD: what a million tokens cost while the
    fleet runs at its peak rate, the cheapest hour of a fleet sized for it."""
    return gpus * price_per_gpu_hour / SECONDS_PER_HOUR / peak_tokens_per_s * 1e6


def cost_per_million_tokens_over_day(cost_per_day: Number, tokens_per_day: Number) -> Number:
    """A day's cost over the day's tokens, per million, in USD: what a token costs on average when the fleet is
    held all day. A fleet sized for the peak serves the peak's rate for an hour and less the rest of the day, so
    this is the peak's cost per token times the day's peak-to-mean ratio."""
    return cost_per_day / tokens_per_day * 1e6


def diurnal_rate(hours_from_peak: Number, peak_rate: Number, trough_rate: Number) -> Number:
    """mean + amplitude · cos(2π · t / 24 h), with mean = (peak + trough) / 2 and amplitude =
    (peak − trough) / 2: a one-day sinusoid that is at the peak at t = 0 and at the trough at t = 12 h.

    An idealisation of a diurnal curve (real ones are flatter at the top and have a lunch dip and a
    weekly cycle); its mean, (peak + trough) / 2, is what the day's volume follows from.
    """
    mean, amplitude = (peak_rate + trough_rate) / 2, (peak_rate - trough_rate) / 2
    if hasattr(hours_from_peak, "shape"):
        import numpy as np

        return mean + amplitude * np.cos(2 * np.pi * hours_from_peak / HOURS_PER_DAY)
    return mean + amplitude * math.cos(2 * math.pi * hours_from_peak / HOURS_PER_DAY)


def hourly_peak_rates(peak_rate: float, trough_rate: float) -> list[float]:
    """The highest rate within each hour of the day, hour 0 starting at the peak: max of the rate at
    the hour's two ends. A scaler that holds one replica count for an hour must provision for the
    highest rate the hour reaches, and a cosine is monotonic between its peak and its trough, so the
    maximum sits at one end of the hour."""
    return [max(diurnal_rate(h, peak_rate, trough_rate), diurnal_rate(h + 1, peak_rate, trough_rate))
            for h in range(HOURS_PER_DAY)]


def warm_pool_replicas(forecast_replicas: Number, forecast_error: Number) -> int:
    """ceil(forecast replicas × relative forecast error): the loaded spare replicas that cover a
    forecast missing by up to that error, whatever the average load is.

    50 × 0.12 = 6.000000000000001 gives 6, not 7 (whole_count).
    """
    return whole_count(forecast_replicas * forecast_error)


def fanout_rounds(new_replicas: int, source_replicas: int) -> int:
    """ceil(log2((sources + new) / sources)): rounds of copying for `new_replicas` to get their weights
    from replicas that already hold them, when every holder sends one copy per round (so the holders
    double each round). 0 when nothing is new; needs at least one source.

    The peer-to-peer fan-out of weights over the GPU network: each round costs one replica's weight
    bytes over one replica's links, and the rounds grow with the logarithm of the ramp, not linearly.
    """
    if source_replicas < 1:
        raise ValueError("a fan-out needs at least one replica that already holds the weights")
    if new_replicas <= 0:
        return 0
    return whole_count(math.log2((source_replicas + new_replicas) / source_replicas))


def decode_replicas(peak_output_tokens_per_s: Number, decode_tokens_per_s_per_replica: Number) -> Number:
    """Replica-seconds per second that decode needs at peak (ARCHITECTURE.md): output tokens/s over one
    replica's decode capacity."""
    return peak_output_tokens_per_s / decode_tokens_per_s_per_replica


def prefill_replicas(peak_requests_per_s: Number, prefill_s: Number) -> Number:
    """Replica-seconds per second that prefill needs at peak: requests/s times the planned prefill each
    request holds a replica for."""
    return peak_requests_per_s * prefill_s


def replicas_for_load(load: Number, headroom: Number) -> int:
    """ceil(load * (1 + headroom)), load in replica-seconds per second; 10 * 1.2 = 12.000000000000002 gives
    12, not 13 (whole_count)."""
    return whole_count(load * (1 + headroom))
