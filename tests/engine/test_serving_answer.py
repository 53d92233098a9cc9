"""The serving model's answer beside the napkin's (macros/engine/fleet/serving_answer.py): its figures on a
fabricated simulated plan, derived by hand, and Little's law on one design against a fresh run."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.fleet.planner import Plan, plan
from macros.engine.fleet.planner_simulated import Check, SimulatedPlan, run_request, simulated_plan
from macros.engine.fleet.serving_answer import (
    AGREE,
    FASTER_STEP,
    HEADROOM,
    MIXED_STEPS,
    QUEUEING,
    band_replicas,
    beside_napkin,
    difference,
)
from macros.engine.fleet.shapes import ShapeSearch
from macros.engine.fleet.workload_file import Target, Workload, design
from macros.engine.serving.run import run

TTFT_P95 = Target("ttft", 95, 0.15)
TPOT_P95 = Target("tpot", 95, 0.02)
# Llama-3.1-8B on one H100, BF16 KV, 500 + 50 tokens: the napkin plan alone (no simulation) is cheap.
SMALL = Workload(name="small", model="llama-3.1-8b", gpu="h100", gpus_per_replica=1, peak_requests_per_s=40.0,
                 prompt_tokens=500, output_tokens=50, ttft_s=0.5, tpot_s=0.05, ttft_p95_s=0.15, tpot_p95_s=0.02,
                 kv="bf16")
NO_SHAPES = ShapeSearch((), (), (), None, None)


def _stats(ttft: tuple[float, float], tpot: tuple[float, float], e2e_mean: float) -> dict:
    return {"ttft_s": {"p50": ttft[0], "p95": ttft[1]}, "tpot_s": {"p50": tpot[0], "p95": tpot[1]},
            "e2e_s": {"mean": e2e_mean}}


def _simulated(napkin: Plan, n: int, below_stats: dict | None = None) -> SimulatedPlan:
    """n replicas at the small workload's peak of 40 requests/s: each takes 40 / n; the chosen run's figures
    are made up (TTFT p50 50 ms, p95 120 ms; TPOT p50 15 ms, p95 18 ms; mean E2E 2.5 s)."""
    targets = (TTFT_P95, TPOT_P95)
    chosen = Check(n, 40.0 / n, _stats((0.05, 0.12), (0.015, 0.018), 2.5), targets)
    below = None if below_stats is None else Check(n - 1, 40.0 / (n - 1), below_stats, targets)
    return SimulatedPlan(napkin.workload, napkin.replicas, 1, chosen, below)


def test_the_figures_on_a_fabricated_run_match_a_derivation_by_hand():
    napkin = plan(SMALL)
    a = beside_napkin(napkin, _simulated(napkin, 4), NO_SHAPES)
    assert a is not None
    # Little's law: 40 / 4 = 10 requests/s per replica x 2.5 s mean E2E = 25 live sequences.
    assert a.requests_per_s_per_replica == pytest.approx(10.0)
    assert a.live_per_replica == pytest.approx(25.0)
    # KV per token 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B; 550 tokens: 72,089,600 B a sequence,
    # one copy on one GPU. 25 live: 1,802,240,000 B; the napkin's SLO batch b*: b* x 72,089,600 B.
    assert a.kv_live_bytes == pytest.approx(25 * 72_089_600)
    assert a.kv_napkin_bytes == pytest.approx(napkin.slo_batch * 72_089_600)
    # vLLM's token budget is 8,192 (engines.toml, its H100 default); 25 decodes leave 8,167 for prefill.
    assert (a.token_budget, a.live_decodes, a.prefill_room_tokens) == (8192, 25, 8167)
    # The p95 TPOT, 18 ms, is inside the 20 ms target.
    assert a.tpot_holds is True
    assert (a.ttft.p50_s, a.ttft.p95_s, a.tpot.p50_s, a.tpot.p95_s) == (0.05, 0.12, 0.015, 0.018)
    assert a.ttft.target == TTFT_P95 and a.tpot.target == TPOT_P95


def test_live_sequences_round_up_to_whole_decodes_and_a_full_budget_leaves_no_room():
    napkin = plan(SMALL)
    a = beside_napkin(napkin, _simulated(napkin, 3), NO_SHAPES)
    # 40 / 3 requests/s x 2.5 s = 33.3 live: 34 decode tokens a step, 8,192 - 34 = 8,158 left.
    assert a.live_decodes == 34 and a.prefill_room_tokens == 8158


def test_the_band_scales_the_count_by_the_inverse_of_the_ratio_rounded_up():
    # predicted / measured 0.8: the real step is 1.25 x slower, 10 replicas become 12.5, so 13;
    # 1.25: 8 exactly; 1.0: unchanged.
    assert (band_replicas(10, 0.8), band_replicas(10, 1.25), band_replicas(10, 1.0)) == (13, 8, 10)


@pytest.mark.parametrize(("n", "below_ttft", "below_tpot", "expected"), [
    (5, None, None, AGREE),  # the napkin's own count
    (4, None, None, HEADROOM),  # fewer: the napkin's load of 4 replica-seconds a second over 4 is 1, not past it
    (3, None, None, FASTER_STEP),  # fewer: 4 / 3 = 1.33 of a replica's planned capacity each
    (7, 0.30, 0.019, QUEUEING),  # more, and one fewer misses the TTFT target by most
    (7, 0.10, 0.040, MIXED_STEPS),  # more, and one fewer misses the TPOT target
])
def test_the_reason_follows_the_counts_and_the_binding_target(n, below_ttft, below_tpot, expected):
    napkin = plan(SMALL)
    napkin5 = dataclasses.replace(napkin, replicas=5, replica_seconds_per_s=4.0)
    below = None if below_ttft is None else _stats((0.05, below_ttft), (0.015, below_tpot), 3.0)
    s = _simulated(napkin5, n, below)
    assert difference(napkin5, s) == expected
    a = beside_napkin(napkin5, s, NO_SHAPES)
    assert a.difference == expected
    # the load over each count: 4 / 5 = 0.8 on the napkin's, 4 / n on the simulated one
    assert (a.napkin_utilisation, a.simulated_utilisation) == pytest.approx((0.8, 4.0 / n))
    if below is not None:  # the figure the sentence quotes is one fewer's on the binding target
        assert a.below_miss_s == (below_ttft if expected == QUEUEING else below_tpot)


def test_no_simulated_count_is_no_answer():
    napkin = plan(SMALL)
    s = SimulatedPlan(napkin.workload, napkin.replicas, 1, None, None, "one-request-at-a-time")
    assert beside_napkin(napkin, s, NO_SHAPES) is None


def test_consumer_chats_live_concurrency_is_littles_law_on_a_fresh_run():
    # The answer's live sequences against an uncached run of the chosen count's request: rate per replica =
    # peak / replicas, times that run's mean E2E, within 1 %.
    w, _ = design("consumer-chat")
    napkin = plan(w)
    s = simulated_plan(napkin)
    a = beside_napkin(napkin, s, NO_SHAPES)
    rate = w.peak_requests_per_s / s.replicas
    fresh = run(run_request(w, napkin.gpus_per_replica, rate))
    assert a.live_per_replica == pytest.approx(rate * fresh["e2e_s"]["mean"], rel=0.01)
    # and the step budget: vLLM's 8,192 less one token for each live sequence, rounded up.
    assert a.prefill_room_tokens == 8192 - a.live_decodes
    assert a.live_decodes - 1 < a.live_per_replica <= a.live_decodes
