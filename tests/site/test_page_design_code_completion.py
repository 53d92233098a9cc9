"""The code-completion design's page model (macros/site/pages/design_code_completion.py) against hand
derivations from its inputs: 60,000 developers x 0.2 keystrokes/s = 12,000 keystrokes/s; a 75 ms
debounce over 250 ms mean gaps sends exp(-0.3) = 74.08% of them, 8,889.8 requests/s; the 250 ms budget
less 50 ms of network and 80 ms of TTFT leaves 120 ms for the mean completion's 15 later tokens, 8 ms
each; a keystroke within 250 ms cancels 1 - 1/e = 63.21% of sent requests, which stop halfway, so a
sent request decodes 16 x (1 - 0.6321 / 2) = 10.94 tokens. Llama-3.1-8B's KV: 2 x 32 layers x 8 heads
x 128 dims x 2 B = 131,072 B per token."""

from __future__ import annotations

import dataclasses
import math
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from macros.engine.fleet.planner import PlanError, Shortfall
from macros.engine.specs import catalog
from macros.site.pages import design
from macros.site.pages import design_code_completion as page
from macros.text import fmt

FILE = design.DESIGNS_DIR / "code-completion.toml"
E = math.exp(-0.3)
CANCELLED = 1 - math.exp(-1)


@pytest.fixture(scope="module")
def x():
    return page.model()


def test_keystrokes_become_requests_and_cancels(x):
    assert x.t.triggers_per_s == pytest.approx(12_000)
    assert x.t.sent_per_s == pytest.approx(12_000 * E)
    assert x.suppressed_share == pytest.approx(1 - E)
    assert x.t.tpot_s == pytest.approx(0.008)
    assert x.t.cancelled_share == pytest.approx(CANCELLED)
    assert x.t.completed_per_s == pytest.approx(12_000 * E * math.exp(-1))
    assert x.t.decoded_tokens == pytest.approx(16 * (1 - CANCELLED / 2))
    # 1 - 1/e = 63 % of sent requests are cancelled: "most"; the words follow the share below half.
    assert x.cancelled_headline == "Most are cancelled."
    assert [page.cancelled_headline(s) for s in (0.3, 0.1)] == ["Many are cancelled.", "A few are cancelled."]


def test_the_file_agrees_with_its_inputs_and_a_disagreeing_file_is_refused(tmp_path: Path):
    page.check_file(FILE)  # the shipped file: no error
    bad = tmp_path / "code-completion.toml"
    shutil.copy(FILE, bad)
    bad.write_text(bad.read_text().replace("peak_requests_per_s = 8_890", "peak_requests_per_s = 9_500", 1))
    with pytest.raises(design.DesignError, match="peak_requests_per_s is 9500 but"):
        page.check_file(bad)
    # a variant whose overrides no longer match its inputs: the lost cancel decodes all 16 tokens, not 11
    bad.write_text(FILE.read_text().replace("output_tokens = 16\n", "output_tokens = 11\n", 1))
    with pytest.raises(design.DesignError, match=r"\[variants.cancel-lost\]: output_tokens is 11"):
        page.check_file(bad)


def test_variants_follow_from_their_inputs():
    w, variants, _ = page.check_file(FILE)
    assert variants["no-debounce"].peak_requests_per_s == pytest.approx(12_000)
    assert variants["cancel-lost"].output_tokens == 16
    # sized for 48 tokens: 120 ms / 47 = 2.553 ms; the mean completion then lands in 50 + 80 + 15 x 2.553
    # = 168.3 ms, cancelled 1 - exp(-0.6732) = 49.0%, decoding 16 x (1 - 0.490 / 2) = 12.08 tokens
    assert variants["p95-output"].tpot_s == pytest.approx(0.12 / 47, rel=1e-6)
    latency = 0.05 + 0.08 + 15 * 0.12 / 47
    assert variants["p95-output"].output_tokens == round(16 * (1 - (1 - math.exp(-latency / 0.25)) / 2))


def test_the_plan_inside_the_budget(x):
    p = x.p
    # the mean completion at the planned prefill sets the cancellations; the p95 check spends the budget's
    # own 80 ms TTFT allowance: 50 ms network + 80 ms + 47 later tokens
    assert x.mean_total_s == pytest.approx(0.05 + p.planned_prefill_s + 15 * p.planned_step_s)
    assert x.p95_plain_s == pytest.approx(0.05 + 0.08 + 47 * p.planned_step_s)
    assert x.p95_plain_s > 0.25  # the p95 completion misses the budget without speculation


def test_speculation_on_the_replica(x):
    p = x.p
    # at batch 67 the verify step of 5 tokens a sequence stays memory-bound: it costs what a plain step does
    assert x.spec_verify_ratio == pytest.approx(1.0)
    assert x.spec_tokens_per_step == pytest.approx(2.3056)
    assert x.per_token_spec_s == pytest.approx(p.planned_step_s / 2.3056)
    # the slip the review found: 50 + 80 + 47 x step / 2.3056, the TTFT allowance included, not a few ms of
    # prefill. The step is 7.948 ms (under the 8 ms target), so 50 + 80 + 47 x 3.447 = 292 ms against 250
    assert p.planned_step_s == pytest.approx(0.007948, rel=1e-3)
    assert x.p95_spec_s == pytest.approx(0.05 + 0.08 + 47 * 0.007948 / 2.3056, rel=1e-4)
    assert x.p95_spec_s == pytest.approx(0.292, abs=5e-4)
    assert x.p95_spec_over_s == pytest.approx(x.p95_spec_s - 0.25)
    assert x.p95_novel_s == pytest.approx(0.05 + 0.08 + 47 * p.planned_step_s / 1.4251)
    assert 0.25 < x.p95_spec_s < x.p95_novel_s  # speculation alone does not meet the budget
    # speculation alone would need a TTFT allowance of 250 - 50 - 47 x 3.447 = 38 ms
    assert x.spec_ttft_room_s == pytest.approx(0.25 - 0.05 - 47 * 0.007948 / 2.3056, rel=1e-3)


def test_the_revision_meets_the_p95_on_wider_replicas(x):
    wide = x.variants["p95-output"]
    # four GPUs sized for 120 ms / 47 = 2.553 ms a token; their planned step is under it, and speculation on
    # it (the verify step still memory-bound, ratio 1) divides it by 2.3056 at 60% and 1.4251 at 30%
    assert wide.planned_step_s <= 0.12 / 47
    assert x.p95_wide_spec_s == pytest.approx(0.05 + 0.08 + 47 * wide.planned_step_s / 2.3056, rel=1e-4)
    assert x.p95_wide_novel_s == pytest.approx(0.05 + 0.08 + 47 * wide.planned_step_s / 1.4251, rel=1e-4)
    assert x.p95_wide_spec_s < x.p95_wide_novel_s <= 0.25


def test_work_spent_on_cancelled_requests(x):
    p = x.p
    prefill = 12_000 * E * p.planned_prefill_s  # replicas busy prefilling
    decode = 12_000 * E * 16 * CANCELLED * 0.5 / p.decode_tokens_per_s_per_replica  # cancelled tokens
    assert x.wasted_replica_share == pytest.approx((CANCELLED * prefill + decode) / p.replica_seconds_per_s,
                                                   rel=1e-3)
    # the same share of the answer's fleet (the serving model's), which carries the same work as the napkin's
    assert x.wasted_gpus == pytest.approx(x.wasted_replica_share * x.d.answer.gpus)


def test_debounce_and_prefix_cache_figures(x):
    p = x.p
    assert x.eager_sent_share == pytest.approx(math.exp(-0.04))
    assert x.eager.peak_requests_per_s == pytest.approx(12_000 * math.exp(-0.04))
    # priced on the serving model's answers: the variant's fleet against the design's
    assert x.debounce_gpus == x.no_debounce.gpus - x.d.answer.gpus > 0
    assert x.kv_per_token == pytest.approx(131_072)
    # the KV budget past the SLO batch (every byte of it, not whole sequences) over a 1,500-token prompt's
    # 1,500 x 131,072 B
    spare = p.at_slo.kv_budget_bytes - p.slo_batch * 1511 * 131_072
    assert x.cached_prompts_per_replica == pytest.approx(spare / (1500 * 131_072))
    # a replica of the answer's fleet, the one that runs (the serving model's count, not the napkin's)
    assert x.developers_per_replica == pytest.approx(60_000 / x.d.answer.replicas)
    assert x.prefill_tokens_per_s == pytest.approx(12_000 * E * 300, rel=1e-3)


def test_shapes_are_priced_on_the_planner(x):
    # one GPU per replica needs more GPUs than two: the TPOT target caps its batch far lower
    assert x.shapes[1].gpus > x.p.gpus >= x.cheapest.gpus
    assert x.cheapest_saving_share == pytest.approx((x.p.gpus - x.cheapest.gpus) / x.p.gpus)
    assert x.cheapest_allreduce_share > x.allreduce_share > 0
    assert f"| {x.p.slo_batch} |" in x.shape_table


@pytest.fixture
def h100_bandwidth(monkeypatch: pytest.MonkeyPatch):
    """Set the H100's bandwidth for one test, as a reader editing gpus.toml would."""
    def change(bandwidth: float) -> None:
        gpus = catalog().gpus
        monkeypatch.setitem(gpus, "h100", dataclasses.replace(gpus["h100"], bandwidth_bytes_per_s=bandwidth))
    return change


def test_on_a_slower_h100_the_page_says_what_no_longer_fits(h100_bandwidth):
    # At 2.0 TB/s, one sequence's step on one GPU reads the FP8 weights, 8,030,261,248 B, and its KV,
    # 131,072 x 1,511 = 198,049,792 B: 8,228,311,040 B / 2e12 = 4.114 ms, planned 10.29 ms > 8 ms, so one GPU
    # per replica has no plan. The p95 variant (1,512 tokens, 2.55319 ms) pins 4 GPUs, which plan
    # (8,030,261,248 + 198,180,864) / 8e12 / 0.4 = 2.571 ms, 0.018 ms over; 8 GPUs plan half that.
    h100_bandwidth(2.0e12)
    x = page.model()
    assert isinstance(x.shapes[1], Shortfall) and x.shapes[1].constraint == "tpot"
    assert x.one_gpu.needs == ("On the napkin one GPU per replica has no plan: 1 × H100 SXM cannot meet the 8 ms "
                               "TPOT, planning 10.3 ms per token for one sequence.")
    assert x.one_gpu.verdict == "On this data it cannot serve the workload at all."
    p95 = x.variants["p95-output"]
    assert (p95.gpus_per_replica, p95.widened_from.gpus_per_replica) == (8, 4)
    assert p95.widened_from.planned_s == pytest.approx(8_228_442_112 / 8e12 / 0.4)
    assert x.p95_replica == ("8 × H100 SXM (pinned at 4; on this data 4 × H100 SXM cannot meet the 2.55 ms TPOT, "
                             "planning 2.57 ms per token for one sequence, so the planner widened it to 8)")
    # the revision's table is the serving model's answers: it says so when the widened variant has no fleet
    no_fleet = 'The serving model finds no fleet for the "TPOT for the p95 completion" column' in x.d.revision(1)
    assert no_fleet == (not x.d.answers["p95-output"].feasible)
    assert "| 1 × H100 SXM | — | — | — | misses the TPOT target |" in x.shape_table  # the napkin's; the answer's after


def test_a_variant_no_shape_can_serve_is_refused_in_one_line_naming_the_file(h100_bandwidth):
    # At 0.5 TB/s the p95 variant plans 8,228,442,112 / (8 x 0.5e12) / 0.4 = 5.14 ms on a whole node, against
    # 2.55 ms: no shape up to 8 GPUs serves it, and the page cannot be written without it.
    h100_bandwidth(0.5e12)
    with pytest.raises(PlanError) as err:
        page.model()
    message = str(err.value)
    assert message.startswith("macros/data/designs/code-completion.toml: [variants.p95-output]: ")
    assert message.endswith("on 8 × H100 SXM even one sequence plans 5.14 ms per token against 2.55 ms "
                            "(tried replicas of 4 to 8 GPUs)")
    assert "\n" not in message


def test_a_difference_in_gpus_says_its_sign_in_words():
    assert page._more_or_fewer(10, "GPUs") == "10 more GPUs"
    assert page._more_or_fewer(-10, "GPUs") == "10 fewer GPUs"
    assert page._more_or_fewer(10) == "10 more"


def test_one_gpu_is_ranked_among_the_shapes(x):
    # The shipped data: one GPU per replica needs the most GPUs of the four shapes (the table).
    fleets = [p.gpus for p in x.shapes.values() if not isinstance(p, Shortfall)]
    assert x.shapes[1].gpus == max(fleets) and x.one_gpu.verdict == "It is the most expensive choice."
    one = x.shapes[1]
    assert x.one_gpu.needs == (f"On the napkin one GPU per replica needs {one.gpus:,} GPUs at a batch of "
                               f"{one.slo_batch}.")


def test_the_fleet_figures_in_the_prose_are_the_serving_models_not_the_napkins(x):
    # The page's fleet, its replicas and every revision's price are the answer's: a regression to the napkin's
    # plan (52 replicas of 2, 104 GPUs on this data) fails here.
    a, p = x.d.answer, x.p
    assert a.replicas != p.replicas
    assert x.developers_per_replica == pytest.approx(60_000 / a.replicas)
    assert x.developers_per_replica != pytest.approx(60_000 / p.replicas)
    debounce = x.d.answers["no-debounce"]
    assert x.debounce_gpus == debounce.gpus - a.gpus
    # dollars to three significant figures, as the site prints money ($9,240; $10,400)
    assert x.debounce_words == (f"the serving model needs {debounce.gpus - a.gpus:,} more GPUs, "
                                f"${float(f'{debounce.cost_per_day - a.cost_per_day:.3g}'):,.0f} more a day")
    no_affinity = x.d.answers["no-affinity"]
    assert x.gpu_ratio["no-affinity"] == pytest.approx(no_affinity.gpus / a.gpus)
    assert f"{no_affinity.gpus - a.gpus:,} more GPUs" in x.no_affinity_words
    # what the serving model sees, from the answer's own run: its rate and calls in flight per replica
    assert f"takes {a.simulated_requests_per_s_per_replica:.3g} requests a second" in x.busy_words
    assert f"not the napkin's batch of {p.slo_batch}" in x.busy_words
    # the shapes the table prices on both models: each shape's answer is its variant's, the pinned 2 the design's
    assert "Napkin GPUs" in x.shape_table and "The serving model's answer" in x.shape_table
    for g, name in ((1, "tp1"), (4, "tp4"), (8, "tp8")):
        v = x.d.answers[name]
        assert v.gpus_per_replica == g and (not v.feasible or f"= {v.gpus:,} GPUs" in x.shape_table)
    fleets = {g: x.d.answers[n].gpus for g, n in ((1, "tp1"), (4, "tp4"), (8, "tp8")) if x.d.answers[n].feasible}
    fleets[2] = a.gpus
    best = min(fleets, key=lambda g: (fleets[g], g))
    assert x.serving_shape_words.startswith(f"The serving model, which counts them and the tails, needs the fewest "
                                            f"GPUs on {best}")
    one = x.d.answers["tp1"]
    assert x.one_gpu_serving_words == (f"{a.gpus:,} GPUs instead of {one.gpus:,}" if one.feasible else
                                       f"{a.gpus:,} GPUs, where one GPU per replica has no fleet")


def test_lost_cancels_are_priced_on_the_answers_and_say_why_they_disagree_with_the_napkin(x):
    base, lost = x.d.answer, x.d.answers["cancel-lost"]
    words = x.cancel_lost_words
    if lost.gpus < base.gpus:  # the shipped data: the serving model needs fewer, the napkin more
        # 16 / 11 - 1 = 45.5 %: the work the lost cancels add
        assert words.startswith(f"the decode work grows by 45.5%, yet the serving model's count falls by "
                                f"{base.gpus - lost.gpus:,} GPUs")
        assert f"the napkin, which prices the work, needs {x.d.changes['cancel-lost'].extra_gpus:,} more)" in words
        assert "not a saving" in words and "averages it over 15 gaps, not 10" in words
        assert "no latency alarm fires" in words
    else:
        assert "the dashboards show a capacity problem" in words


def _answer(gpus, tokens, rate, cost=100.0):
    run = SimpleNamespace(workload=SimpleNamespace(output_tokens=tokens), binding=SimpleNamespace(words="p95 TPOT"))
    return SimpleNamespace(feasible=True, gpus=gpus, cost_per_day=cost * gpus, simulated=run,
                           simulated_requests_per_s_per_replica=rate)


def test_the_step_bytes_words_follow_which_read_is_larger(x):
    # 8.03e9 B of FP8 weights against 67 sequences x 1,511 tokens x 131,072 B of BF16 KV (TP2 keeps one copy across
    # the pair) = 13.27e9 B: the KV is 13.27 / 21.30 = 62.3 % of the step's bytes
    assert x.step_bytes_words.endswith("the batch's KV, not the weights, is most of every step's bytes: 62.3%")
    assert page.step_bytes_words(3.0, 1.0) == "and the weight read is most of every step's bytes: 75%"


def test_the_budget_split_is_priced_on_the_answers(x):
    # 50 ms of the 250 ms to the first token leaves (250 - 50 - 50) / 15 = 10 ms a token; each completion on the
    # answer's own p95s takes 50 ms + TTFT + (n - 1) x TPOT
    base, split = x.d.answer, x.d.answers["ttft-50"]
    assert split.simulated.workload.tpot_s == pytest.approx(0.01)

    def e2e(a, n):
        return 0.05 + a.ttft_p95_s + (n - 1) * a.tpot_p95_s

    assert x.split_words.startswith(f"50 ms to the first token leaves 10 ms a token: {base.gpus - split.gpus:,} fewer "
                                    "GPUs")
    assert f"the 48-token one in {fmt.ms(e2e(split, 48))}, against {fmt.ms(e2e(base, 48))}" in x.split_words
    assert ("(within the 250 ms)" in x.split_words) == (e2e(split, 16) <= 0.25)
    assert x.split_words.endswith("the first lever if cost binds") == (
        split.gpus < base.gpus and e2e(split, 48) > e2e(base, 48))


def test_the_lost_cancel_words_follow_the_comparison():
    napkin_more = SimpleNamespace(extra_gpus=14)
    fewer = page.cancel_lost_words(_answer(498, 11, 35.7), _answer(430, 16, 41.3), napkin_more)
    assert fewer.startswith("the decode work grows by 45.5%, yet the serving model's count falls by 68 GPUs (the "
                            "napkin, which prices the work, needs 14 more)")
    assert "averages it over 15 gaps, not 10" in fewer and "takes 41.3 requests a second" in fewer
    same = page.cancel_lost_words(_answer(498, 11, 35.7), _answer(498, 16, 35.9), SimpleNamespace(extra_gpus=0))
    assert same.startswith("the decode work grows by 45.5%, yet the serving model's count stays (the napkin, which "
                           "prices the work, needs no more)")
    more = page.cancel_lost_words(_answer(498, 11, 35.7), _answer(560, 16, 30.0), napkin_more)
    assert more.startswith("the serving model needs 62 more GPUs, $6,200 more a day")
    assert "capacity problem" in more and "gaps" not in more


def test_verification_words_follow_the_ratio():
    assert page.verify_words(1.0).startswith("costs what a plain one does")
    assert page.verify_words(1.3) == "costs 1.3× a plain one"


def test_the_summary_states_the_product_target_on_the_answer_s_p95s(x):
    # The one product target is end to end at p95: the network's p95, then the answer's p95 TTFT, then n - 1
    # tokens at its p95 TPOT (a sum of p95s, section 2's approximation), for the mean completion and the p95 one.
    a, i = x.d.answer, x.i
    mean = i.network_p95_s + a.ttft_p95_s + (i.completion_tokens - 1) * a.tpot_p95_s
    p95 = i.network_p95_s + a.ttft_p95_s + (i.completion_tokens_p95 - 1) * a.tpot_p95_s
    row = next(line for line in x.summary.splitlines() if "The product's target" in line)
    assert f"takes {fmt.ms(mean)}," in row and f"takes {fmt.ms(p95)}," in row
    words = page.product_target_words(0.25, 12, 0.2, 48, 0.3)
    # 0.2 s is within 0.25 s; 0.3 s is 50 ms over
    assert "takes 200 ms, within it" in words and "takes 300 ms, 50 ms over" in words
    assert ("within it" in row.split(";")[0]) == (mean <= i.total_p95_s)
    assert ("within it" in row.split(";")[1]) == (p95 <= i.total_p95_s)
