"""Sentences checked against the data (macros/site/assumptions.py)."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from macros.engine.lookup import get_gpu
from macros.engine.model.scenario import scenario
from macros.engine.specs import Gpu
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


# The comparison on a patched anchor GPU: the H100 with half its dense BF16 peak (989.4 -> 494.7 TFLOP/s),
# or with more bandwidth than the H200 (6 TB/s against 4.8).
def _on(gpu: Gpu) -> dict:
    return bandwidth_comparison(scenario("llama-70b", gpu, gpus=4))


def test_the_same_compute_is_words_that_follow_the_peaks():
    c = _on(get_gpu("h100"))
    assert (c["compute"], c["compute_as"], c["compute_short_start"]) == (
        "the same compute", "the same compute as", "Same compute")
    half = _on(dataclasses.replace(get_gpu("h100"), bf16_flops=494.7e12))
    # 989.4 / 494.7 = 2: the H200 has twice the dense BF16 compute of this H100
    assert half["compute_as"] == "2\u00d7 the dense BF16 compute of"
    assert not half["same_compute"].holds
    assert "BF16 H100 SXM 494.7 TFLOP/s, H200 SXM 989.4 TFLOP/s" in half["same_compute"].evidence
    # only the FP8 peak differs: the BF16 compute is still the same
    fp8 = _on(dataclasses.replace(get_gpu("h100"), fp8_flops=1e15))
    assert fp8["compute"] == "the same dense BF16 compute" and not fp8["same_compute"].holds
    assert fp8["same_peak"].holds  # the anchor runs BF16: its arguments still compare equal compute


def test_time_to_first_token_follows_the_compute():
    # A 2,000-token prefill is compute-bound (intensity ~2,000 FLOP/B against a balance of 148-295), so its
    # time is FLOPs over the peak: at half the H100's peak it takes twice as long as on the H200.
    same = _on(get_gpu("h100"))
    # 2 x 70e9 x 2,000 = 2.8e14 FLOP (plus attention) over 4 x 989.4e12 on both: one figure
    assert same["ttft_moves"] == "does not move" and same["prefill_both"].endswith(" ms on both")
    assert same["same_peak"].holds
    half = _on(dataclasses.replace(get_gpu("h100"), bf16_flops=494.7e12))
    assert half["compared_prefill_ratio"] == pytest.approx(2, rel=1e-3)
    assert half["ttft_moves"] == "is 2\u00d7 shorter" and not half["same_peak"].holds
    assert " against " in half["prefill_both"]
    # Decode at batch 64 stays memory-bound on both (intensity below 64 against a balance of 148), so the
    # step still speeds up by exactly the bandwidth ratio 4.8 / 3.35.
    assert half["step_is_bandwidth_ratio"].holds
    assert half["compared_step_speedup"] == pytest.approx(4.8 / 3.35, rel=1e-6)


def test_less_bandwidth_is_said_and_faster_decode_breaks():
    c = _on(dataclasses.replace(get_gpu("h100"), bandwidth_bytes_per_s=6e12))
    # 4.8 / 6 = 0.8: 20% less bandwidth, and a memory-bound step 1 / 0.8 = 1.25x slower on the H200
    assert c["bandwidth_more"] == "20% less bandwidth"
    assert c["decode_faster"] == "slower at decode"
    assert not c["more_bandwidth"].holds and not c["faster_decode"].holds
    assert c["compared_step_speedup"] == pytest.approx(0.8, rel=1e-6)
