"""The "Choose a replica shape" page model: its words follow its figures."""

from __future__ import annotations

from types import SimpleNamespace

from macros.engine.fleet.shapes import Point, Shape, ShapeResult
from macros.site.pages.shapes import split_words, why_they_differ

TP2, TP8 = Shape(2, "tp", 1), Shape(8, "tp", 1)
DP8 = Shape(8, "dp-attention", 8)


def _point(shape: Shape, per_gpu: float) -> Point:
    return Point(shape, 32, 0.03, 0.5, 1 / 0.03, per_gpu, True)


def _row(chosen: Shape, napkin: Shape, overhead: float = 0.25) -> SimpleNamespace:
    best = _point(chosen, 900.0)
    return SimpleNamespace(napkin=napkin, chosen=ShapeResult(chosen, best, best, None), same=chosen == napkin,
                           napkin_label=napkin.label, overhead_share=overhead,
                           napkin_under_model=_point(napkin, 600.0))


def test_the_same_shape_is_said_once():
    assert why_they_differ(_row(TP8, TP8)) == "Both choose TP8."


def test_a_different_shape_names_both_and_the_overhead_at_the_napkin_s():
    words = why_they_differ(_row(TP2, TP8, overhead=0.5))
    assert words.startswith("The napkin picks TP8, the step model TP2. At TP8 the step model spends 50%")
    assert "600 tokens/s per GPU against 900 tokens/s" in words and "Attention data parallelism" not in words
    assert "Attention data parallelism, which the napkin never tries" in why_they_differ(_row(DP8, TP8))


def test_no_shape_meets_the_targets():
    row = _row(TP8, TP8)
    row.chosen = None
    assert why_they_differ(row).startswith("Under the step model no shape")


def _split(gpus, colocated):
    return SimpleNamespace(split=SimpleNamespace(gpus=gpus, colocated_gpus=colocated,
                                                 wins=None if gpus is None else gpus < colocated))


def test_disaggregation_s_verdict_follows_the_counts():
    assert split_words(_split(40, 48)) == "Saves 8 GPUs."
    assert split_words(_split(48, 48)) == "The same number of GPUs: nothing to gain."
    assert split_words(_split(56, 48)) == "Costs 8 GPUs more."
    assert split_words(_split(None, 48)).startswith("No answer")


def test_a_napkin_with_no_shape_is_a_sentence():
    row = _row(TP8, TP8)
    row.napkin, row.napkin_message = None, "DeepSeek-V3: the model is too big"
    assert why_they_differ(row) == "The napkin has no answer: DeepSeek-V3: the model is too big."
