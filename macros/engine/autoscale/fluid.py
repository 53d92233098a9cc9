"""The day, a minute at a time: requests offered, the capacity the serving replicas have at the SLO,
admission control shedding the rest, and a scaling policy deciding after each minute.

Each minute m:
1. replicas ordered earlier join: cold ones ordered after minute j serve from minute j + 1 + the cold
   start's whole minutes, warm-pool ones from j + 1 + the warm start's;
2. offered = round(rate x 60) requests; the serving replicas take floor(replicas x capacity at the SLO
   for the minute's mix x 60) of them within the SLO; admission control sheds the rest, so
   served + shed = offered in whole requests, every minute;
3. the minute misses the SLO when more than (100 - p) % of its requests are shed: the p-th percentile
   request then got no answer within the targets;
4. every replica held (serving, starting, or warm in the pool) costs its GPUs for the minute;
5. the policy sets a target and the replicas move toward it, never holding more than the reservation
   (max_replicas: serving, starting and pooled together).

Policies: reactive scales on the signal (signals.py) with the HPA rule, ceil(demand / set point), up at
once and down to the highest target of the last hold minutes. Predictive also holds the forecast's
replicas for every minute until an order placed now would serve (lead = the cold start), and takes the
larger. Warm-pool is predictive plus a pool of loaded, idle replicas of ceil(forecast replicas x the
forecast's error); a scale-up takes from the pool first (a warm start), and the pool refills cold.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from dataclasses import dataclass

from .. import formulas as f
from .day import Day
from .signals import Mix, demand_replicas

POLICIES = ("reactive", "predictive", "warm-pool")
SECONDS_PER_MINUTE = 60
MINUTES_PER_HOUR = 60


@dataclass(frozen=True)
class Controls:
    policy: str
    signal: str
    set_point: float  # the share of capacity the scaler aims to use: 1 / (1 + the workload's headroom)
    cold_minutes: int
    warm_minutes: int
    hold_minutes: int  # scale-down takes the highest target of this many minutes before and this one
    min_replicas: int
    max_replicas: int  # the reservation: replicas held at once, serving, starting and pooled together
    slo_percentile: int
    forecast_error: float  # relative, the warm pool's share of the forecast's replicas
    gpus_per_replica: int

    @property
    def shed_allowed(self) -> float:
        """The share of a minute's requests admission may shed and the minute still meet the SLO: 1 - p / 100."""
        return 1 - self.slo_percentile / 100


@dataclass(frozen=True)
class Minute:
    offered: int  # requests
    capacity: float  # requests the serving replicas take within the SLO
    replicas: int  # serving
    starting: int  # ordered, loading (cold or warm), for serving or for the pool
    warm_pool: int  # loaded and idle
    served: int
    shed: int
    late: bool  # more than (100 - p) % shed


@dataclass(frozen=True)
class DayRun:
    minutes: tuple[Minute, ...]
    gpu_hours: float
    cold_starts: int
    warm_starts: int

    @property
    def offered_requests(self) -> int:
        return sum(m.offered for m in self.minutes)

    @property
    def served_requests(self) -> int:
        return sum(m.served for m in self.minutes)

    @property
    def shed_requests(self) -> int:
        return sum(m.shed for m in self.minutes)

    @property
    def slo_violation_minutes(self) -> int:
        return sum(m.late for m in self.minutes)


def schedule(day: Day, m: int, c: Controls, planned: Mix) -> int:
    """The forecast's replicas for every minute from the next one until an order placed now would serve."""
    n = len(day.forecast_per_s)
    ahead = max(day.forecast_per_s[(m + k) % n] for k in range(1, c.cold_minutes + 2))
    return f.whole_count(ahead / (planned.capacity_per_s * c.set_point))


def simulate_day(day: Day, c: Controls, planned: Mix, shifted: Mix) -> DayRun:
    """Run the day under the controls; the day starts with the forecast's replicas for minute 0 in place."""
    predictive = c.policy in ("predictive", "warm-pool")
    joins: dict[int, int] = defaultdict(int)  # minute -> replicas that start serving then
    pool_joins: dict[int, int] = defaultdict(int)
    ready = min(c.max_replicas, max(c.min_replicas, schedule(day, -1, c, planned)))
    pool = min(f.warm_pool_replicas(ready, c.forecast_error), c.max_replicas - ready) if c.policy == "warm-pool" else 0
    targets: deque[int] = deque(maxlen=c.hold_minutes + 1)
    rows: list[Minute] = []
    gpu_minutes = 0.0
    cold = warm = 0
    for m, rate in enumerate(day.rates_per_s):
        ready += joins.pop(m, 0)
        pool += pool_joins.pop(m, 0)
        mix = shifted if day.shifted[m] else planned
        offered = round(rate * SECONDS_PER_MINUTE)
        capacity = ready * mix.capacity_per_s * SECONDS_PER_MINUTE
        served = min(offered, math.floor(capacity + 1e-9))
        shed = offered - served
        starting = sum(joins.values()) + sum(pool_joins.values())
        gpu_minutes += (ready + starting + pool) * c.gpus_per_replica
        rows.append(Minute(offered, capacity, ready, starting, pool, served, shed,
                           shed > offered * c.shed_allowed))

        # The decision for the minutes to come.
        want = f.whole_count(demand_replicas(c.signal, rate, ready, mix, planned) / c.set_point)
        ahead = schedule(day, m, c, planned) if predictive else 0
        targets.append(min(c.max_replicas, max(c.min_replicas, want, ahead)))
        target = max(targets)  # down only to the highest target of the hold window
        in_service = ready + sum(joins.values())
        if target > in_service:
            add = target - in_service
            from_pool = min(add, pool)
            pool -= from_pool
            joins[m + 1 + c.warm_minutes] += from_pool
            joins[m + 1 + c.cold_minutes] += add - from_pool
            warm += from_pool
            cold += add - from_pool
        elif target < in_service:
            ready -= _cancel(joins, in_service - target, ready)
        if c.policy == "warm-pool":  # the pool gets what the reservation holds beyond the replicas in service
            want_pool = min(f.warm_pool_replicas(ahead, c.forecast_error), c.max_replicas - ready - sum(joins.values()))
            have = pool + sum(pool_joins.values())
            if want_pool > have:
                pool_joins[m + 1 + c.cold_minutes] += want_pool - have
                cold += want_pool - have
            elif want_pool < have:
                pool -= _cancel(pool_joins, have - want_pool, pool)
    return DayRun(tuple(rows), gpu_minutes / MINUTES_PER_HOUR, cold, warm)


def _cancel(pending: dict[int, int], count: int, ready: int) -> int:
    """Cancel `count` replicas, the latest orders first, then ready ones: returns how many ready go."""
    for when in sorted(pending, reverse=True):
        take = min(count, pending[when])
        pending[when] -= take
        count -= take
        if not pending[when]:
            del pending[when]
    return min(count, ready)
