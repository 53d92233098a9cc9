"""The batch API design's page model (macros/site/pages/design_batch_api.py) against hand derivations
from the design file's assumptions and the planner's figures. Every fleet, count and cost the page
recommends is the serving model's answer (design.model's answer and answers), so those tests derive it
from t.d.answer...; the per-step physics (packed prefill, the tenants' costs, a preemption) is the napkin's."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from conftest import ROOT

from macros.engine.lookup import get_gpu, get_model
from macros.site.pages import design
from macros.site.pages import design_batch_api as page

FILE = ROOT / "macros" / "data" / "designs" / "batch-api.toml"


@pytest.fixture(scope="module")
def t():
    return page.model()


def test_the_trough_lends_what_the_interactive_fleet_leaves_over_its_headroom(t):
    # The fleet that lends is the serving model's answer for the interactive variant, not its napkin: its count
    # is what the peak needs, so an hour's load is that count times the hour's load fraction.
    ai = t.d.answers["interactive"]
    assert t.interactive is ai and ai.replicas != t.interactive_napkin.replicas
    # a cosine day with a 1.6 peak-to-mean: the trough is 2 / 1.6 - 1 = 0.25 of the peak
    assert t.trough_load == pytest.approx(0.25)
    assert t.trough_lendable == ai.replicas - math.ceil(ai.replicas * 0.25 * 1.2)  # 20% headroom kept
    assert t.peak_lendable == max(0, ai.replicas - math.ceil(ai.replicas * 1.2))
    # the batch's day of work is the answer's nodes all day (peak-to-mean 1), and it fits in the trough
    assert t.batch_replica_hours == t.d.answer.replicas * 24
    assert t.absorbed == 1.0 and t.trough_fits.holds
    assert t.trough_used == pytest.approx(t.batch_replica_hours / t.lendable_replica_hours)
    assert 0 < t.trough_used < 1


def test_batch_costs_a_fraction_of_interactive_per_token_on_the_answers(t):
    # Both fleets at the same price: batch's answer for 10M x 500 output tokens a day, interactive's for 30M x 500;
    # the ratio is the batch answer's GPUs x 3 over the interactive answer's, whatever the price. The page prices
    # the answers: a regression to the napkin's fleets (112 and 1,152 GPUs, 29.2%) fails here.
    a, ai = t.d.answer, t.d.answers["interactive"]
    assert t.batch_ratio == pytest.approx(a.gpus * 3 / ai.gpus)
    assert t.batch_ratio != pytest.approx(112 * 3 / 1152)
    assert t.batch_per_million == pytest.approx(a.gpus * 3.80 * 24 / (10e6 * 500) * 1e6)
    assert t.interactive_per_million == pytest.approx(ai.gpus * 3.80 * 24 / (30e6 * 500) * 1e6)
    # the napkin's ratio is kept apart, for the napkin's own paragraph
    p, iv = t.plan, t.interactive_napkin
    assert (p.gpus, iv.gpus) == (112, 1152)
    assert t.napkin_batch_ratio == pytest.approx(112 * 3 / 1152)
    # the interactive fleet pays for its peak all day: 1.6x its cost per token at the peak
    assert t.interactive_daily_over_peak == pytest.approx(1.6)
    # the claim's 50% discount leaves 50% of the price
    assert (t.discount, t.price_share) == (0.5, 0.5)


def test_the_packed_bound_words_follow_the_terms():
    # compute 10 ms a prompt, a read of 40 ms: 5 prompts a step are compute-bound, 2 are not (4 prompts,
    # 4 x 1,000 tokens, is where compute takes over)
    assert page.packed_bound_words(0.01, 0.04, 5, 1000) == "and the step is compute-bound"
    assert page.packed_bound_words(0.01, 0.04, 2, 1000) == ("and the step is still bound by the weight read: compute "
                                                            "binds from about 4 prompts, 4,000 tokens, a step")


def test_the_margin_words_follow_the_cost_ratio():
    # 40% of the interactive cost is within the 50% a 50% discount leaves; 60% needs interactive prices
    # 0.6 / 0.5 - 1 = 20% above cost to break even
    # with a band spread of 1.1: 0.4 × 1.1 = 0.44 stays within 0.5, 0.6 / 1.1 = 0.545 stays past it
    assert page.margin_words(0.4, 0.5, 1.1).startswith("within the 50% of the interactive price")
    assert "keeps the interactive margin" in page.margin_words(0.4, 0.5, 1.1)
    assert "breaks even only if interactive prices sit 20% above cost" in page.margin_words(0.6, 0.5, 1.1)
    # 0.469 × 1.2 = 0.563 > 0.5, and 0.55 / 1.2 = 0.458 <= 0.5: both inside the band, so ties
    near = page.margin_words(0.469, 0.5, 1.2)
    assert near.startswith("within the 50%") and "up to 20%" in near and "a tie" in near and "keeps" not in near
    over = page.margin_words(0.55, 0.5, 1.2)
    assert over.startswith("more than the 50%") and "a tie" in over and "breaks even" not in over


def test_packed_prefill_is_the_larger_of_its_share_of_the_read_and_its_compute(t):
    # 1,400 uncached tokens, 2 x 37e9 active parameters per token, on 8 H200 in FP8, at 40% efficiency (the causal
    # attention of those tokens over a 2,000-token prompt comes on top, under a tenth more); k = budget / 1,400
    # prompts share a step's one read of 671 GB over 8 x 4.8 TB/s
    m, g = get_model("deepseek-v3"), get_gpu("h200")
    compute = 2 * m.active * 1400 / (8 * g.fp8_flops) / 0.4
    k = t.answer.token_budget / 1400
    read_share = m.params * 1.0 / (8 * g.bandwidth_bytes_per_s) / 0.4 / k
    if compute >= read_share:  # packed = max(k compute, read) / k = max(compute, read / k)
        assert compute < t.packed_prefill_s < 1.1 * compute and t.packed_bound_words.endswith("compute-bound")
    else:
        assert t.packed_prefill_s == pytest.approx(read_share, rel=1e-3)
        assert "still bound by the weight read" in t.packed_bound_words
    assert t.packed_prefill_s < t.alone_prefill_s
    # alone, the prompt waits on one read of 671 GB over 8 x 4.8 TB/s, then / 40%
    assert t.alone_prefill_s == pytest.approx(m.params * 1.0 / (8 * g.bandwidth_bytes_per_s) / 0.4, rel=0.01)
    assert t.packed.replicas < t.plan.replicas


def test_the_two_tenants_costs_and_shares(t):
    a, b, slot = t.alpha_s, t.beta_s, 2500
    light = 500 * a + 50 * b * 550 / slot
    heavy = 30_000 * a + 1000 * b * 31_000 / slot
    assert (t.light.cost_s, t.heavy.cost_s) == (pytest.approx(light), pytest.approx(heavy))
    assert t.heavy_share_by_requests == pytest.approx(heavy / (light + heavy))
    assert t.heavy_share_by_tokens == pytest.approx((heavy / 31_000) / (light / 550 + heavy / 31_000))
    assert t.heavy_share_by_requests > t.heavy_share_by_tokens > 0.5


def test_the_file_floor_the_drain_and_the_reload(t):
    p, a = t.plan, t.d.answer
    # one request on the answer's fleet (the floor is a fleet, so it is sized on the answer): its nodes over the
    # requests a second they serve, 10,000,000 / 86,400 at peak-to-mean 1
    assert t.request_s == pytest.approx(a.replicas / (10e6 / 86_400))
    assert t.floor_replicas == math.ceil(50_000 * t.request_s / 3600)
    assert t.floor_cost_per_day == pytest.approx(t.floor_replicas * 8 * 3.80 * 24)
    assert t.drain_s == pytest.approx(500 * p.planned_step_s)
    # 671 GB over 8 GPUs at 2 GB/s each: about 42 s
    assert t.reload_s == pytest.approx(671e9 / 8 / 2e9, rel=0.01)
    assert t.lost_s == pytest.approx(500 * p.planned_step_s / 2 + p.slo_batch * t.packed_prefill_s)


def test_the_revisions_are_priced_on_the_answers(t):
    d = t.d
    # data-parallel attention and the long outputs: the answers' ratios, the napkin's kept apart
    assert t.dp_gpu_ratio == pytest.approx(d.answers["dp-attention"].gpus / d.answer.gpus)
    assert t.dp_napkin_gpu_ratio == pytest.approx(d.variants["dp-attention"].gpus / d.plan.gpus)
    assert t.long_gpu_ratio == pytest.approx(d.answers["long-outputs"].gpus / d.answer.gpus)
    assert t.long_output_ratio == 8  # 4,000 output tokens against 500
    # the words name the answer's run: requests in flight (Little's law) and the target that sets its count
    live = d.answers["dp-attention"].live_concurrency_per_replica
    assert t.dp_words.startswith(f"the simulated node keeps {live:,.0f} requests in flight")
    assert t.dp_words.endswith(f"the {d.answers['dp-attention'].simulated.binding.words} sets the count")
    # the trade-off table's standalone fleet is the answer's
    assert t.answer is d.answer and t.answer_dp is d.answers["dp-attention"]


def test_a_missing_input_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    broken = re.sub(r"^file_requests = .*$", "", FILE.read_text(), flags=re.M)
    (tmp_path / "batch-api.toml").write_text(broken)
    monkeypatch.setattr(design, "DESIGNS_DIR", tmp_path)
    with pytest.raises(design.DesignError, match=r"\[design.inputs\] is missing file_requests$"):
        page.inputs()
