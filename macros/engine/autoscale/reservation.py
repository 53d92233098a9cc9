"""The reservation a day of traffic needs: the capacity planner's question, asked of the fluid model.

The reservation covers the day the forecast can see: the diurnal curve and the afternoon's longer prompts,
scaled by the predictive policy on queue depth, with no bursts drawn (data/autoscale.toml burst_chance set to
0). A burst is by definition what no forecast sees; what the reservation cannot serve of it, admission control
sheds by priority. Below some count the reservation binds and minutes go over the SLO that the scaler would
have served; above it, more replicas change nothing. The answer is the fewest replicas whose day has no more
minutes over the SLO than the same day under a ceiling of the data's max_replicas_over_peak times the peak's
need. Bisection takes the minutes over the SLO as falling with the reservation (tests/engine/test_autoscale.py
checks that on the worked design's day)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..fleet.workload_file import Workload
from ..lookup import InputError
from .inputs import DayInputs, day_inputs
from .run import Autoscaled, autoscale

POLICY, SIGNAL = "predictive", "queue"  # the schedule from the forecast, corrected by the load it sees


@dataclass(frozen=True)
class Reserved:
    replicas: int  # the fewest replicas held at once that serve the forecastable day as well as no ceiling does
    day: Autoscaled  # that day at that reservation
    unbounded: Autoscaled  # that day under the data's ceiling, the reference
    first: Autoscaled  # that day at the first-order count the search started from
    below: Autoscaled | None  # that day at one replica fewer, which misses (None when the first count serves)


def forecastable(x: DayInputs) -> DayInputs:
    """The day's inputs without its bursts: the curve and the mix shift, which a forecast sees."""
    return dataclasses.replace(x, burst_chance_per_minute=0.0)


def day_reservation(w: Workload, at_least: int, x: DayInputs | None = None) -> Reserved:
    """The fewest replicas, `at_least` or more (the first-order count the search starts from), whose forecastable
    day has no more minutes over the SLO than it has under the data's ceiling."""
    x = forecastable(day_inputs() if x is None else x)
    unbounded = autoscale(w, POLICY, SIGNAL, x=x)
    ceiling = high = unbounded.controls.max_replicas
    if at_least > ceiling:
        raise InputError(f"{w.name}: a reservation of {at_least} replicas is above the day's ceiling of {ceiling} "
                         "(data/autoscale.toml [control] max_replicas_over_peak)")
    target = unbounded.run.slo_violation_minutes

    def day(n: int) -> Autoscaled:
        return unbounded if n == ceiling else autoscale(w, POLICY, SIGNAL, x=x, reservation=n)

    first = day(at_least)
    if first.run.slo_violation_minutes <= target:
        return Reserved(at_least, first, unbounded, first, None)
    low = at_least  # its day has more minutes over the SLO than the ceiling's; high's has no more
    while high - low > 1:
        mid = (low + high) // 2
        if day(mid).run.slo_violation_minutes <= target:
            high = mid
        else:
            low = mid
    return Reserved(high, day(high), unbounded, first, day(low))  # low = high - 1: its day, from the memo
