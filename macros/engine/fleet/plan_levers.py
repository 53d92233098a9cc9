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


def _same_shape(warm: Plan, cold: Plan) -> None:
    if warm.gpus_per_replica != cold.gpus_per_replica:
        raise ValueError(f"the plans' replicas differ ({warm.gpus_per_replica} and {cold.gpus_per_replica} GPUs): "
                         "their loads are not in the same replicas")


def load_with_cold_share(warm: Plan, cold: Plan, cold_share: float) -> float:
    """Busy replicas at the peak when `cold_share` of the traffic has lost its prefix cache (a rollout wave, a
    failover): the warm plan's load plus that share of the extra load the cold plan carries. Both plans must
    use the same replica."""
    _same_shape(warm, cold)
    return warm.replica_seconds_per_s + cold_share * (cold.replica_seconds_per_s - warm.replica_seconds_per_s)


def largest_cold_share(warm: Plan, cold: Plan) -> float:
    """The largest share of the traffic that can run cold at the peak inside the warm plan's replicas, spending
    all of its headroom (1.0 when the headroom covers a fully cold fleet)."""
    _same_shape(warm, cold)
    extra = cold.replica_seconds_per_s - warm.replica_seconds_per_s
    spare = warm.replicas - warm.replica_seconds_per_s
    return 1.0 if extra <= spare else spare / extra
