"""The serving model's answer beside the napkin's (ARCHITECTURE.md): the figures a design's sizing section
quotes from the simulated plan, and why the two fleets differ.

From the simulated plan at peak (planner_simulated): the p50 and p95 TTFT and TPOT on the chosen count; the
live sequences per replica by Little's law against the napkin's SLO batch, and the KV they hold (both at
full context, the napkin's worst case, so the two compare like with like); the engine's per-step token
budget, the decodes the live sequences take from it and the room left for prefill chunks; the fleet at the
ends of the calibrated band, scaled as the step time is (a stated approximation: replicas in proportion to
1 / (predicted / measured TPOT), not re-simulated); and the shape search's choice and runner-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..serving.calibration import band_for
from ..serving.profiles import profile
from .planner import Plan
from .planner_simulated import Check, SimulatedPlan, value
from .shapes import ShapeSearch
from .workload_file import Target

# Why the simulated count differs from the napkin's (a key; the page says it in words):
AGREE = "agree"  # the same count
HEADROOM = "headroom"  # fewer, each below its planned capacity: the targets need less than the napkin's headroom
FASTER_STEP = "faster-step"  # fewer, each past its planned capacity: the fitted step outruns floor / efficiency
QUEUEING = "queueing"  # more, set by a TTFT target: the queue for prefill the napkin ignores
MIXED_STEPS = "mixed-steps"  # more, set by a TPOT target: prefill chunks and fixed costs inside decode steps


@dataclass(frozen=True)
class Percentiles:
    p50_s: float
    p95_s: float
    target: Target | None  # the workload's p95 target for the metric, if it gives one


@dataclass(frozen=True)
class ServingAnswer:
    napkin: Plan
    simulated: SimulatedPlan
    ttft: Percentiles
    tpot: Percentiles
    requests_per_s_per_replica: float
    mean_e2e_s: float
    live_per_replica: float  # Little's law: requests/s per replica x mean E2E
    kv_live_bytes: float  # live sequences x KV per sequence group (every copy), at full context
    kv_napkin_bytes: float  # the napkin's SLO batch x the same
    engine_name: str
    token_budget: int  # the engine's tokens per step
    live_decodes: int  # the live sequences, rounded up: one decode token each per step
    prefill_room_tokens: int  # what the budget leaves for prefill chunks per step
    tpot_holds: bool | None  # the simulated p95 TPOT meets its target (None: no p95 TPOT target)
    band_low: float  # p10 of predicted / measured median TPOT
    band_high: float  # p90
    band_basis: str
    replicas_at_band_low: int  # the real step slower than predicted (ratio p10): more replicas
    replicas_at_band_high: int
    shapes: ShapeSearch
    difference: str  # AGREE, HEADROOM, FASTER_STEP, QUEUEING or MIXED_STEPS
    napkin_utilisation: float  # the napkin's load per replica over one replica's planned capacity
    simulated_utilisation: float  # the same load spread over the simulated count
    below_miss_s: float | None  # at one replica fewer, the binding target's figure (None: the answer is one)


def percentiles(c: Check, metric: str, targets: tuple[Target, ...]) -> Percentiles:
    target = next((t for t in targets if t.metric == metric and t.percentile == 95), None)
    stats = c.stats[f"{metric}_s"]
    return Percentiles(stats["p50"], stats["p95"], target)


def band_replicas(replicas: int, ratio: float) -> int:
    """The count if the real step is `ratio` (predicted / measured) of the simulated one's speed: the load,
    and so the count, scale as 1 / ratio. A stated approximation, not a re-simulation."""
    return math.ceil(replicas / ratio)


def difference(napkin: Plan, simulated: SimulatedPlan) -> str:
    """Which reason explains the gap between the two counts: for fewer, whether each simulated replica
    carries more than the napkin's planned capacity (its load over the count, above 1); for more, the
    target that one replica fewer misses by most."""
    n = simulated.replicas
    if n == napkin.replicas:
        return AGREE
    if n is not None and n < napkin.replicas:
        return FASTER_STEP if napkin.replica_seconds_per_s / n > 1 else HEADROOM
    binding = simulated.binding
    return QUEUEING if binding is not None and binding.metric == "ttft" else MIXED_STEPS


def beside_napkin(napkin: Plan, simulated: SimulatedPlan, shapes: ShapeSearch) -> ServingAnswer | None:
    """The serving model's figures for a design, or None when the simulation found no count (the simulated
    plan's infeasible_because says why)."""
    c = simulated.chosen
    live = simulated.live_concurrency_per_replica
    if c is None or live is None or simulated.replicas is None:
        return None
    w = napkin.workload
    engine = profile(w.engine, w.gpu, w.model, w.weights)
    budget = engine.token_budget
    decodes = math.ceil(live)
    tpot = percentiles(c, "tpot", w.percentile_targets)
    low, high, basis = band_for(w.gpu)
    binding = simulated.binding
    below = simulated.below
    return ServingAnswer(
        napkin=napkin, simulated=simulated, ttft=percentiles(c, "ttft", w.percentile_targets), tpot=tpot,
        requests_per_s_per_replica=c.rate_per_s, mean_e2e_s=c.stats["e2e_s"]["mean"], live_per_replica=live,
        kv_live_bytes=live * napkin.kv_bytes_per_seq_group, kv_napkin_bytes=napkin.held_kv_bytes,
        engine_name=engine.name, token_budget=budget, live_decodes=decodes,
        prefill_room_tokens=max(budget - decodes, 0),
        tpot_holds=None if tpot.target is None else tpot.p95_s <= tpot.target.seconds,
        band_low=low, band_high=high, band_basis=basis,
        replicas_at_band_low=band_replicas(simulated.replicas, low),
        replicas_at_band_high=band_replicas(simulated.replicas, high),
        shapes=shapes, difference=difference(napkin, simulated),
        napkin_utilisation=napkin.replica_seconds_per_s / napkin.replicas,
        simulated_utilisation=napkin.replica_seconds_per_s / simulated.replicas,
        below_miss_s=None if below is None or binding is None else value(below.stats, binding),
    )
