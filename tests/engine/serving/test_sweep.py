"""The Load explorer's sweep (serving/sweep.py): the knee on points made by hand, and the sweep against
queueing's plain facts (below capacity a replica serves what arrives; past it, it cannot)."""

from __future__ import annotations

import pytest

from macros.engine.serving.run import RunRequest
from macros.engine.serving.sweep import KNEE_FACTOR, SWEEP_FRACTIONS, LoadPoint, knee, sweep


def at(rate: float, ttft_p99_s: float) -> LoadPoint:
    return LoadPoint(rate_per_s=rate, requests_per_s=rate, ttft_p50_s=0.0, ttft_p99_s=ttft_p99_s, tpot_p50_s=0.0,
                     tpot_p99_s=0.0, output_tokens_per_s_per_gpu=0.0, utilisation=0.0, mean_batch=0.0)


def test_the_knee_is_the_last_rate_before_p99_ttft_first_doubles():
    assert KNEE_FACTOR == 2.0
    # Lightest p99 0.1 s, so the limit is 0.2 s: 0.12 and 0.19 are inside, 0.25 is the first past it. The
    # knee is the rate with 0.19 (3), even though 0.18 at rate 5 is back inside: past the first break, no.
    points = [at(1, 0.1), at(2, 0.12), at(3, 0.19), at(4, 0.25), at(5, 0.18)]
    assert knee(points).rate_per_s == 3
    # Exactly twice is still inside (<=).
    assert knee([at(1, 0.1), at(2, 0.2), at(3, 0.3)]).rate_per_s == 2
    # The second rate already past the limit: no knee; none past it: the heaviest.
    assert knee([at(1, 0.1), at(2, 0.21)]) is None
    assert knee([at(1, 0.1), at(2, 0.11), at(3, 0.12)]).rate_per_s == 3


def test_a_replica_serves_what_arrives_below_capacity_and_not_past_it():
    capacity, points = sweep(RunRequest(model="llama-3.1-8b", gpu="h100", gpus=1, input_tokens=500, output_tokens=100,
                                        concurrency=1))
    assert [p.rate_per_s for p in points] == pytest.approx([f * capacity for f in SWEEP_FRACTIONS])
    # At a tenth of the capacity the served rate is the offered one (200 Poisson arrivals: within 20 %).
    assert points[0].requests_per_s == pytest.approx(points[0].rate_per_s, rel=0.2)
    assert points[0].utilisation == pytest.approx(0.1, rel=0.2)
    # At 1.25x the capacity the replica falls behind: it serves less than arrives, and the queue shows in
    # the time to first token, which grows from the lightest rate's.
    heaviest = points[-1]
    assert heaviest.requests_per_s < heaviest.rate_per_s
    assert heaviest.ttft_p50_s > points[0].ttft_p50_s
