"""The MLPerf section of "Model against measurement" (macros/site/pages/model_vs_mlperf.py): on a fabricated
calibration whose figures are derived by hand below, and the submitters' spread from the measured file."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.serving.calibration import calibration
from macros.site.pages import model_vs_mlperf as page

B200_NVIDIA = "v5.1/NVIDIA/B200-SXM-180GBx8_TRT/llama2-70b-99/Offline"  # measured 101,527 / 8 tok/s per GPU
H200_NEBIUS = "v5.1/Nebius/H200-SXM-141GBx8_TRT/llama2-70b-99/Offline"  # measured 34,816 / 8 (4,352)


def _calibration(predicted: dict[str, float]):
    cal = calibration()
    raw = {**cal.raw, "mlperf_run": [{"id": k, "cv": x, "fit": x} for k, x in predicted.items()]}
    return dataclasses.replace(cal, raw=raw)


def test_each_row_is_its_cross_validated_prediction_over_the_measurement():
    # B200: 13,000 predicted against 12,690.9 measured is x1.024, within 20 %; H200: 3,000 against 4,352 is
    # x0.689, outside. One of two within: 50 %, short of the 80 % target.
    m = page.model(_calibration({B200_NVIDIA: 13_000.0, H200_NEBIUS: 3_000.0}))
    ratios = {x.run.id: x.ratio for x in m.rows}
    assert ratios[B200_NVIDIA] == pytest.approx(13_000 / (101_527 / 8), rel=1e-4)
    assert ratios[H200_NEBIUS] == pytest.approx(3_000 / 4_352.0, rel=1e-3)
    assert m.within == 0.5 and not m.met and m.simulated == 2
    # The worst row is listed first.
    assert "H200" in m.row_table.splitlines()[2]


def test_the_submitters_spread_is_the_largest_over_the_smallest_of_one_setup():
    # Llama 2 70B, TensorRT-LLM, NVFP4 on one B200 (TP1), Offline: NVIDIA v5.1 12,690.9, Google v5.1
    # 9,808, and the single-GPU NVIDIA runs of v5.0 (12,269) and v4.1 (11,264): 12,690.9 / 9,808 = 1.294.
    spread = {(s.gpu, s.engine, s.model): s for s in page.submitter_spread()}
    b200 = spread[("b200", "trt", "llama-2-70b")]
    assert b200.spread == pytest.approx(12_690.88 / 9_808, rel=1e-3) and b200.runs >= 2
    assert all(s.spread >= 1 for s in spread.values())


def test_the_mean_prompts_are_stated_as_fitted_inside_their_bands_or_held_with_why():
    m = page.model(_calibration({}))
    assert len(m.lengths) == 3  # one per benchmark's model
    assert all(x.low <= x.fitted <= x.high for x in m.lengths)
    # outputs: each row's own run's tokens per sample, e.g. Llama 3.1 8B's 128-129 (the 128-token cap)
    words = {x.model: x.output_words for x in m.lengths}
    assert words["Llama-3.1-8B"] == "129 output tokens per sample (each row's own run)" or words[
        "Llama-3.1-8B"] == "128 to 129 output tokens per sample (each row's own run)"
    # Every benchmark's mean prompt is fitted, none held (the 405B's from one system's Offline row and five systems'
    # Server rows).
    assert {x.model for x in m.lengths} == {"Llama-2-70B", "Llama-3.1-8B", "Llama-3.1-405B"}
    assert not [x for x in m.lengths if x.held]
    assert any("pipeline parallelism" in why for why in m.left_out)


def test_the_input_sensitivity_is_read_as_calibrate_wrote_it():
    cal = _calibration({})
    raw = {**cal.raw, "mlperf": {**cal.raw.get("mlperf", {}), "input_sensitivity": [
        {"input_scale": 0.5, "rows": 20, "median_ratio": 1.2, "within_20pct": 0.35},
        {"input_scale": 1.5, "rows": 20, "median_ratio": 0.58, "within_20pct": 0.05}]}}
    m = page.model(dataclasses.replace(cal, raw=raw))
    assert [(x.scale, x.median_ratio, x.within) for x in m.sensitivity] == [(0.5, 1.2, 0.35), (1.5, 0.58, 0.05)]
