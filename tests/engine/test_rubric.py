"""The rubric's hire-bar table (macros/data/practice/rubric.toml): every combination of levels meets
exactly one verdict, each verdict is reachable, the cases the old table left open or doubled land
where its words say, and a broken table is caught. Then the levels' needs: what a text must say to meet
a level, an example held to its text, and a need or a verdict the file gets wrong named on one line.
(The example answers' own texts are on the page: tests/site/test_page_rubric.py holds them to their
scores.)"""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path

import pytest

from macros.engine.problems.rubric import Example, RubricError, read, rubric

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


def test_the_examples_span_the_table_from_top_to_bottom():
    r = rubric()
    verdicts = {e.key: r.verdict(r.example_score(e)).key for e in r.examples}
    # weak: scoping and the numbers below bar -> no hire. generalist: below bar on scaling only, scoping and
    # the numbers at bar -> lean no hire. solid: nothing below bar, five at hire, scoping and the numbers
    # among them, scaling and failure at bar -> hire. strong: hire or better everywhere, strong on scoping,
    # the numbers and communication -> strong hire.
    assert verdicts == {"weak": "no-hire", "generalist": "lean-no-hire", "solid": "hire", "strong": "strong-hire"}
    assert {e.key: e.verdict for e in r.examples} == verdicts  # what each declares
    assert {e.design for e in r.examples} == {"consumer-chat"}  # the same prompt


def test_a_level_is_met_by_saying_its_needs_and_those_below():
    d = next(d for d in rubric().dimensions if d.key == "coordination")
    # at bar needs a sticky route (sticky, same replica, ...) and its cost (hot, uneven, ...); hire needs
    # prefix-aware routing, a fallback, pinning, draining and the longest generation.
    at_bar = "Sticky routing by conversation, though one replica can run hot."
    hire = ("Prefix-aware routing with overflow to the least-loaded replica when one runs hot; sessions stay "
            "pinned to a version, and draining waits for the longest generation.")
    assert d.level_met("We round-robin every request.") == B  # no need of at bar said
    assert d.level_met(at_bar) == A
    assert d.level_met(hire) == H  # prefix-aware and hot say at bar's needs too
    assert d.level_met(hire + " The router itself fails over; the blast radius is one pool.") == H  # no consistency
    # Strong hire's words alone, without at bar's: the levels are cumulative, so below bar.
    assert d.level_met("The store's consistency, the router's own failure, and the blast radius.") == B
    assert d.missing(S, hire).words == "the consistency of the conversation store"


def test_a_phrase_is_said_at_the_start_of_a_word_in_any_case():
    d = next(d for d in rubric().dimensions if d.key == "coordination")
    pinning = next(n for n in d.needs[H] if n.words == "version pinning during rollouts")  # pinned, pinning, pins
    assert pinning.said_in("Each conversation stays PINNED to its version.") == "pinned"
    assert pinning.said_in("an unpinned conversation") is None  # "pinned" inside a word
    assert pinning.said_in("It pins the version.") == "pins"


def test_an_example_is_held_to_its_text():
    r = rubric()
    only_scoping = dataclasses.replace(r, dimensions=r.dimensions[:1])
    # A made-up answer: below bar's sign ("let me just draw"), all three of at bar's needs ("how many users",
    # "first token", "I'll assume"), and one of hire's four ("batch API"): it meets at bar.
    text = ("Let me just draw it. Is there a batch API? How many users, and what is the target for the first "
            "token? I'll assume ten million.")
    e = Example("made-up", "consumer-chat", "no-hire", {"scoping": ("at bar", "How many users")})
    only_scoping.check_example(e, text)  # the evidence is in the text, says at bar's "how many users"
    for level, evidence, problem in [
        ("below bar", "Let me just draw it", "scoping is scored below bar, but the answer meets at bar"),
        ("hire", "a batch API", "scoping is scored hire, but the answer meets at bar: it never says "
                                "'who owns the model'"),
        ("at bar", "How many requests", "scoping: the evidence 'How many requests' is not in the answer"),
        ("at bar", "ten million", "scoping: the evidence 'ten million' says none of what at bar's words need"),
    ]:
        wrong = dataclasses.replace(e, scores={"scoping": (level, evidence)})
        with pytest.raises(RubricError, match=re.escape(f"[[examples]] made-up: {problem}")):
            only_scoping.check_example(wrong, text)
    # On the whole rubric, the first dimension this text has no evidence for is named.
    every = dataclasses.replace(e, scores={d.key: ("below bar", "never said") for d in r.dimensions})
    with pytest.raises(RubricError, match="scoping: the evidence 'never said' is not in the answer"):
        r.check_example(every, text)


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    """The rubric file with `old` (which it must contain) replaced once by `new`, written to tmp_path."""
    text = Path("macros/data/practice/rubric.toml").read_text()
    broken = text.replace(old, new, 1)
    assert broken != text
    path = tmp_path / "rubric.toml"
    path.write_text(broken)
    return path


def test_a_need_that_is_not_a_phrase_of_its_words_is_one_line(tmp_path: Path):
    path = _edited(tmp_path, '{words = "Asks about scale",', '{words = "Asks about traffic",')
    with pytest.raises(RubricError, match="dimension 'scoping': 'at bar' needs 'Asks about traffic', which is not "
                                          "a phrase of its words"):
        read(path)


def test_a_declared_verdict_the_scores_do_not_give_is_one_line(tmp_path: Path):
    # The generalist with scaling at bar instead of below bar: nothing below bar, but only the serving
    # layer at hire -> still lean no hire (fewer than four at hire). With scoping below bar too -> no hire.
    path = _edited(tmp_path, 'scoping = ["at bar", "How many users', 'scoping = ["below bar", "How many users')
    with pytest.raises(RubricError, match=r"\[\[examples\]\] generalist: its scores come to no hire, not lean no hire"):
        read(path)


def test_no_need_names_a_figure_or_a_gpu():
    # A need any answer can say: no digit (a figure from one example) and no GPU's name.
    for d in rubric().dimensions:
        for need in (n for level in d.needs for n in level):
            for phrase in need.says:
                assert not any(c.isdigit() for c in phrase) and not any(g in phrase for g in ("h100", "h200", "b200"))


def test_an_overlapping_table_is_reported(tmp_path: Path):
    # Drop the hire rule's "short of strong hire" terms: strong-hire scores now meet hire too.
    path = _edited(tmp_path, ', {below = "hire", min = 1}]', "]")
    broken = path.read_text()
    # Reading it already fails: the strong example's scores (S, S, H, H, H, H, S) now meet both.
    with pytest.raises(RubricError, match="not exactly one verdict"):
        read(path)
    no_examples = tmp_path / "no_examples.toml"
    no_examples.write_text(broken[:broken.index("[[examples]]")])
    with pytest.raises(RubricError, match="not exactly one verdict"):
        read(no_examples).verdict((S, S, S, S, S, S, S))


def test_an_unknown_level_is_one_line(tmp_path: Path):
    path = tmp_path / "rubric.toml"
    text = Path("macros/data/practice/rubric.toml").read_text()
    path.write_text(text.replace('at_least = "hire"', 'at_least = "hyre"'))
    with pytest.raises(RubricError, match="unknown level 'hyre'"):
        read(path)
