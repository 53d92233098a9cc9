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
