"""Section 3's "serving model's answer" block (macros/site/pages/design_serving.py): the sentences on
fabricated answers, each reason in turn, and the words for a simulation with no count."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.fleet import planner_simulated as ps
from macros.engine.fleet.planner import Plan, plan
from macros.engine.fleet.planner_simulated import Check, SimulatedPlan
from macros.engine.fleet.serving_answer import beside_napkin
from macros.engine.fleet.shapes import Point, Shape, ShapeResult, ShapeSearch
from macros.engine.fleet.workload_file import Target, Workload
from macros.site.pages import design
from macros.site.pages import design_serving as ds
from macros.text import fmt

TTFT_P95 = Target("ttft", 95, 0.15)
TPOT_P95 = Target("tpot", 95, 0.02)
SMALL = Workload(name="small", model="llama-3.1-8b", gpu="h100", gpus_per_replica=1, peak_requests_per_s=40.0,
                 prompt_tokens=500, output_tokens=50, ttft_s=0.5, tpot_s=0.05, ttft_p95_s=0.15, tpot_p95_s=0.02,
                 kv="bf16")
NO_SHAPES = ShapeSearch((), (), (), None, None)


def _stats(ttft_p95: float, tpot_p95: float) -> dict:
    return {"ttft_s": {"p50": 0.05, "p95": ttft_p95}, "tpot_s": {"p50": 0.015, "p95": tpot_p95},
            "e2e_s": {"mean": 2.5}}


def _napkin(replicas: int) -> Plan:
    return dataclasses.replace(plan(SMALL), replicas=replicas)


def _simulated(napkin: Plan, n: int, tpot_p95: float = 0.018, below: tuple[float, float] | None = None):
    targets = (TTFT_P95, TPOT_P95)
    chosen = Check(n, 40.0 / n, _stats(0.12, tpot_p95), targets)
    fewer = None if below is None else Check(n - 1, 40.0 / (n - 1), _stats(*below), targets)
    return SimulatedPlan(napkin.workload, napkin.replicas, 1, chosen, fewer)


def test_the_same_count_says_they_agree():
    napkin = _napkin(4)
    assert ds.why(beside_napkin(napkin, _simulated(napkin, 4), NO_SHAPES)) == "The two answers agree on 4 replicas."


def test_fewer_replicas_past_planned_capacity_name_the_fitted_step_and_both_rates():
    # The napkin's load of 3 replica-seconds a second over 2 replicas: 150 % each. 40 requests/s over 2
    # replicas: 20 each; over the napkin's 4: 10 each.
    napkin = dataclasses.replace(_napkin(4), replica_seconds_per_s=3.0)
    words = ds.why(beside_napkin(napkin, _simulated(napkin, 2), NO_SHAPES))
    assert words.startswith("The serving model needs fewer replicas (2 against 4) because the fitted step outruns")
    assert "each carries 150% of the napkin's planned capacity (20 requests/s against 10)" in words


def test_fewer_replicas_within_planned_capacity_name_the_headroom():
    # 3 replica-seconds a second over 3 replicas: 100 %, so the fleet only gave back headroom.
    napkin = dataclasses.replace(_napkin(4), replica_seconds_per_s=3.0, headroom=0.2)
    words = ds.why(beside_napkin(napkin, _simulated(napkin, 3), NO_SHAPES))
    assert "because the percentile targets need less than the napkin's 20% headroom" in words
    assert "each carries 100% of the napkin's planned capacity" in words


def test_a_miss_by_a_hair_keeps_four_figures():
    # one fewer misses the 20 ms p95 TPOT by 0.04 ms: three figures would print the target itself, "20 ms"
    napkin = _napkin(4)
    words = ds.why(beside_napkin(napkin, _simulated(napkin, 7, below=(0.10, 0.02004)), NO_SHAPES))
    assert "p95 TPOT to 20.04 ms against the 20 ms p95 TPOT target" in words


def test_more_replicas_set_by_ttft_blame_the_queue_with_one_fewers_figure():
    # One fewer (6) misses the 150 ms p95 TTFT at 300 ms and meets TPOT: the queue for prefill.
    napkin = _napkin(4)
    words = ds.why(beside_napkin(napkin, _simulated(napkin, 7, below=(0.30, 0.019)), NO_SHAPES))
    assert "more replicas (7 against 4) because of queueing" in words
    assert "at 6 replicas the wait for prefill pushes the p95 TTFT to 300 ms against the 150 ms p95 TTFT" in words


def test_more_replicas_set_by_tpot_blame_prefill_inside_the_steps():
    napkin = _napkin(4)
    words = ds.why(beside_napkin(napkin, _simulated(napkin, 7, below=(0.10, 0.04)), NO_SHAPES))
    assert "because prefill runs inside the decode steps" in words
    assert "p95 TPOT to 40 ms against the 20 ms p95 TPOT target" in words


@pytest.mark.parametrize(("tpot_p95", "verdict"), [(0.018, "TPOT holds"), (0.025, "TPOT does not hold")])
def test_the_budget_sentence_gives_the_room_and_whether_tpot_holds(tpot_p95, verdict):
    # 40 / 4 = 10 requests/s x 2.5 s = 25 live decodes; vLLM's 8,192-token budget leaves 8,167.
    napkin = _napkin(4)
    words = ds.budget_words(beside_napkin(napkin, _simulated(napkin, 4, tpot_p95), NO_SHAPES))
    assert "at most 8,192 tokens; the 25 live sequences" in words and "leaves 8,167 for prefill chunks" in words
    assert f"{verdict} with chunked prefill" in words


def test_the_shape_sentence_names_the_choice_and_the_runner_up():
    def result(g: int, per_gpu: float) -> ShapeResult:
        shape = Shape(g, "tp", 1)
        return ShapeResult(shape, Point(shape, 8, 0.02, 0.1, 50.0, per_gpu, True), None, None)

    s = ShapeSearch((), (), (), result(2, 1000.0), result(4, 900.0))
    words = ds.shape_words(s, _napkin(4))
    assert "picks TP2 at 1,000 tokens/s per GPU, runner-up TP4 at 900 tokens/s per GPU;" in words
    assert words.endswith("the napkin's replica is TP1.")
    # 995 is within 1 % of 1,000 the other way: a tie the narrower replica wins, and the sentence says so
    tied = ds.shape_words(ShapeSearch((), (), (), result(2, 995.0), result(4, 1000.0)), _napkin(4))
    assert "runner-up TP4 at 1,000 tokens/s per GPU (within 1%, so the narrower replica wins)" in tied
    assert "finds no shape" in ds.shape_words(NO_SHAPES, _napkin(4))


@pytest.mark.parametrize("reason", [ps.NO_SHAPE, ps.ONE_AT_A_TIME, ps.LIMIT, ps.REFUSED])
def test_no_count_is_said_in_words(reason):
    napkin = _napkin(4)
    s = SimulatedPlan(napkin.workload, 4, 1, None, None, reason, detail="no room for one prompt")
    out = ds.block(napkin, s, NO_SHAPES)
    assert out.startswith("The serving model finds no fleet for this design at peak: ")
    assert "|" not in out  # no table of figures it does not have


def test_consumer_chats_block_quotes_the_engines_figures():
    # The page's block against the simulated plan it comes from: the two counts in one row, and the live
    # sequences as the per-replica rate (peak / simulated replicas) x the chosen run's mean E2E.
    d = design.model("consumer-chat")
    s, p = d.simulated(), d.plan
    out = d.serving_answer()
    assert f"| Replicas at peak | {fmt.count(p.replicas)} | {fmt.count(s.replicas)} |" in out
    live = p.peak_requests_per_s / s.replicas * s.chosen.stats["e2e_s"]["mean"]
    assert f"Little's law gives {fmt.num(live)} live sequences per replica, not the napkin's {p.slo_batch}" in out
    assert out.count("\n- ") == 5  # the five sentences, one of them the reason
