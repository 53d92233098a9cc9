"""The offered load, minute by minute: the workload's diurnal curve (a sinusoid, or a peaked day when the peak is
more than twice the mean) with bursts drawn from the seeded PRNG,
or a replayed trace of per-minute rates; the forecast a predictive scaler sees (the curve alone); and the
minutes whose length mix has shifted.

Bursts, one minute at a time from minute 0, in this order of draws (serving/prng.py): outside a burst,
one uniform u; a burst starts when u < the chance per minute, and draws its length, max(1, round(
exponential(mean minutes))), then its lift, uniform() x the largest lift. During a burst nothing is drawn:
the rate is the curve's x (1 + lift).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from .. import formulas as f
from ..lookup import InputError
from ..serving.prng import Rng
from .inputs import DayInputs

MINUTES_PER_DAY = 1440
MINUTES_PER_HOUR = 60
HOURS_PER_DAY = 24
QUADRATURE = 1440  # steps of the day the peaked curve's mean is summed over
BISECTIONS = 60  # halvings of k's bracket: past a double's precision
MOST_PEAKED = 24  # the largest peak-to-mean a day may have: all of its traffic in its peak hour
TRACE_HEADER = "requests_per_s"


@dataclass(frozen=True)
class Day:
    rates_per_s: tuple[float, ...]  # offered, one per minute
    forecast_per_s: tuple[float, ...]  # what the forecast expects in each minute: the curve without bursts
    shifted: tuple[bool, ...]  # minutes whose prompts are the shifted mix's


def trough_rate(peak_per_s: float, mean_per_s: float) -> float:
    """The sinusoid's low point: mean - (peak - mean), and 0 for a day more peaked than a sinusoid can be."""
    return max(0.0, 2 * mean_per_s - peak_per_s)


def _peaked_mean(k: float) -> float:
    """The day's mean of ((1 + cos theta) / 2) ** k, over QUADRATURE equal steps of theta (a periodic integrand:
    the sum is the integral to far below a request a day; at k = 1, exactly 1/2)."""
    return sum(((1 + math.cos(2 * math.pi * j / QUADRATURE)) / 2) ** k for j in range(QUADRATURE)) / QUADRATURE


@functools.lru_cache(maxsize=64)
def peakedness(peak_to_mean: float) -> float:
    """k >= 1 such that the day peak x ((1 + cos(2 pi t / 24 h)) / 2) ** k has its peak `peak_to_mean` times its
    mean: 1 at 2 (the sinusoid down to zero), 2 at 8/3, 3 at 16/5, and about (peak / mean) ** 2 / pi past that.
    Found by bisection, the mean falling as k grows. At most MOST_PEAKED: a day whose traffic all fell in one hour."""
    if peak_to_mean > MOST_PEAKED:
        raise InputError(f"a peak {peak_to_mean:g} times the day's mean is more than {MOST_PEAKED}: the whole day's "
                         "traffic in less than an hour is no daily curve (replay it as a trace)")
    target = 1 / peak_to_mean
    low, high = 1.0, 2.0
    while _peaked_mean(high) > target:
        low, high = high, 2 * high
    for _ in range(BISECTIONS):
        mid = (low + high) / 2
        low, high = (mid, high) if _peaked_mean(mid) > target else (low, mid)
    return (low + high) / 2


def curve(peak_per_s: float, mean_per_s: float, peak_hour: float, minutes: int = MINUTES_PER_DAY) -> list[float]:
    """The day's curve at the start of each minute, the peak at peak_hour: the diurnal sinusoid
    (formulas.diurnal_rate) while the peak is at most twice the mean; past that, a sinusoid cannot stay above zero,
    and the day is peak x ((1 + cos(2 pi t / 24 h)) / 2) ** k, zero 12 h from the peak, k from the ratio
    (peakedness): any peak-to-mean a real day has (a business day's is 3 or more)."""
    if mean_per_s <= 0:
        raise InputError(f"the day's mean rate must be positive, got {mean_per_s:g} requests/s")
    hours = [m / MINUTES_PER_HOUR - peak_hour for m in range(minutes)]
    if peak_per_s <= 2 * mean_per_s * (1 + 1e-12):
        trough = trough_rate(peak_per_s, mean_per_s)
        return [f.diurnal_rate(h, peak_per_s, trough) for h in hours]
    k = peakedness(peak_per_s / mean_per_s)
    return [peak_per_s * ((1 + math.cos(2 * math.pi * h / HOURS_PER_DAY)) / 2) ** k for h in hours]


def lifts(x: DayInputs, seed: int, minutes: int = MINUTES_PER_DAY) -> list[float]:
    """Each minute's burst lift (0 outside a burst), drawn as the module docstring says."""
    rng = Rng(seed)
    out: list[float] = []
    left, lift = 0, 0.0
    for _ in range(minutes):
        if left == 0 and rng.uniform() < x.burst_chance_per_minute:
            left = max(1, round(rng.exponential(x.burst_mean_minutes)))
            lift = rng.uniform() * x.burst_max_lift
        out.append(lift if left else 0.0)
        left = max(0, left - 1)
    return out


def shifted_minutes(x: DayInputs, minutes: int = MINUTES_PER_DAY) -> list[bool]:
    """Minutes of the day (wrapping at midnight) inside the mix shift's window."""
    start = x.shift_start_hour * MINUTES_PER_HOUR
    length = x.shift_hours * MINUTES_PER_HOUR
    return [(m % MINUTES_PER_DAY - start) % MINUTES_PER_DAY < length for m in range(minutes)]


def drawn_day(peak_per_s: float, mean_per_s: float, x: DayInputs, seed: int | None = None) -> Day:
    """One day of the curve with bursts (seed: the data's, or another for a backtest) and the mix shift."""
    base = curve(peak_per_s, mean_per_s, x.peak_hour)
    bumps = lifts(x, x.seed if seed is None else seed)
    return Day(tuple(r * (1 + b) for r, b in zip(base, bumps)), tuple(base), tuple(shifted_minutes(x)))


def replayed_day(rates_per_s: tuple[float, ...], peak_per_s: float, mean_per_s: float, x: DayInputs) -> Day:
    """A trace's rates as the offered load; the forecast is still the workload's curve, and the mix is the
    workload's all day (a trace of rates says nothing of lengths)."""
    n = len(rates_per_s)
    base = curve(peak_per_s, mean_per_s, x.peak_hour, MINUTES_PER_DAY)
    return Day(rates_per_s, tuple(base[m % MINUTES_PER_DAY] for m in range(n)), (False,) * n)


def read_rate_trace(path: str) -> tuple[float, ...]:
    """A trace of per-minute request rates: one rate in requests/s per line, minute 0 first (a first line
    `requests_per_s` is a header; blank lines are skipped). Anything else is one InputError naming the
    file and the line."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the trace: {getattr(exc, 'strerror', None) or exc}") from None
    rates: list[float] = []
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text or (n == 1 and text == TRACE_HEADER):
            continue
        try:
            rate = float(text)
        except ValueError:
            raise InputError(f"{path}: line {n}: expected one rate in requests/s per line, got {line!r}") from None
        if not rate == rate or rate in (float("inf"), float("-inf")):
            raise InputError(f"{path}: line {n}: the rate must be a finite number, got {line!r}")
        if rate < 0:
            raise InputError(f"{path}: line {n}: the rate must not be negative, got {line!r}")
        rates.append(rate)
    if not rates:
        raise InputError(f"{path}: no rates in the trace")
    return tuple(rates)
