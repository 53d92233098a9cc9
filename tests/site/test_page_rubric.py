"""The rubric page's model (macros/site/pages/rubric.py): the hire-bar table's coverage of every
combination of levels, counted by hand for two verdicts, and the four scored answers as the built page
prints them: each score the level whose words the answer's text meets, its evidence quoted from that text,
its verdict the one declared, a score moved one level caught; and the weak answer's one-GPU step."""

from __future__ import annotations

import dataclasses
import html
import itertools
import re
from math import comb
from pathlib import Path

import pytest

from macros.engine.problems.rubric import Need, RubricError
from macros.site.pages import rubric as page


@pytest.fixture(scope="module")
def q():
    return page.model()


def test_every_combination_is_counted_once(q):
    counts = page.coverage(page.rubric())
    assert sum(counts.values()) == q.combinations == 4 ** 7  # 16,384


def test_no_hire_and_strong_hire_counted_by_hand(q):
    counts = page.coverage(page.rubric())
    # Not "no hire": scoping and the numbers at bar or better (3 x 3), and at most one of the other five
    # below bar (3^5 + 5 x 3^4 = 648): 9 x 648 = 5,832, so no hire is 16,384 - 5,832 = 10,552.
    assert counts["no-hire"] == 4 ** 7 - 9 * (3 ** 5 + 5 * 3 ** 4) == 10_552
    # Strong hire: each dimension hire or strong (2^7), at least three strong (128 - 1 - 7 - 21 = 99),
    # less those with neither the numbers nor the serving layer strong (C(5,3) + C(5,4) + C(5,5) = 16): 83.
    assert counts["strong-hire"] == sum(comb(7, k) for k in range(3, 8)) - sum(comb(5, k) for k in range(3, 6)) == 83


# Level indices: 0 below bar, 1 at bar, 2 hire, 3 strong hire; dimensions in the file's order: scoping,
# numbers, serving, scaling, coordination, failure, communication.
B, A, H, S = 0, 1, 2, 3
# The levels read off each answer's text by hand, against the needs in rubric.toml:
# - weak: starts "Let me just draw it" and never asks about scale (B); a single GPU's bandwidth, no KV per
#   sequence (B); continuous batching and a KV cache, each with what it solves, but no tensor parallelism (A);
#   GPU utilisation (B); round-robin (B); "we retry", nothing in flight (B); narrates and answers the question
#   asked, never checks in (A).
# - generalist: asks users and the first-token target and assumes, but no batch API (A); weights, KV per
#   sequence and the step from bandwidth, but no budget left for the cache (A); tensor parallelism and why,
#   paged, chunked prefill, prefix caching to the same replica, no speculation (H); GPU utilisation (B);
#   sticky and hot, not prefix-aware (A); in-flight sequences retried on another replica, no conversation
#   store (A); answers the question asked, never checks in (A).
# - solid: batch API, owning the model, tiers, the scoping sentence, nothing load-bearing (H); the budget
#   leaves the cache, sequences fit, a floor at a stated efficiency, not derived again (H); serving as the
#   generalist's (H); KV occupancy and queue depth, minutes to load, no forecast (A); prefix-aware with
#   overflow, pinned, draining for the longest generation, no consistency (H); in-flight lost and retried,
#   no conversation store (A); "or back to the fleet?" and "the trade-off", no time plan (H).
# - strong: the solid answer's, plus "load-bearing", "behind an interface", "tell me when to open" (S); the
#   same sum on another GPU, measured systems, a price as of its date (S); serving with no speculation (H);
#   forecast, warm pool from the forecast's error, admission control, but no prefill and decode capacity (H);
#   coordination as the solid's (H); the conversation store, re-prefill, retry budget, health checks, no
#   degradation (H); a time plan, "to sum up", what to build first (S).
BY_HAND = {
    "weak": (B, B, A, B, B, B, A),
    "generalist": (A, A, H, B, A, A, A),
    "solid": (H, H, H, A, H, A, H),
    "strong": (S, S, H, H, H, H, S),
}


@pytest.fixture(scope="module")
def built(built_site: Path) -> str:
    return (built_site / "practice" / "rubric" / "index.html").read_text()


@pytest.fixture(scope="module")
def answers(built: str) -> dict[str, str]:
    """Each answer's text as the built page shows it: its quotation's words, tags dropped, on one line."""
    found = {}
    for key, inner in re.findall(r'<div class="rubric-answer" id="answer-([\w-]+)"[^>]*>(.*?)</div>', built, re.S):
        found[key] = " ".join(html.unescape(re.sub(r"<[^>]+>", "", inner)).replace("\u2019", "'").split())
    return found


def _says(text: str, need: Need) -> bool:
    """The test's own reading of a need: one of its phrases at the start of a word, in any case."""
    return any(re.search(r"(?<!\w)" + re.escape(s), text.lower()) for s in need.says)


def _problems(r, e, text: str) -> list[str]:
    """Where the example's scores do not follow from the text: evidence missing or showing nothing of its
    level, a need of its level (or one below) unsaid, or every need of the level above said."""
    out = []
    for d in r.dimensions:
        level_name, evidence = e.scores[d.key]
        level = r.levels.index(level_name)
        if evidence not in text:
            out.append(f"{d.key}: evidence not in the text")
        if not any(_says(evidence, n) for n in d.needs[level]):
            out.append(f"{d.key}: evidence shows nothing of {level_name}")
        out += [f"{d.key}: never says {n.words!r}" for lv in range(1, level + 1) for n in d.needs[lv]
                if not _says(text, n)]
        if level + 1 < len(r.levels) and all(_says(text, n) for n in d.needs[level + 1]):
            out.append(f"{d.key}: says everything {r.levels[level + 1]} needs")
    return out


def test_every_score_is_the_level_the_answers_words_meet(answers):
    r = page.rubric()
    assert set(answers) == {e.key for e in r.examples} == set(BY_HAND)
    for e in r.examples:
        assert r.example_score(e) == BY_HAND[e.key], e.key  # the data's scores are the ones read by hand
        assert _problems(r, e, answers[e.key]) == [], e.key
        r.check_example(e, answers[e.key])  # and the build's own check agrees


def test_a_score_moved_one_level_is_caught(answers):
    r = page.rubric()
    moved = 0
    for e in r.examples:
        for d in r.dimensions:
            level = r.levels.index(e.scores[d.key][0])
            for other in (level - 1, level + 1):
                if not 0 <= other < len(r.levels):
                    continue
                wrong = dataclasses.replace(e, scores={**e.scores, d.key: (r.levels[other], e.scores[d.key][1])})
                assert _problems(r, wrong, answers[e.key]), (e.key, d.key, other)
                with pytest.raises(RubricError, match=rf"\[\[examples\]\] {e.key}: {d.key}"):
                    r.check_example(wrong, answers[e.key])
                moved += 1
    # 28 scores, each moved down and up: 56, less the 6 below bar (weak 5, generalist 1), which cannot move
    # down, and the 3 at strong hire (all the strong answer's), which cannot move up.
    below = sum(lv == B for s in BY_HAND.values() for lv in s)  # 5 + 1 = 6
    top = sum(lv == S for s in BY_HAND.values() for lv in s)  # 3
    assert (below, top) == (6, 3)
    assert moved == 56 - below - top == 47


def test_the_four_verdicts_from_the_bottom_to_the_top(q, built):
    r = page.rubric()
    # By hand from BY_HAND: weak below bar on scoping and the numbers -> no hire; generalist below bar on
    # scaling only -> lean no hire; solid nothing below bar, five at hire or better with scoping and the
    # numbers -> hire (scaling and failure below hire); strong three at strong hire, the numbers among them
    # and nothing below hire -> strong hire.
    expected = {"weak": "no hire", "generalist": "lean no hire", "solid": "hire", "strong": "strong hire"}
    assert {e.key: r.verdict(BY_HAND[e.key]).title for e in r.examples} == expected == q.verdict_of
    assert [e.key for e in r.examples] == ["weak", "generalist", "solid", "strong"]
    printed = re.findall(r"<strong>Verdict: ([a-z ]+)\.</strong>", built)
    assert printed == ["no hire", "lean no hire", "hire", "strong hire"]


def test_each_verdict_says_why_from_the_table(q):
    r = page.rubric()
    assert page.why(r, BY_HAND["weak"]) == "Below bar on scoping and the numbers."
    assert page.why(r, BY_HAND["generalist"]) == ("Below bar on scaling under non-stationary traffic; scoping and "
                                                  "the numbers at bar or better.")
    assert page.why(r, BY_HAND["strong"]) == ("Nothing below hire; strong hire on scoping, the numbers and "
                                              "communication, the numbers among them.")


def test_the_page_stays_short(built):
    article = re.search(r"<article[^>]*>(.*?)</article>", built, re.S).group(1)
    words = html.unescape(re.sub(r"<[^>]+>", " ", article)).split()
    assert 2_000 < len(words) < 4_000, len(words)


def test_the_other_gpu_and_the_re_prefill(q):
    # The same replica on 4 x H200 (141 GB and 4.8 TB/s each): 564 GB less 141,107,412,992 B of weights and
    # 4 x 4 GB reserved leaves 406.9 GB, which at the design's KV per sequence (786,432,000 B for 2,400 tokens
    # today) holds 517 sequences. The floor at the design's batch (161 today) reads the weights and that
    # batch's KV over 4 x 4.8 TB/s: 13.9 ms today.
    s, other = q.s, q.other
    assert other.gpu_spec.name == "H200 SXM" and other.gpus == s.gpus == 4
    assert other.kv_budget_bytes == pytest.approx(4 * 141e9 - 141_107_412_992 - 4 * 4e9)
    assert other.max_batch == int(other.kv_budget_bytes // s.kv_bytes_per_seq)
    assert other.decode_step_s == pytest.approx((141_107_412_992 + s.batch * s.kv_bytes_per_seq) / (4 * 4.8e12),
                                                rel=1e-3)
    assert q.bandwidth_ratio == pytest.approx(4.8 / 3.35)
    # The weak answer's correction: 141.1e9 B over 4 x 3.35e12 B/s = 10.5 ms.
    assert q.batch_one_step_s == pytest.approx(141_107_412_992 / (4 * 3.35e12))
    # A dead replica's batch prefilled again with no prefix cache: more than its uncached half each.
    assert q.re_prefill_s > s.batch * q.plan.planned_prefill_s


def test_the_weak_answers_step(q):
    # Llama-3.1-70B, 70,553,706,496 parameters x 2 B = 141.1e9 B over one H100's 3.35e12 B/s = 42.1 ms
    assert q.weak_step_s == pytest.approx(70_553_706_496 * 2 / 3.35e12)
    assert q.weak_step_s == pytest.approx(4 * q.batch_one_step_s)  # one GPU of the replica's four


def test_no_level_names_the_anchors_figures(q):
    words = " ".join(w for d in page.rubric().dimensions for w in d.words)
    assert q.anchor.max_batch == 122  # 164e9 B // 1,342,177,280 B per 4,096-token sequence
    for figure in ("122", "22.7", "4 ×", "H100"):
        assert figure not in words


def test_the_counts_are_each_combination_s_own_verdict_and_a_clash_is_named():
    # The page counts every combination at once; here each is judged one by one, as Rubric.verdict judges it.
    r = page.rubric()
    one_by_one = dict.fromkeys((v.key for v in r.verdicts), 0)
    for score in itertools.product(range(len(r.levels)), repeat=len(r.dimensions)):
        one_by_one[r.verdict(score).key] += 1
    assert page.coverage(r) == one_by_one
    # A table where the last verdict also takes everything: combinations meet two verdicts, which is an error.
    last = r.verdicts[-1]
    clashing = dataclasses.replace(r, verdicts=(*r.verdicts[:-1], dataclasses.replace(last, when=((),))))
    with pytest.raises(RubricError, match="not exactly one verdict"):
        page.coverage(clashing)
