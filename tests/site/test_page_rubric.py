"""The rubric page's model (macros/site/pages/rubric.py): the hire-bar table's coverage of every
combination of levels, counted by hand for two verdicts, and the two scored examples with the weak
answer's one-GPU step."""

from __future__ import annotations

import dataclasses
import itertools
from math import comb

import pytest

from macros.engine.problems.rubric import RubricError
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


def test_the_examples(q):
    assert q.examples["weak"].verdict == "no hire"
    assert q.examples["strong"].verdict == "strong hire"
    assert "| The numbers | below bar |" in q.examples["weak"].table


def test_the_weak_answers_step(q):
    # Llama-3.1-70B, 70,553,706,496 parameters x 2 B = 141.1e9 B over one H100's 3.35e12 B/s = 42.1 ms
    assert q.weak_step_s == pytest.approx(70_553_706_496 * 2 / 3.35e12)


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
