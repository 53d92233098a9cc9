"""The calculator's estimate (serving/estimate.py): the fitted step model for one decode step, its band, and
where it has nothing to say.

Llama-3.1-8B (models.toml): N = 8,030,261,248 parameters in BF16 (2 B), 32 layers, 8 KV heads of 128, so
one token's KV in one layer is 2 x 8 x 128 x 2 B = 4,096 B. H100 SXM: 3.35 TB/s.
"""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.lookup import InputError, get_gpu
from macros.engine.model.scenario import scenario
from macros.engine.serving.calibration import band_for, params_for
from macros.engine.serving.estimate import decode_estimate


def test_one_sequence_of_a_dense_model_is_its_reads_and_its_fixed_costs():
    # At batch 1 every compute term is tens of times below its memory term, so the GPU's time is the bytes
    # over the achieved bandwidth plus its fixed cost per layer; the host's work (per step and per sequence)
    # runs beside it, and the step is the longer of the two. Derived here from the fitted values alone.
    p = params_for("h100", "vllm", "gqa")
    e = decode_estimate("llama-3.1-8b", "h100", 1, "tp", "bf16", "bf16", 1, 1024)
    weights = 8_030_261_248 * 2
    # KV read: 32 layers x 1,024 tokens; written: 32 layers x 1 token; 4,096 B each.
    kv = (32 * 1024 + 32) * 4096
    memory = (weights + kv) / (p.bw_fraction * 3.35e12)
    gpu = memory + 32 * p.layer_overhead_s
    host = p.step_overhead_s + p.sequence_overhead_s
    assert e.graphed and gpu > host  # the GPU is the critical path: the host's work is hidden
    assert e.step_s == pytest.approx(max(gpu, host), rel=1e-9)


def test_the_band_is_the_step_over_the_cross_validated_ratios():
    # The ratio is predicted / measured, so the measured step lies between step / p90 and step / p10.
    e = decode_estimate("gpt-oss-120b", "h200", 1, "tp", "mxfp4", "bf16", 32, 2048)
    p10, p90, source = band_for("h200")
    assert (e.low_s, e.high_s) == (pytest.approx(e.step_s / p90), pytest.approx(e.step_s / p10))
    assert e.low_s <= e.high_s and source == e.band_from == "its own runs of deepseek-v3 and gpt-oss-120b"


def test_a_model_never_measured_says_so_in_its_band():
    e = decode_estimate("llama-3.1-8b", "h100", 1, "tp", "bf16", "bf16", 8, 1024)
    assert "none of llama-3.1-8b" in e.band_from


def test_a_gpu_with_no_runs_takes_its_family_band_and_says_so():
    e = decode_estimate("gpt-oss-120b", "b300", 1, "tp", "mxfp4", "bf16", 8, 1024)
    assert e.band_from.startswith("its family's (blackwell)")


@pytest.mark.parametrize("gpu", ["h100", "b200", "mi300x"])
def test_a_dense_estimate_is_never_below_the_floor(gpu):
    # The floor reads the same bytes at the full spec bandwidth and adds nothing; the estimate divides each
    # class by a fraction in (0, 1] and adds fixed costs, so it cannot come in under it.
    s = scenario("llama-3.1-70b", gpu, gpus=4, seq_len=4096, batch=32)
    assert s.estimated_step_s >= s.decode_step_s
    assert s.estimated_tokens_per_s_per_user == pytest.approx(1 / s.estimated_step_s)
    assert s.estimated_output_tokens_per_s_per_gpu == pytest.approx(32 / s.estimated_step_s / 4)


def test_no_estimate_without_parameters():
    assert "no family" in scenario("llama-3.1-8b", "a100", gpus=1, batch=8).estimate_unavailable
    custom = dataclasses.replace(get_gpu("h100"), key="my-gpu", name="My GPU")
    s = scenario("llama-3.1-8b", custom, gpus=1, batch=8)
    assert s.estimated_step_s is None and "custom GPU" in s.estimate_unavailable
    assert s.decode_step_s is not None  # the floor still stands


def test_an_unknown_engine_is_one_line():
    with pytest.raises(InputError, match="engine must be one of vllm, sglang, trt, atom"):
        scenario("llama-3.1-8b", "h100", gpus=1, batch=8, engine="tgi")
