"""A workload file's day under a policy: its replica (the planner's shape), one replica's capacity at the
SLO for the planned mix and the shifted one (serving/capacity.py), the cold start, the forecast's error
on a backtest day, and the fluid model's run (fluid.py), keyed as `gpu_math.py autoscale --json` prints."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..fleet.planner import Plan, plan, require
from ..fleet.workload_file import SECONDS_PER_DAY, Target, Workload
from ..lookup import InputError
from ..memo import memoized
from ..serving.capacity import CapacityQuery, SloCapacity, capacity_at_slo
from ..serving.metrics import nearest_rank
from ..specs import catalog
from .day import Day, drawn_day, replayed_day
from .fluid import POLICIES, Controls, DayRun, simulate_day
from .inputs import ColdStart, DayInputs, cold_start, day_inputs, whole_minutes
from .signals import SIGNALS, Mix

DEFAULT_SIGNAL = "queue"
JSON_KEYS = (
    "name", "policy", "signal", "gpus_per_replica", "minutes", "gpu_hours", "cost", "price_per_gpu_hour",
    "price_from", "price_as_of", "slo_violation_minutes", "offered_requests", "served_requests", "shed_requests",
    "cold_starts", "warm_starts", "peak_replicas", "capacity_per_replica_per_s", "shifted_capacity_per_replica_per_s",
    "cold_start_s", "cold_start_minutes", "forecast_error", "set_point", "timeline",
)


@dataclass(frozen=True)
class Autoscaled:
    workload: Workload
    plan: Plan
    controls: Controls
    inputs: DayInputs
    cold: ColdStart
    planned: SloCapacity
    shifted: SloCapacity
    day: Day
    run: DayRun
    price_per_gpu_hour: float | None
    price_from: str | None  # "workload" (its [fleet] price), "prices.toml" (the GPU's typical), None (no price)
    price_as_of: str | None  # prices.toml's date for the price

    @property
    def cost(self) -> float | None:
        return None if self.price_per_gpu_hour is None else self.run.gpu_hours * self.price_per_gpu_hour

    def as_json(self) -> dict[str, Any]:
        r, c = self.run, self.controls
        out = {
            "name": self.workload.name, "policy": c.policy, "signal": c.signal,
            "gpus_per_replica": c.gpus_per_replica, "minutes": len(r.minutes), "gpu_hours": r.gpu_hours,
            "cost": self.cost, "price_per_gpu_hour": self.price_per_gpu_hour, "price_from": self.price_from,
            "price_as_of": self.price_as_of,
            "slo_violation_minutes": r.slo_violation_minutes, "offered_requests": r.offered_requests,
            "served_requests": r.served_requests, "shed_requests": r.shed_requests, "cold_starts": r.cold_starts,
            "warm_starts": r.warm_starts, "peak_replicas": max(m.replicas for m in r.minutes),
            "capacity_per_replica_per_s": self.planned.rate_per_s,
            "shifted_capacity_per_replica_per_s": self.shifted.rate_per_s,
            "cold_start_s": self.cold.total_s, "cold_start_minutes": self.cold.minutes,
            "forecast_error": c.forecast_error, "set_point": c.set_point,
            "timeline": [{"minute": i, "offered": m.offered, "capacity": m.capacity, "replicas": m.replicas,
                          "starting": m.starting, "warm_pool": m.warm_pool, "served": m.served, "shed": m.shed,
                          "late": m.late} for i, m in enumerate(r.minutes)],
        }
        return {k: out[k] for k in JSON_KEYS}


def mean_rate(w: Workload, x: DayInputs) -> float:
    """The day's mean request rate: the workload's daily volume, or its peak over the data's peak-to-mean."""
    if w.requests_per_day is not None:
        return w.requests_per_day / SECONDS_PER_DAY
    return w.peak_requests_per_s / x.peak_to_mean


DAY_METRICS = ("ttft", "tpot")  # bounded at the day's percentile, whatever statistic the workload states them as


def day_targets(w: Workload, percentile: int) -> tuple[list[Target], list[Target]]:
    """(the workload's targets one replica's capacity for the day meets, the rest): TTFT and TPOT, and the gap
    between tokens where the workload bounds it at the day's percentile."""
    bounded = [t for t in w.targets if t.metric in DAY_METRICS or (t.metric == "itl" and t.percentile == percentile)]
    return bounded, [t for t in w.targets if t not in bounded]


def slo_capacity(w: Workload, gpus: int, x: DayInputs, prompt_tokens: int | None = None) -> SloCapacity:
    """One replica's capacity at the workload's targets, read as the data's percentile (day_targets: the gap between
    tokens too, where the workload bounds it at that percentile), on the workload's engine and token budget as
    launched."""
    itl = next((t.seconds for t in day_targets(w, x.slo_percentile)[0] if t.metric == "itl"), None)
    return capacity_at_slo(CapacityQuery(
        model=w.model, gpu=w.gpu, gpus=gpus, prompt_tokens=prompt_tokens or w.prompt_tokens,
        output_tokens=w.output_tokens, ttft_target_s=w.ttft_s, tpot_target_s=w.tpot_s, percentile=x.slo_percentile,
        itl_target_s=itl, weights=w.weights, kv=w.kv, layout=w.layout, engine=w.engine,
        prefix_hit_rate=w.prefix_hit_rate, requests=x.requests, relative_tolerance=x.relative_tolerance,
        seed=x.capacity_seed, launch=() if w.token_budget is None else (("token_budget", w.token_budget),)))


def mix(w: Workload, cap: SloCapacity, prompt_tokens: int) -> Mix:
    return Mix(capacity_per_s=cap.rate_per_s, tokens_per_request=prompt_tokens + w.output_tokens,
               kv_occupancy=cap.kv_occupancy, e2e_s=cap.e2e_mean_s)


def forecast_error(backtest: Day, percentile: int) -> float:
    """How far the offered rate ran above the forecast, relative, at the given percentile of the minutes."""
    misses = sorted(max(0.0, r / f - 1) for r, f in zip(backtest.rates_per_s, backtest.forecast_per_s) if f > 0)
    return nearest_rank(misses, percentile) if misses else 0.0


@memoized(keep=True)  # a build asks for eight days of traffic; a rebuild with the same code and data reads them
def autoscale(w: Workload, policy: str, signal: str = DEFAULT_SIGNAL, trace: tuple[float, ...] | None = None,
              x: DayInputs | None = None, reservation: int | None = None) -> Autoscaled:
    """The workload's day under `policy` scaling on `signal` (a trace of per-minute rates replaces the
    drawn day), holding at most `reservation` replicas (serving, starting and pooled; without one, the data's
    max_replicas_over_peak times the peak's need)."""
    if policy not in POLICIES:
        raise InputError(f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
    if signal not in SIGNALS:
        raise InputError(f"unknown signal {signal!r} (known: {', '.join(SIGNALS)})")
    if reservation is not None and reservation < 1:
        raise InputError(f"the reservation must be at least one replica, got {reservation}")
    x = day_inputs() if x is None else x
    p = require(plan(w), w.name)
    g = p.gpus_per_replica
    mean = mean_rate(w, x)
    if trace is None:
        day, backtest = drawn_day(w.peak_requests_per_s, mean, x), drawn_day(w.peak_requests_per_s, mean, x, x.seed + 1)
    else:
        day = backtest = replayed_day(trace, w.peak_requests_per_s, mean, x)  # in-sample: a trace is one day
    long_prompt = max(1, round(w.prompt_tokens * x.shift_prompt_scale))
    planned = slo_capacity(w, g, x)
    try:
        shifted = slo_capacity(w, g, x, long_prompt)
    except InputError as exc:
        raise InputError(f"{w.name}: the afternoon's {long_prompt:,}-token prompts (data/autoscale.toml [mix] "
                         f"shift_prompt_scale {x.shift_prompt_scale:g}): {exc}") from None
    cold = cold_start(p.at_slo.weight_bytes, x)
    set_point = 1 / (1 + w.headroom)
    peak_need = w.peak_requests_per_s / (planned.rate_per_s * set_point)
    ceiling = math.ceil(peak_need * x.max_replicas_over_peak) if reservation is None else reservation
    controls = Controls(
        policy=policy, signal=signal, set_point=set_point, cold_minutes=cold.minutes,
        warm_minutes=whole_minutes(x.warm_start_s), hold_minutes=x.scale_down_hold_minutes,
        min_replicas=x.min_replicas, max_replicas=max(x.min_replicas, ceiling),
        slo_percentile=x.slo_percentile, forecast_error=forecast_error(backtest, x.slo_percentile), gpus_per_replica=g)
    run = simulate_day(day, controls, mix(w, planned, w.prompt_tokens), mix(w, shifted, long_prompt))
    price = catalog().prices.get(w.gpu)
    if w.price_per_gpu_hour is not None:
        rate, source, as_of = w.price_per_gpu_hour, "workload", None
    elif price is not None:
        rate, source, as_of = price.typical, "prices.toml", price.as_of
    else:
        rate = source = as_of = None
    return Autoscaled(w, p, controls, x, cold, planned, shifted, day, run, rate, source, as_of)

