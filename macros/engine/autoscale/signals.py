"""What each scaling signal reads, as the replicas it asks for: the demand it sees, in units of one
replica's capacity at the SLO. A scaler divides that by its set point and rounds up (the HPA rule,
formulas.desired_replicas).

The fluid model knows the truth each minute: the offered rate, the replicas serving, and one replica's
capacity at the SLO for the minute's actual mix (serving/capacity.py). A signal sees part of it:

- queue: queue depth, read through its set point, measures the replicas' shortfall against what they
  really serve, whatever the mix: the true load in replicas (demand / true capacity). It sees all of
  the offered load, since the queue holds what admission has not yet shed.
- tokens: offered tokens/s (prompt and output) over one replica's tokens/s at the SLO on the planned
  mix: right when a longer request costs in proportion to its tokens, wrong by as much as it does not.
- kv: KV occupancy over the occupancy one replica runs at its SLO capacity on the planned mix (the set
  point an operator measures). It rises with the load in proportion (a linear reading of the
  simulator's occupancy at capacity) but saturates when the pool is full: it cannot see past that.
- requests: offered requests/s over one replica's requests/s at the SLO on the planned mix: blind to a
  change of lengths.
- utilisation: the share of time a GPU is busy. With requests in flight, a replica is busy; in flight is
  Poisson with mean rate x time in system (Little's law, M/G/infinity below saturation), so the
  reading is 1 - exp(-rate per replica x E2E): near 1 long before the SLO's limit, and never above it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SIGNALS = ("kv", "queue", "tokens", "requests", "utilisation")


@dataclass(frozen=True)
class Mix:
    """One replica's capacity at the SLO for a length mix, and what the simulator measured there."""

    capacity_per_s: float  # requests/s one replica serves within the SLO
    tokens_per_request: float  # prompt and output tokens
    kv_occupancy: float  # share of the KV pool in use at that rate
    e2e_s: float  # mean time in the system at that rate


def busy_probability(rate_per_replica_s: float, e2e_s: float) -> float:
    """1 - exp(-rate x E2E): the chance a replica has at least one request in flight."""
    return 1 - math.exp(-rate_per_replica_s * e2e_s)


def demand_replicas(signal: str, offered_per_s: float, replicas: int, actual: Mix, planned: Mix) -> float:
    """The replicas the signal says the offered load needs (before the set point)."""
    true_load = offered_per_s / actual.capacity_per_s  # in replicas at the SLO
    if signal == "queue":
        return true_load
    if signal == "tokens":
        return offered_per_s * actual.tokens_per_request / (planned.capacity_per_s * planned.tokens_per_request)
    if signal == "requests":
        return offered_per_s / planned.capacity_per_s
    if replicas == 0:  # the replicas' own readings need a replica to read
        return 0.0
    if signal == "kv":
        occupancy = min(1.0, true_load / replicas * actual.kv_occupancy)
        return replicas * occupancy / planned.kv_occupancy
    if signal == "utilisation":
        reading = busy_probability(offered_per_s / replicas, actual.e2e_s)
        return replicas * reading / busy_probability(planned.capacity_per_s, planned.e2e_s)
    raise ValueError(f"unknown signal {signal!r} (known: {', '.join(SIGNALS)})")
