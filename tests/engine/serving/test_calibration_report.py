"""The serving model against measurement (macros/engine/calibration/report.py): a run's roofline floor, the join of
calibration.toml's [[run]] entries to the measured file, and the scores, against values derived by hand."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from macros.engine.calibration import report as v
from macros.engine.calibration.measured import Run
from macros.engine.serving.calibration import calibration
from macros.engine.specs import SpecError

# Llama-3.1-70B (70,553,706,496 parameters, 80 layers, 64 query heads, 8 KV heads of 128) on 4 x H100
# (3.35e12 B/s, 989.4e12 FLOP/s dense BF16 each), BF16 weights and cache.
LLAMA = Run(id="t1", series="s", gpu="h100", model="llama-3.1-70b", engine="vllm", weights="bf16", tp=4, ep=1,
            layout="tp", isl=1000, osl=100, concurrency=1, median_tpot_s=0.02, p99_tpot_s=0.03, median_ttft_s=0.1,
            p99_ttft_s=0.2, output_tokens_per_s_per_gpu=10.0, excluded="")


def test_the_floor_of_a_run_is_the_calculators_at_the_benchmarks_mean_lengths():
    f = v.floors(LLAMA, kv="bf16")
    # Lengths drawn from 0.8 to 1 x nominal: prompt (800 + 1,000) / 2 = 900, output (80 + 100) / 2 = 90;
    # mean context over the decode 900 + 45 = 945 tokens.
    # Decode step at batch 1: weights 2 x 70,553,706,496 = 141,107,412,992 B, KV 2 x 80 x 8 x 128 x 2 = 327,680 B
    # a token x 945 = 309,657,600 B (8 KV heads >= 4 GPUs: one copy); over 4 x 3.35e12 B/s = 10.5535 ms.
    # FLOPs 2 x 70.55e9 + 4 x 64 x 128 x 80 x 945 = 1.436e11 over 3.958e15 FLOP/s = 36 us: memory-bound.
    step = (141_107_412_992 + 309_657_600) / (4 * 3.35e12)
    assert f.tpot_s == pytest.approx(step, rel=1e-9)
    # Throughput per GPU: 1 sequence / step / 4 GPUs.
    assert f.output_tokens_per_s_per_gpu == pytest.approx(1 / step / 4, rel=1e-9)
    # First token: one 900-token prompt, 2 x 70,553,706,496 x 900 FLOPs plus causal attention
    # 4 x 64 x 128 x 80 x (900 x 901 / 2) over 4 x 989.4e12 = 32.36 ms, above the 10.53 ms weight read.
    flops = 2 * 70_553_706_496 * 900 + 4 * 64 * 128 * 80 * 900 * 901 / 2
    assert f.ttft_s == pytest.approx(flops / (4 * 989.4e12), rel=1e-9)


def test_a_concurrency_the_floors_kv_budget_cannot_hold_has_no_decode_floor():
    # 4 x 80 GB - 141.1 GB of weights - 16 GB reserve = 162.9 GB over 309,657,600 B a sequence: 526 fit,
    # so 10,000 do not; the first token's floor does not depend on the batch.
    f = v.floors(dataclasses.replace(LLAMA, concurrency=10_000), kv="bf16")
    assert f.tpot_s is None and f.output_tokens_per_s_per_gpu is None
    assert f.ttft_s == v.floors(LLAMA, kv="bf16").ttft_s


def _cal(*entries: dict) -> object:
    return dataclasses.replace(calibration(), raw={"run": list(entries)})


def _flat(run: Run) -> v.Floors:
    return v.Floors(0.001, 0.01, 1000.0)


def test_a_run_entry_is_joined_to_its_measured_run_by_id():
    entry = {"id": "t1", "cv": [0.021, 0.09, 9.0, 0.033], "fit": [0.02, 0.1, 10.0, 0.03]}
    (c,) = v.join(_cal(entry), [LLAMA], floor=_flat)
    assert c.run is LLAMA and c.cv["median_ttft_s"] == 0.09 and c.fit["p99_tpot_s"] == 0.03
    # predicted / measured: 0.021 / 0.02; measured / floor for a time, floor / measured for a rate
    assert c.ratio("median_tpot_s") == pytest.approx(1.05)
    assert c.floor_ratio("median_tpot_s") == pytest.approx(20)
    assert c.floor_ratio("output_tokens_per_s_per_gpu") == pytest.approx(100)


@pytest.mark.parametrize("entry, words", [
    ({"id": "nope", "cv": [1, 1, 1, 1], "fit": [1, 1, 1, 1]}, "[[run]] #1 (nope): no fitted run with this id"),
    ({"id": "t1", "cv": [1, 1, 1], "fit": [1, 1, 1, 1]}, "[[run]] #1 (t1): cv must be 4 positive finite numbers"),
    ({"id": "t1", "cv": [1, 1, 1, 1], "fit": [1, float("nan"), 1, 1]}, "[[run]] #1 (t1): fit must be 4 positive"),
    ({"id": "t1", "cv": [1, -1, 1, 1], "fit": [1, 1, 1, 1]}, "[[run]] #1 (t1): cv must be 4 positive"),
])
def test_a_bad_run_entry_is_one_line_naming_the_file_and_the_entry(entry: dict, words: str):
    with pytest.raises(SpecError) as err:
        v.join(_cal(entry), [LLAMA], where="calibration.toml", floor=_flat)
    message = str(err.value)
    assert message.startswith("calibration.toml: ") and words in message and "\n" not in message


def _checked(measured: float, predicted: float, floor: float) -> v.Checked:
    """A run measured at `measured` s per token (and 10x that to the first token, 1 / measured tokens/s
    per GPU, p99 TPOT 1.1x the median), predicted at `predicted` in each, with a floor of `floor` s per token."""
    run = dataclasses.replace(LLAMA, median_tpot_s=measured, median_ttft_s=10 * measured, p99_tpot_s=1.1 * measured,
                              output_tokens_per_s_per_gpu=1 / measured)
    cv = dict(zip(v.PREDICTED, [predicted, 10 * predicted, 1 / predicted, 1.1 * predicted], strict=True))
    return v.Checked(run, cv, cv, v.Floors(floor, 10 * floor, 1 / floor))


def test_scores_follow_the_targets_definitions():
    # TPOT ratios 1.05, 1.2, 0.9, 0.85: |log| 0.0488, 0.1823, 0.1054, 0.1625; within log 1.15 = 0.1398:
    # the first and the third. The median |log| is (0.1054 + 0.1625) / 2 = 0.1340. TTFT and p99 scale with
    # TPOT, so their ratios are the same: within a factor 1.5 (|log| <= 0.405) all four; within 25 %
    # (0.2231) all four. Tokens/s ratios are the inverses: the same two within 15 %.
    rows = [_checked(0.010, p, 0.005) for p in (0.0105, 0.012, 0.009, 0.0085)]
    s = v.summary(rows)
    assert s["tpot_within_15pct"] == 0.5 and s["output_per_gpu_within_15pct"] == 0.5
    assert s["tpot_median_abs_log_error"] == pytest.approx((math.log(1 / 0.9) + math.log(1 / 0.85)) / 2)
    assert s["p99_tpot_within_25pct"] == 1.0
    assert s["ttft_within_factor_1_5"] == 1.0
    assert [t.met(s[t.key]) for t in v.TARGETS] == [False, False, False, True, True]


def test_a_run_that_stalled_keeps_its_latencies_and_loses_its_throughput():
    # 16 clients, outputs of 100 at range ratio 0.8 (mean 90), TTFT 0.5 s, TPOT 20 ms: by Little's law
    # 16 x 90 / (0.5 + 89 x 0.02) = 1,440 / 2.28 = 631.6 tokens/s, over 4 GPUs 157.9 per GPU.
    steady = dataclasses.replace(LLAMA, concurrency=16, median_ttft_s=0.5, median_tpot_s=0.02, p99_ttft_s=9.0,
                                 output_tokens_per_s_per_gpu=150.0)
    assert steady.little_output_per_gpu == pytest.approx(16 * 90 / 2.28 / 4)
    # 150 is 95 % of that and the p99 TTFT 18 medians: no stall on either count.
    assert not steady.stalled and steady.steady_output_per_gpu == 150.0
    # A first wave that waited 70 s: p99 TTFT 140 medians, and 100 tokens/s is 63 % of what the medians give.
    stalled = dataclasses.replace(steady, p99_ttft_s=70.0, output_tokens_per_s_per_gpu=100.0)
    assert stalled.stalled and math.isnan(stalled.steady_output_per_gpu)
    # Either alone is not a stall: a long tail with the throughput the medians give, or a slow run with no tail.
    assert not dataclasses.replace(stalled, output_tokens_per_s_per_gpu=150.0).stalled
    assert not dataclasses.replace(stalled, p99_ttft_s=9.0).stalled
    # Scored: its TPOT counts, its throughput does not (one of one within 15 %, not one of two).
    rows = [_checked(0.010, 0.0105, 0.005), _checked(0.010, 0.0105, 0.005)]
    rows[1] = dataclasses.replace(rows[1], run=dataclasses.replace(
        rows[1].run, concurrency=16, p99_ttft_s=100 * rows[1].run.median_ttft_s, output_tokens_per_s_per_gpu=1.0))
    assert rows[1].run.stalled and math.isnan(rows[1].measured("output_tokens_per_s_per_gpu"))
    s = v.summary(rows)
    assert s["output_per_gpu_within_15pct"] == 1.0 and s["tpot_within_15pct"] == 1.0
    assert v.worst(rows, "output_tokens_per_s_per_gpu", 2) == rows[:1]


def test_the_floor_over_eta_is_scored_the_same_way():
    # Floors 4 ms and 5 ms against 10 ms measured: / 0.4 gives 10 ms (ratio 1) and 12.5 ms (1.25): one of two
    # within 15 %, median ratio 1.125. (Tokens/s: 250 x 0.4 = 100 = 1 / 10 ms, and 200 x 0.4 = 80.)
    rows = [_checked(0.010, 0.010, 0.004), _checked(0.010, 0.010, 0.005)]
    s = v.planned_summary(rows, efficiency=0.4)
    assert s["tpot_within_15pct"] == 0.5
    assert s["tpot_ratio_p10_p50_p90"][1] == pytest.approx((1 + 1.25) / 2)


def test_groups_and_the_median_floor_gap():
    rows = [_checked(0.010, 0.010, f) for f in (0.002, 0.005)]  # measured / floor 5 and 2
    rows.append(dataclasses.replace(_checked(0.010, 0.010, 0.001), floor=v.Floors(None, 0.01, None)))
    assert v.median_floor_ratio(rows, "median_tpot_s") == pytest.approx(3.5)  # no floor: not counted
    assert list(v.groups(rows, lambda c: c.floor.tpot_s is None)) == [False, True]
    assert v.worst(rows, "median_tpot_s", 1) == rows[:1]  # every ratio is 1: the first stays first


def test_the_worst_are_furthest_in_log_either_way():
    rows = [_checked(0.010, p, 0.005) for p in (0.011, 0.007, 0.013)]  # |log| 0.095, 0.357, 0.262
    assert [c.cv["median_tpot_s"] for c in v.worst(rows, "median_tpot_s", 2)] == [0.007, 0.013]


def test_the_fixed_cost_of_a_step_is_the_fitted_step_and_layer_costs():
    # GPT-OSS-120B (36 GQA layers) on B200 under vLLM: 36 x Blackwell's cost per layer on the GPU, or the
    # cost per step on the host beside it, whichever is longer.
    cal = calibration()
    run = next(c.run for c in v.checked() if (c.run.model, c.run.gpu, c.run.engine) == ("gpt-oss-120b", "b200", "vllm"))
    expected = max(cal.values[("step_overhead_s", "all")], 36 * cal.values[("layer_overhead_s", "blackwell")])
    assert v.fixed_step_s(run) == pytest.approx(expected, rel=1e-12)


def test_the_recomputed_cross_validation_matches_what_calibrate_wrote():
    # Two computations of the same figures: the page's (from each [[run]]) and the fitter's summary table.
    written = calibration().raw["cross_validation"]["all"]
    s = v.summary(v.checked())
    for t in v.TARGETS:
        assert s[t.key] == pytest.approx(written[t.key], abs=1e-5), t.key
    assert np.allclose(s["tpot_ratio_p10_p50_p90"], written["tpot_ratio_p10_p50_p90"], rtol=1e-5)
