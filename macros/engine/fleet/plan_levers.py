"""A plan against the same workload with one lever switched off, so every page that prices a lever (the design
pages' variants, the designs' index) gets one figure for it from one place.

The prefix cache's worth is the fleet without it over the fleet with it: every prompt token prefilled
(hit rate 0), everything else unchanged.
"""

from __future__ import annotations

import dataclasses

from .planner import Infeasible, Plan, plan
from .workload_file import Workload


def without_prefix_cache(w: Workload) -> Plan | Infeasible:
    """The workload with no prompt token served from the prefix cache."""
    return plan(dataclasses.replace(w, prefix_hit_rate=0.0))


def fleet_ratio(before: Plan, after: Plan) -> float:
    """after's GPUs over before's: 2.0 means the change doubles the fleet."""
    return after.gpus / before.gpus


def on_shape(a, gpus_per_replica: int):
    """An answer's fleet on replicas of `gpus_per_replica` GPUs: the answer itself when it chose that shape, else the
    run its search made there (fleet.answer.Answer.shapes), so two answers that chose different shapes can be
    compared replica for replica. Raises ValueError when the search did not try that shape."""
    if a.gpus_per_replica == gpus_per_replica:
        return a
    if gpus_per_replica not in a.shapes:
        raise ValueError(f"the answer was not simulated on {gpus_per_replica}-GPU replicas")
    return a.shapes[gpus_per_replica]


def _same_shape(warm, cold) -> None:
    if warm.gpus_per_replica != cold.gpus_per_replica:
        raise ValueError(f"the fleets' replicas differ ({warm.gpus_per_replica} and {cold.gpus_per_replica} GPUs): "
                         "their counts are not of the same replicas")


def replicas_with_cold_share(warm, cold, cold_share: float) -> float:
    """Replicas the peak needs when `cold_share` of the traffic has lost its prefix cache (a rollout wave, a
    failover): the warm fleet's count plus that share of the replicas the cold fleet adds. `warm` and `cold` are
    fleets on the same replica (the serving model's answers, or plans) with and without the cache."""
    _same_shape(warm, cold)
    return warm.replicas + cold_share * (cold.replicas - warm.replicas)


def largest_cold_share(warm, cold, load: float = 1.0) -> float:
    """The largest share of the traffic that can run cold at once on the warm fleet's replicas while the traffic is
    `load` of the peak's: load x replicas_with_cold_share(share) <= the warm count (1.0 when even a fully cold fleet
    fits)."""
    _same_shape(warm, cold)
    extra = cold.replicas - warm.replicas
    if extra <= 0 or load * cold.replicas <= warm.replicas:
        return 1.0
    return warm.replicas * (1 - load) / (load * extra)
