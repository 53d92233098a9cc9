"""One replica across arrival rates (the Load explorer page): its capacity, then an open-loop Poisson stream at
fractions of it, each rate's latency percentiles, throughput and busy share, and the knee, where queueing
takes over from the step time.

- Capacity: what a benchmark client keeping CAPACITY_CONCURRENCY requests in flight gets out of the replica
  (a closed loop of CAPACITY_REQUESTS requests, its completions per second after the first wave). A busier
  client can get more from a replica with room for a larger batch; this is the scale of the sweep, not a
  promise.
- The sweep: a Poisson stream of SWEEP_REQUESTS requests at each of SWEEP_FRACTIONS of the capacity, the
  same seed at every rate, so the rates differ only in their gaps.
- The knee: the last swept rate before p99 TTFT first passes KNEE_FACTOR times the lightest rate's; past it
  the queue, not the step, sets the time to first token. None when the second rate already passes it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cache import cached_run
from .run import RunRequest

CAPACITY_CONCURRENCY = 64
CAPACITY_REQUESTS = 192  # three waves of the closed loop: the first is the warm-up
SWEEP_FRACTIONS = (0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25)
SWEEP_REQUESTS = 200
KNEE_FACTOR = 2.0


@dataclass(frozen=True)
class LoadPoint:
    rate_per_s: float  # offered
    requests_per_s: float  # served
    ttft_p50_s: float
    ttft_p99_s: float
    tpot_p50_s: float
    tpot_p99_s: float
    output_tokens_per_s_per_gpu: float
    utilisation: float  # rho: requests served per second over the capacity
    mean_batch: float


def capacity_per_s(q: RunRequest) -> float:
    """Requests per second the replica serves with CAPACITY_CONCURRENCY requests in flight."""
    closed = replace(q, concurrency=CAPACITY_CONCURRENCY, rate_per_s=None, burstiness=None, trace=None,
                     requests=CAPACITY_REQUESTS)
    return cached_run(closed)["requests_per_s"]


def point(q: RunRequest, rate_per_s: float, capacity: float) -> LoadPoint:
    """One rate of the sweep: a Poisson stream of SWEEP_REQUESTS requests (q's lengths, engine and seed).
    Utilisation is queueing theory's rho, served over capacity: the share of time a replica is in a step
    says little under continuous batching, where one decoding sequence keeps it stepping."""
    r = cached_run(replace(q, concurrency=None, rate_per_s=rate_per_s, burstiness=None, trace=None,
                           requests=SWEEP_REQUESTS))
    return LoadPoint(rate_per_s=rate_per_s, requests_per_s=r["requests_per_s"], ttft_p50_s=r["ttft_s"]["p50"],
                     ttft_p99_s=r["ttft_s"]["p99"], tpot_p50_s=r["tpot_s"]["p50"], tpot_p99_s=r["tpot_s"]["p99"],
                     output_tokens_per_s_per_gpu=r["output_tokens_per_s_per_gpu"],
                     utilisation=r["requests_per_s"] / capacity, mean_batch=r["mean_batch"])


def sweep_rates(capacity: float) -> list[float]:
    return [fraction * capacity for fraction in SWEEP_FRACTIONS]


def sweep(q: RunRequest) -> tuple[float, list[LoadPoint]]:
    """The capacity, and every rate of the sweep, lightest first."""
    capacity = capacity_per_s(q)
    return capacity, [point(q, rate, capacity) for rate in sweep_rates(capacity)]


def knee(points: list[LoadPoint]) -> LoadPoint | None:
    """The last rate before the first whose p99 TTFT passes KNEE_FACTOR times the lightest rate's (points
    lightest first); the heaviest when none passes it, None when the second already does."""
    limit = KNEE_FACTOR * points[0].ttft_p99_s
    last = None
    for p in points[1:]:
        if not p.ttft_p99_s <= limit:
            break
        last = p
    return last
