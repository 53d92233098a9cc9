"""Sentences checked against the data (macros/site/assumptions.py)."""

from __future__ import annotations

import logging

import pytest

from macros.engine.scenario import scenario
from macros.site import assumptions as a
from macros.site.pages._shared import bandwidth_comparison


def test_a_sentence_that_holds_is_left_alone(caplog: pytest.LogCaptureFixture):
    fact = a.assume(True, "H100 989.4, H200 989.4", "compare compute")
    with caplog.at_level(logging.DEBUG):
        assert a.check(fact, "The H200 has the same compute", "docs/x.md") == "The H200 has the same compute"
    assert not caplog.records


def test_a_broken_sentence_is_one_error_line_naming_page_words_figures_and_fix(caplog: pytest.LogCaptureFixture):
    fact = a.assume(False, "BF16: H100 494.7 TFLOP/s, H200 989.4 TFLOP/s", "compare compute too")
    rendered = 'The <span title="x">H200</span> has the *same* compute'
    with caplog.at_level(logging.DEBUG):
        out = a.check(fact, rendered, "docs/guide/roofline.md")
    [record] = caplog.records
    assert record.levelno == logging.ERROR  # shown under `mkdocs build -q`, and --strict fails on it
    assert record.name.startswith("mkdocs.")  # counted by MkDocs' strict mode
    line = record.getMessage()
    assert "\n" not in line
    assert line == ("broken assumption: docs/guide/roofline.md: \u201cThe H200 has the same compute\u201d: "
                    "BF16: H100 494.7 TFLOP/s, H200 989.4 TFLOP/s. Rewrite: compare compute too")
    # The page still renders (under `mkdocs serve`), with the sentence marked for the reader.
    assert out.startswith('<mark class="broken-assumption" title="This sentence no longer matches the data: BF16')
    assert out.endswith(rendered + "</mark>")


def test_anything_but_an_assumption_is_a_writer_error():
    with pytest.raises(TypeError, match="docs/x.md: assumed\\(\\) takes an Assumption"):
        a.check(True, "words", "docs/x.md")  # type: ignore[arg-type]


def test_same_compares_within_a_relative_tolerance():
    show = "{:g}".format
    assert a.same("peak", ("A", 989.4e12), ("B", 989.4e12 * (1 + 1e-9)), show, "fix").holds
    broken = a.same("peak", ("A", 989.4e12), ("B", 494.7e12), show, "fix")
    assert not broken.holds and broken.evidence == "peak: A 9.894e+14, B 4.947e+14"


@pytest.mark.parametrize(("value", "words"), [(1.0, "the same compute"), (2.0, "2.0x the compute"),
                                             (0.5, "less compute (0.5x)")])
def test_phrase_follows_the_comparison(value: float, words: str):
    assert a.phrase(value, 1.0, "the same compute", "{ratio:.1f}x the compute", "less compute ({ratio:.1f}x)") == words


def test_the_h100_h200_argument_holds_on_todays_data():
    # gpus.toml: H100 and H200 share 989.4 TFLOP/s dense BF16 and 1,979 FP8; H200 4.8 TB/s > 3.35.
    c = bandwidth_comparison(scenario("llama-70b", "h100", gpus=4))
    assert c["same_compute"].holds and c["more_bandwidth"].holds
    assert c["compared_bandwidth_ratio"] == pytest.approx(4.8 / 3.35)
