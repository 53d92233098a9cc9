"""The queueing problems answerable from chapter 6.5 (docs/guide/autoscaling.md): every queueing problem the
practice pages publish states what the chapter's napkin needs (the service time, the API server's overhead), its
worked answer carries the napkin, and, while rho = lambda S is within the range the chapter states, the napkin's
p95 TTFT is within the tolerance the chapter states of the simulated p95 (the problem's answer)."""

from __future__ import annotations

import math

import pytest

from macros.engine.problems import latency, problems

RANGE, TOLERANCE = latency.NAPKIN_MAX_UTILISATION, latency.NAPKIN_TOLERANCE


def queueing() -> list:
    return [p for p in problems() if p.kind == "ttft" and p.variant == "queue"]


def by_hand(rate: float, service: float, overhead: float, md1: bool = True) -> tuple[float, float]:
    """The chapter's napkin, written out: rho = lambda S; M/D/1's W_q = rho S / (2 (1 - rho)) (M/M/1's without
    the 2); the p95 wait (W_q / rho) ln(20 rho), 0 when rho <= 0.05; TTFT = overhead + wait + S."""
    rho = rate * service
    wait = rho * service / ((2 if md1 else 1) * (1 - rho))
    wait_p95 = wait / rho * math.log(20 * rho) if rho > 0.05 else 0.0
    return rho, overhead + wait_p95 + service


def test_every_published_queueing_problem_is_within_the_chapters_tolerance():
    published = queueing()
    checked = [p for p in published if p.inputs["rate"] * p.inputs["service"] <= RANGE]  # the chapter's rule
    assert len(published) >= 6 and len(checked) >= len(published) // 2  # the rule leaves most of them in
    for p in published:
        i, s = p.inputs, p.solution
        rho, napkin_p95 = by_hand(i["rate"], i["service"], i["overhead"])
        assert s["utilisation"] == pytest.approx(rho) and s["napkin_p95"] == pytest.approx(napkin_p95), p.id
        assert s["in_range"] == (rho <= RANGE), p.id
        if p in checked:
            assert abs(napkin_p95 / p.answer - 1) <= TOLERANCE, (p.id, napkin_p95, p.answer)


def test_the_check_can_fail():
    # The same check with M/M/1's wait (twice M/D/1's) in place of M/D/1's misses at least one problem by more
    # than the tolerance: the test above tells the chapter's napkin from a wrong one.
    missed = []
    for p in queueing():
        i = p.inputs
        rho, wrong = by_hand(i["rate"], i["service"], i["overhead"], md1=False)
        if rho <= RANGE and abs(wrong / p.answer - 1) > TOLERANCE:
            missed.append(p.id)
    assert missed


def test_the_stated_service_time_is_the_serving_models_prefill():
    # Llama 3.1 8B on one H100 under vLLM, a 1,000-token prompt alone: one prefill step (below the 8,192-token
    # budget), its time as the step model prices it; the overhead is the fitted per-request time plus the
    # per-prompt-token time x 1,000.
    from macros.engine.fleet.disaggregated import prefill_step_s
    from macros.engine.serving.run import RunRequest, prepare
    from macros.engine.serving.step import costs

    p = prepare(RunRequest("llama-3.1-8b", "h100", 1, 1000, 1, rate_per_s=1.0))
    service, overhead = latency.prefill_service_s("llama-3.1-8b", "h100", 1, "vllm", 1000)
    assert service == prefill_step_s(costs(p.replica, p.params), 1000, 1000, 0)
    assert overhead == pytest.approx(p.params.request_overhead_s + p.params.api_request_s
                                     + 1000 * p.params.prompt_token_overhead_s)
