"""The calibration: its file matches the measured data it was fitted to, its parameters are physical, the
fitter recovers parameters it is given, and a GPU with no measured runs takes its family's values."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from macros.engine.calibration import fitting
from macros.engine.calibration.measured import runs
from macros.engine.serving.calibration import BY_NAME, PARAMETERS, band_for, calibration, params_for, scopes, slots


def test_every_fitted_parameter_is_physical():
    # Achieved fractions in (0, 1]; fixed costs and latencies >= 0; the MLA layer ratio positive.
    for p in PARAMETERS:
        for key in scopes(p):
            v = calibration().values[(p.name, key)]
            if p.name.endswith("fraction"):
                assert 0 < v <= 1, (p.name, key, v)
            else:
                assert v >= 0, (p.name, key, v)


def test_a_gpu_without_measured_runs_takes_its_familys_parameters_and_says_so():
    # The MI325X has no runs in the file; it is CDNA 3, like the MI300X, and gets the MI300X's values.
    assert "mi325x" not in calibration().measured_gpus
    assert params_for("mi325x", "sglang", "mla") == params_for("mi300x", "sglang", "mla")
    low, high, basis = band_for("mi325x")
    assert low <= high and "cdna3" in basis and "no measured runs" in basis
    assert "own measured runs" in band_for("mi300x")[2]


def test_the_fitter_recovers_the_parameters_that_made_its_data():
    # One series (B200, vLLM, GPT-OSS at TP 2, 1k/1k, six concurrencies): its "measurements" are made by the
    # equilibrium model at known parameters (the starting values with bandwidth at 0.6, GEMMs at 0.8, a
    # 70 us layer and a 5 us hop of a collective). Fitted from the starting values with no pull towards them,
    # the predictions must come back to the data, and what one series can tell apart to its value: the
    # bandwidth (from how TPOT grows with the batch) and the fixed cost of a step, step overhead + 36 layers
    # + 72 all-reduces x 2 hops (constant per step, so one TP size cannot split it into its three parts).
    d = fitting.fit_data([r for r in runs() if r.series == "b200/gpt-oss-120b/vllm/mxfp4/tp2-ep1-tp/1024-1024"])
    rows = np.arange(len(d.runs))
    assert len(rows) == 6
    start = {(n, k): BY_NAME[n].start for n, k in slots()}
    truth = {**start, ("bw_fraction", "blackwell"): 0.6, ("layer_overhead_s", "blackwell"): 70e-6,
             ("link_latency_s", "blackwell"): 5e-6, ("gemm_fraction", "blackwell"): 0.8}
    made = dataclasses.replace(d, measured=fitting.steady_predictions(d, truth))
    factors = np.ones((len(d.runs), len(fitting.METRICS)))
    # Free: what the truth changed, and what competes with it for the same effect (the step and
    # per-sequence costs, the experts' compute); everything else stays at its (true) start.
    free = {("bw_fraction", "blackwell"), ("layer_overhead_s", "blackwell"), ("link_latency_s", "blackwell"),
            ("gemm_fraction", "blackwell"), ("moe_fraction", "blackwell"), ("step_overhead_s", "vllm"),
            ("sequence_overhead_s", "vllm")}
    got = fitting.fit(made, factors, start, rows, start, prior_weight=0.0, free=free)
    back = fitting.steady_predictions(made, got)[rows]
    assert np.allclose(back, made.measured[rows], rtol=1e-3)
    assert got[("bw_fraction", "blackwell")] == pytest.approx(0.6, rel=0.02)
    def fixed(v: dict) -> float:
        return (v[("step_overhead_s", "vllm")] + 36 * v[("layer_overhead_s", "blackwell")]
                + 144 * v[("link_latency_s", "blackwell")])

    assert fixed(got) == pytest.approx(fixed(truth), rel=0.02)
    # Parameters of other families and engines are not touched by these runs.
    assert got[("bw_fraction", "hopper")] == start[("bw_fraction", "hopper")]
