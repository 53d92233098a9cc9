"""capacity_at_slo (macros/engine/serving/capacity.py) against its contract, and the prefix-cache hits a
generated request starts with (arrivals.requests)."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.lookup import InputError
from macros.engine.serving.arrivals import Poisson, requests
from macros.engine.serving.capacity import CapacityQuery, _measure, _meets, capacity_at_slo
from macros.engine.serving.lengths import Fixed
from macros.engine.serving.prng import Rng

# The autoscaler design's replica and targets: Llama-3.1-70B in FP8 on 2 x H200, 2,500 + 350 tokens,
# 40 % of the prompt cached, p95 TTFT 1 s and TPOT 40 ms. 200 requests a run keeps the test short.
Q = CapacityQuery(model="llama-3.1-70b", gpu="h200", gpus=2, prompt_tokens=2500, output_tokens=350,
                  ttft_target_s=1.0, tpot_target_s=0.04, weights="fp8", kv="fp8", prefix_hit_rate=0.4,
                  requests=200, relative_tolerance=0.05)


def test_the_answer_meets_the_targets_and_the_bracket_above_it_does_not():
    c = capacity_at_slo(Q)
    assert _meets(Q, _measure(Q, c.rate_per_s)) and not _meets(Q, _measure(Q, c.failed_rate_per_s))
    assert 1 < c.failed_rate_per_s / c.rate_per_s <= 1 + Q.relative_tolerance
    assert c.ttft_s <= 1.0 and c.tpot_s <= 0.04


def test_a_cached_prefix_raises_the_capacity():
    # Less prefill per request: the same replica takes more requests at the same targets.
    cold = capacity_at_slo(dataclasses.replace(Q, prefix_hit_rate=0.0))
    assert capacity_at_slo(Q).rate_per_s > cold.rate_per_s


def test_a_gap_target_lowers_the_capacity_and_the_run_it_reports_is_at_steady_state():
    c = capacity_at_slo(Q)
    at = _measure(Q, c.rate_per_s)
    # A gap target just under the run's own p95 gap at that rate: the same rate no longer meets, so the capacity
    # falls; with none, it is Q's.
    tight = dataclasses.replace(Q, itl_target_s=at["itl_s"]["p95"] * 0.9)
    assert not _meets(tight, at) and capacity_at_slo(tight).rate_per_s < c.rate_per_s
    # The run that met was lengthened past Q's 200 requests until its warm-up spans two lives of a request:
    # 20 x the rate x the mean time in the system, by Little's law.
    ran = at["requests"] + at["warmup_requests"]
    assert ran > Q.requests and ran >= 20 * c.rate_per_s * at["e2e_s"]["mean"]


def test_a_target_no_load_can_meet_is_one_clear_error():
    with pytest.raises(InputError, match=r"2 x h200 cannot meet a p95 TTFT of 0\.001 s"):
        capacity_at_slo(dataclasses.replace(Q, ttft_target_s=0.001))


def test_requests_start_with_their_cached_prefix():
    # floor(100 x 0.4) = 40 cached tokens each; a full hit leaves the last token to compute (99).
    assert [q.cached_tokens for q in requests(Poisson(1.0), Fixed(100), Fixed(5), 3, Rng(0), 0.4)] == [40] * 3
    assert requests(Poisson(1.0), Fixed(100), Fixed(5), 1, Rng(0), 1.0)[0].cached_tokens == 99
    # No hit rate: the requests are the twin's (the same draws, nothing cached).
    assert requests(Poisson(1.0), Fixed(100), Fixed(5), 3, Rng(0)) == [
        dataclasses.replace(q, cached_tokens=0) for q in requests(Poisson(1.0), Fixed(100), Fixed(5), 3, Rng(0), 0.4)]
