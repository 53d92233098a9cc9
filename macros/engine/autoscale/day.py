"""The offered load, minute by minute: the workload's diurnal curve with bursts drawn from the seeded PRNG,
or a replayed trace of per-minute rates; the forecast a predictive scaler sees (the curve alone); and the
minutes whose length mix has shifted.

Bursts, one minute at a time from minute 0, in this order of draws (serving/prng.py): outside a burst,
one uniform u; a burst starts when u < the chance per minute, and draws its length, max(1, round(
exponential(mean minutes))), then its lift, uniform() x the largest lift. During a burst nothing is drawn:
the rate is the curve's x (1 + lift).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import formulas as f
from ..lookup import InputError
from ..serving.prng import Rng
from .inputs import DayInputs

MINUTES_PER_DAY = 1440
MINUTES_PER_HOUR = 60
TRACE_HEADER = "requests_per_s"


@dataclass(frozen=True)
class Day:
    rates_per_s: tuple[float, ...]  # offered, one per minute
    forecast_per_s: tuple[float, ...]  # what the forecast expects in each minute: the curve without bursts
    shifted: tuple[bool, ...]  # minutes whose prompts are the shifted mix's


def trough_rate(peak_per_s: float, mean_per_s: float) -> float:
    """The sinusoid's low point: mean - (peak - mean). A peak more than twice the mean has no sinusoid."""
    if peak_per_s > 2 * mean_per_s * (1 + 1e-12):
        raise InputError(f"a peak of {peak_per_s:g} requests/s is more than twice the day's mean of "
                         f"{mean_per_s:g}: a one-day sinusoid cannot go below zero (peak_to_mean must be at most 2)")
    return max(0.0, 2 * mean_per_s - peak_per_s)


def curve(peak_per_s: float, mean_per_s: float, peak_hour: float, minutes: int = MINUTES_PER_DAY) -> list[float]:
    """The diurnal sinusoid (formulas.diurnal_rate) at the start of each minute, the peak at peak_hour."""
    trough = trough_rate(peak_per_s, mean_per_s)
    return [f.diurnal_rate(m / MINUTES_PER_HOUR - peak_hour, peak_per_s, trough) for m in range(minutes)]


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
