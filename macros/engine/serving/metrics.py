"""What a run measured, from its per-request records: percentiles, throughput, Little's law, goodput.

Percentiles are nearest-rank: the p-th of n sorted values is the ceil(p / 100 * n)-th (no interpolation,
so every reported value is one a request had). Latency statistics are over the requests after a warm-up:
the first `warmup` requests in the order they were sent are left out (a closed loop's first wave arrives
all at once, which a steady state never sees), and the summary says how many. Throughput is what a
benchmark client reports: every request's tokens over the whole run, from the first request sent to the
last one finished. (Counting only the requests after the warm-up over their own span would leave out the
warm-up's tokens while they are still being generated inside that span: a closed loop deeper than the
engine's batch would then report a fraction of its true rate.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .sim import SimResult
from .types import RequestRecord

PERCENTILES = (50, 90, 95, 99)


def nearest_rank(sorted_values: list[float], p: float) -> float:
    """The p-th percentile (0 < p <= 100) of values sorted ascending, by nearest rank."""
    if not sorted_values:
        return math.nan
    return sorted_values[max(0, math.ceil(p / 100 * len(sorted_values)) - 1)]


def weighted_ranks(pairs: list[tuple[float, float]], ps: tuple[float, ...]) -> list[float]:
    """The ps-th percentiles (ascending) of values each carrying a weight (how many observations it stands for):
    the first value, in ascending order, at which the running weight reaches p % of the total. One sort and one
    pass for every p (a run's gaps between tokens are tens of thousands of pairs)."""
    ordered = sorted(pairs)
    total = sum(w for _, w in ordered)
    out, seen, k = [], 0.0, -1
    for p in ps:
        threshold = p / 100 * total
        while (k < 0 or seen < threshold) and k + 1 < len(ordered):
            k += 1
            seen += ordered[k][1]
        out.append(ordered[k][0] if k >= 0 and seen >= threshold else ordered[-1][0] if ordered else math.nan)
    return out


def stats(values: list[float]) -> dict[str, float]:
    """mean, p50, p90, p95, p99."""
    ordered = sorted(values)
    mean = sum(ordered) / len(ordered) if ordered else math.nan
    return {"mean": mean, **{f"p{p}": nearest_rank(ordered, p) for p in PERCENTILES}}


@dataclass(frozen=True)
class Summary:
    requests: int  # reported, after the warm-up
    warmup_requests: int
    ttft_s: dict[str, float]
    tpot_s: dict[str, float]
    itl_s: dict[str, float]
    e2e_s: dict[str, float]
    queue_s: dict[str, float]
    requests_per_s: float
    output_tokens_per_s: float
    input_tokens_per_s: float
    mean_batch: float  # sequences per step, averaged over the replica's busy time
    kv_occupancy: float  # share of the KV pool in use, averaged over busy time
    preemptions: int
    littles_law_l: float  # time-averaged requests in the system, from the event loop
    littles_law_lambda_w: float  # requests/s x mean E2E, from the records: equal to the above


def reported(result: SimResult, warmup: int) -> list[RequestRecord]:
    return [r for r in result.records if r.id >= warmup]


def summarize(result: SimResult, warmup: int = 0) -> Summary:
    """The run's latency statistics over the requests sent after the first `warmup`; its throughput over
    every request, from the first sent to the last finished."""
    rows = reported(result, warmup)
    all_rows = result.records
    start = min(r.arrival_s for r in all_rows)
    end = max(r.arrival_s + r.e2e_s for r in all_rows)
    span = end - start
    itl = result.itl
    itl_stats = {"mean": sum(g * w for g, w in itl) / sum(w for _, w in itl) if itl else math.nan,
                 **{f"p{p}": x for p, x in zip(PERCENTILES, weighted_ranks(itl, PERCENTILES))}}
    return Summary(
        requests=len(rows), warmup_requests=len(all_rows) - len(rows),
        ttft_s=stats([r.ttft_s for r in rows]), tpot_s=stats([r.tpot_s for r in rows if r.output_tokens > 1]),
        itl_s=itl_stats, e2e_s=stats([r.e2e_s for r in rows]), queue_s=stats([r.queue_s for r in rows]),
        requests_per_s=len(all_rows) / span, output_tokens_per_s=sum(r.output_tokens for r in all_rows) / span,
        input_tokens_per_s=sum(r.prompt_tokens for r in all_rows) / span,
        mean_batch=result.batch_area / result.busy_s if result.busy_s else 0.0,
        kv_occupancy=result.kv_area / result.busy_s if result.busy_s else 0.0, preemptions=result.preemptions,
        littles_law_l=result.in_system_area / result.duration_s,
        littles_law_lambda_w=len(all_rows) / result.duration_s * sum(r.e2e_s for r in all_rows) / len(all_rows),
    )


def goodput(rows: list[RequestRecord], ttft_s: float | None = None, tpot_s: float | None = None,
            e2e_s: float | None = None) -> float:
    """Share of requests meeting every SLO given (a request with one output token has TPOT 0)."""
    def good(r: RequestRecord) -> bool:
        return ((ttft_s is None or r.ttft_s <= ttft_s) and (tpot_s is None or r.tpot_s <= tpot_s)
                and (e2e_s is None or r.e2e_s <= e2e_s))
    return sum(good(r) for r in rows) / len(rows) if rows else math.nan
