"""The rubric's hire-bar table (macros/data/practice/rubric.toml): every combination of levels meets
exactly one verdict, each verdict is reachable, the cases the old table left open or doubled land
where its words say, and a broken table is caught."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from macros.engine.problems.rubric import RubricError, read, rubric

# Level indices: 0 below bar, 1 at bar, 2 hire, 3 strong hire. Dimension order as in the file:
# scoping, numbers, serving, scaling, coordination, failure, communication.
B, A, H, S = 0, 1, 2, 3


def test_the_file_has_seven_dimensions_of_four_levels():
    r = rubric()
    assert [d.key for d in r.dimensions] == ["scoping", "numbers", "serving", "scaling", "coordination", "failure",
                                            "communication"]
    assert r.levels == ("below bar", "at bar", "hire", "strong hire")


def test_every_combination_meets_exactly_one_verdict():
    r = rubric()
    seen = {v.key: 0 for v in r.verdicts}
    combos = list(itertools.product(range(4), repeat=7))
    assert len(combos) == 4 ** 7  # 16,384
    for score in combos:
        found = r.matching(score)
        assert len(found) == 1, (score, [v.key for v in found])
        seen[found[0].key] += 1
    assert all(n > 0 for n in seen.values()), seen


@pytest.mark.parametrize("score, expected", [
    # The old table's holes: at bar everywhere with one to three at hire, and four at hire with scoping
    # only at bar. Fewer than four at hire, or scoping at bar: lean no hire.
    ((A, A, H, A, A, A, A), "lean-no-hire"),
    ((A, H, H, H, A, A, A), "lean-no-hire"),
    ((A, H, H, H, H, A, A), "lean-no-hire"),
    # Below bar on the numbers: no hire only (the old table also gave lean no hire).
    ((H, B, H, H, H, H, H), "no-hire"),
    ((A, A, A, A, A, A, B), "lean-no-hire"),  # one below bar, not scoping or the numbers
    ((A, A, A, B, A, B, A), "no-hire"),  # two below bar
    ((H, H, H, H, A, A, A), "hire"),  # four at hire, scoping and the numbers among them
    ((H, A, H, H, H, H, H), "lean-no-hire"),  # six at hire but the numbers only at bar
    ((S, S, H, H, H, H, S), "strong-hire"),  # three strong, the numbers among them
    ((S, H, H, H, H, H, S), "hire"),  # two strong only
    ((S, H, H, H, H, S, S), "hire"),  # three strong, neither the numbers nor the serving layer
    ((S, S, S, S, S, S, A), "hire"),  # strong almost everywhere, one only at bar
])
def test_hand_cases(score, expected):
    assert rubric().verdict(score).key == expected


def test_the_examples_score_as_calibrated():
    r = rubric()
    verdicts = {e.key: r.verdict(r.score_of({k: v[0] for k, v in e.scores.items()})).key for e in r.examples}
    # weak: numbers, scaling and coordination below bar -> no hire; strong: hire or better everywhere,
    # strong on scoping, the numbers and communication -> strong hire.
    assert verdicts == {"weak": "no-hire", "strong": "strong-hire"}
    assert {e.design for e in r.examples} == {"consumer-chat"}  # the same prompt


def test_an_overlapping_table_is_reported(tmp_path: Path):
    text = Path("macros/data/practice/rubric.toml").read_text()
    # Drop the hire rule's "short of strong hire" terms: strong-hire scores now meet hire too.
    broken = text.replace(', {below = "hire", min = 1}]', "]", 1)
    assert broken != text
    path = tmp_path / "rubric.toml"
    path.write_text(broken)
    r = read(path)
    with pytest.raises(RubricError, match="not exactly one verdict"):
        r.verdict((S, S, S, S, S, S, S))


def test_an_unknown_level_is_one_line(tmp_path: Path):
    path = tmp_path / "rubric.toml"
    text = Path("macros/data/practice/rubric.toml").read_text()
    path.write_text(text.replace('at_least = "hire"', 'at_least = "hyre"'))
    with pytest.raises(RubricError, match="unknown level 'hyre'"):
        read(path)
