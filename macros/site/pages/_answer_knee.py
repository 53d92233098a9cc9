"""Chapter 7.2's answer against chapter 6.4's utilisation knee (docs/guide/design-chatgpt.md, "The answer
against the knee"): the napkin's planned load per replica, and the load the serving model's answer puts on one
of its replicas at the peak, over that replica's capacity and against its knee. The replica is the answer's
own (its shape, token budget, lengths, prefix hits and engine, as the planner simulates it), swept as chapter 6
sweeps the anchor's: sweep.sweep's capacity and rates, sweep.knee's knee, _sweep.knee_figures' limit. SI units."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from ...engine.fleet.answer import Answer
from ...engine.fleet.planner import Plan
from ...engine.fleet.planner_simulated import run_request
from ...engine.serving import sweep as s
from ..assumptions import phrase
from ._sweep import AnchorSweep, Knee, knee_figures

# Where the answer's rate falls against the knee: the sentence's end, chosen by position().
PAST = "the answer's replicas run past their knee, where the queue, not the step, sets the time to first token"
WITHIN = "holding the targets is what keeps the answer's replicas at or below their knee"
BEYOND = ("the answer's replicas run faster than the heaviest rate swept, where p99 TTFT was still within "
          "the knee's limit")


def answer_sweep(a: Answer) -> AnchorSweep:
    """The answer's replica swept across arrival rates as chapter 6 sweeps the anchor's (_sweep.anchor_sweep):
    the planner's run for one replica, its load left to the sweep."""
    q = run_request(a.simulated.workload, a.gpus_per_replica, None)
    capacity, points = s.sweep(q)
    return AnchorSweep(dataclasses.asdict(q), capacity, tuple(points), s.knee(points))


def position(rate_per_s: float, k: Knee) -> str:
    """Where `rate_per_s` falls against the knee k: past it (above the knee's rate, with a swept rate past the
    limit; or no knee at all: the second rate already passes the limit), at or below it, or beyond the sweep
    (above the knee's rate when that is the heaviest rate and none passes the limit)."""
    if k.knee is None:
        return PAST
    if rate_per_s <= k.knee.rate_per_s:
        return WITHIN
    return PAST if k.past_knee is not None else BEYOND


def figures(p: Plan, a: Answer, swept: AnchorSweep | None = None) -> SimpleNamespace:
    """The napkin's planned load per replica, 1 / (1 + headroom) (the replicas are the busy ones times
    1 + headroom: formulas.replicas_for_load), and the answer's replica at the peak: its arrival rate over the
    capacity chapter 6 measures (`swept`, the answer's own sweep unless a test passes one), its requests in flight
    against the capacity's client's, its knee, and its tightest TTFT target against the knee's p99 limit."""
    swept = swept or answer_sweep(a)
    k = knee_figures(swept)
    capacity, rate = swept.capacity_per_s, a.simulated_requests_per_s_per_replica
    ttft = next(t for t in a.simulated.workload.targets if t.metric == "ttft")
    return SimpleNamespace(
        napkin_load=1 / (1 + p.headroom), capacity_concurrency=s.CAPACITY_CONCURRENCY, capacity_per_s=capacity,
        rate_per_s=rate, utilisation=rate / capacity, in_flight=a.live_concurrency_per_replica,
        in_flight_words=phrase(a.live_concurrency_per_replica, s.CAPACITY_CONCURRENCY, "as many as", "more than",
                               "fewer than"),
        k=k, knee_rate_per_s=None if k.knee is None else k.knee.rate_per_s,
        knee_share=None if k.knee is None else k.knee.rate_per_s / capacity,
        ttft_target=ttft, target_words=phrase(ttft.seconds, k.limit_s, "equal to", "looser than", "tighter than"),
        position_words=position(rate, k))
