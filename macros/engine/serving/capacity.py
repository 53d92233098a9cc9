"""One replica's capacity at a latency SLO: the largest open-loop arrival rate whose simulated p95 (or
another percentile) TTFT and TPOT both meet their targets (and the gap between tokens, where one is set), found
by bisection on the rate with a run at a fixed seed, lengthened while it meets and the replica is still filling
(steady_state.py).

Every run draws the same requests for a given rate (the seed is fixed; only the gaps scale with the
rate), so the verdict is deterministic. It is not exactly monotonic in the rate (a short run's p95 is a
sample), so the search brackets the first failure it meets: it doubles (or halves) from a starting
guess until the verdict flips, then bisects the bracket until it is narrower than the tolerance.
The answer is the bracket's lower end, a rate that was simulated and met both targets.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..lookup import InputError
from .cache import cached_run
from .run import RunRequest
from .steady_state import steady_requests

START_RATE_PER_S = 1.0  # the first guess; the bracket search moves from here by factors of two
MAX_DOUBLINGS = 40  # 2^40 requests/s: past this no replica is slow enough to need the search
MAX_HALVINGS = 10  # 1/1024 requests/s, one request every 17 minutes: a replica missing the targets there
                   # misses them unloaded


@dataclass(frozen=True)
class CapacityQuery:
    """A replica shape, a request mix and the targets its percentile must meet."""

    model: str
    gpu: str
    gpus: int
    prompt_tokens: int
    output_tokens: int
    ttft_target_s: float
    tpot_target_s: float
    percentile: int = 95  # one of metrics.PERCENTILES
    itl_target_s: float | None = None  # the gap between tokens, at the same percentile (None: not bounded)
    weights: str | None = None
    kv: str | None = None
    layout: str = "tp"
    engine: str = "vllm"
    prefix_hit_rate: float = 0.0
    requests: int = 400
    relative_tolerance: float = 0.02
    seed: int = 0
    launch: tuple = ()  # (run.RunRequest's launch field, value) pairs: the engine as a benchmark launched it


@dataclass(frozen=True)
class SloCapacity:
    """The search's answer: the rate, and what the run at that rate measured."""

    rate_per_s: float  # requests/s one replica takes with both percentiles within target
    failed_rate_per_s: float  # the bracket's upper end: the lowest rate seen to miss a target
    ttft_s: float  # the percentile at rate_per_s
    tpot_s: float
    e2e_mean_s: float  # mean time in the system, arrival to last token
    kv_occupancy: float  # share of the KV pool in use, averaged over busy time
    runs: int  # simulations the search ran


def search_request(q: CapacityQuery, rate: float, requests: int) -> RunRequest:
    """The simulation the search runs at `rate`."""
    return RunRequest(model=q.model, gpu=q.gpu, gpus=q.gpus, input_tokens=q.prompt_tokens,
                      output_tokens=q.output_tokens, engine=q.engine, layout=q.layout, weights=q.weights, kv=q.kv,
                      rate_per_s=rate, requests=requests, seed=q.seed, prefix_hit_rate=q.prefix_hit_rate,
                      **dict(q.launch))


Runner = Callable[[RunRequest], dict[str, Any]]  # a run's statistics: the cached run, or a run with other parameters


def _meets(q: CapacityQuery, stats: dict[str, Any]) -> bool:
    key = f"p{q.percentile}"
    ttft, tpot, itl = stats["ttft_s"][key], stats["tpot_s"][key], stats["itl_s"][key]
    return (ttft is not None and tpot is not None and ttft <= q.ttft_target_s and tpot <= q.tpot_target_s
            and (q.itl_target_s is None or (itl is not None and itl <= q.itl_target_s)))


def _measure(q: CapacityQuery, rate: float, runner: Runner = cached_run) -> dict[str, Any]:
    """The run at `rate`, run again longer while it meets the targets and is still filling."""
    stats = runner(search_request(q, rate, q.requests))
    while _meets(q, stats) and (longer := steady_requests(stats, rate)):
        stats = runner(search_request(q, rate, longer))
    return stats


@functools.cache  # a page model and a drawing ask for the same replica in one build
def capacity_at_slo(q: CapacityQuery) -> SloCapacity:
    """The largest rate (within q.relative_tolerance) at which one replica meets both targets; InputError
    when it misses them even nearly unloaded (the replica shape cannot meet the SLO at all)."""
    return search_capacity(q, cached_run)


def search_capacity(q: CapacityQuery, runner: Runner) -> SloCapacity:
    """capacity_at_slo with each run made by `runner` (the calibration's runs use the parameters it is fitting)."""
    runs = 0
    seen: dict[float, dict[str, Any]] = {}

    def ok(rate: float) -> bool:
        nonlocal runs
        runs += 1
        seen[rate] = _measure(q, rate, runner)
        return _meets(q, seen[rate])

    rate = START_RATE_PER_S
    if ok(rate):
        for _ in range(MAX_DOUBLINGS):
            if not ok(rate * 2):
                break
            rate *= 2
        low, high = rate, rate * 2
    else:
        for _ in range(MAX_HALVINGS):
            rate /= 2
            if ok(rate):
                break
        else:
            stats, key = seen[rate], f"p{q.percentile}"
            gap = "" if q.itl_target_s is None else f" and gap between tokens of {q.itl_target_s:g} s"
            measured = "" if q.itl_target_s is None else f", gap {stats['itl_s'][key]:.3g} s"
            raise InputError(f"{q.gpus} x {q.gpu} cannot meet a {key} TTFT of {q.ttft_target_s:g} s and TPOT of "
                             f"{q.tpot_target_s:g} s{gap} even unloaded, at {rate:.3g} requests/s ({key} TTFT "
                             f"{stats['ttft_s'][key]:.3g} s, TPOT {stats['tpot_s'][key]:.3g} s{measured})")
        low, high = rate, rate * 2
    while high / low - 1 > q.relative_tolerance:
        mid = (low * high) ** 0.5  # geometric: the bracket spans a factor, not an amount
        if ok(mid):
            low = mid
        else:
            high = mid
    at = seen[low]
    key = f"p{q.percentile}"
    return SloCapacity(rate_per_s=low, failed_rate_per_s=high, ttft_s=at["ttft_s"][key], tpot_s=at["tpot_s"][key],
                       e2e_mean_s=at["e2e_s"]["mean"], kv_occupancy=at["kv_occupancy"], runs=runs)
