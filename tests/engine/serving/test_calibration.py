"""The calibration: its file matches the measured data it was fitted to, its parameters are physical, the
fitter recovers parameters it is given, and a GPU with no measured runs takes its family's values."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from macros.engine.calibration import fitting
from macros.engine.calibration.measured import runs
from macros.engine.calibration.report import edge
from macros.engine.serving.calibration import (
    BY_NAME,
    PARAMETERS,
    PATH,
    band_for,
    calibration,
    fitted_slots,
    params_for,
    scopes,
    slots,
)
from macros.engine.specs import SpecError


def test_every_fitted_value_lies_in_its_band_and_every_fraction_in_use_is_physical():
    # Each value inside the band its prior's sources give; each parameter cites where its prior comes from.
    for p in PARAMETERS:
        assert p.prior, p.name
        for key in scopes(p):
            start, low, high = p.band(key)
            assert low < start < high, (p.name, key)
            assert low <= calibration().values[(p.name, key)] <= high, (p.name, key)
    # What a replica runs with: achieved fractions in (0, 1] (the engine's share times the family's is capped
    # at 1), fixed costs and latencies positive.
    for gpu in ("h100", "b200", "mi300x", "mi355x"):
        for engine in ("vllm", "sglang", "trt", "atom"):
            for attention in ("gqa", "mla"):
                p = params_for(gpu, engine, attention)
                for f in dataclasses.fields(p):
                    v = getattr(p, f.name)
                    assert (0 < v <= 1) if f.name.endswith("fraction") else v >= 0, (gpu, engine, f.name, v)


def test_the_model_has_at_most_forty_fitted_values_and_holds_the_rest_at_their_priors():
    # Four families x five (bandwidth, GEMMs, attention, a hop, a layer): 20 (MI300X's hop too: its MLPerf rows
    # run on one GPU, with no all-reduce, so they tell its layer cost from its eight-GPU runs' hops). Engines:
    # kernels and a layer's fixed cost for three each (vLLM's are the reference) and the request overhead for
    # four: 10. Shared: grouped GEMMs, MLA's layer ratio, eager layers, prompt tokens: 4 (the step's and the
    # sequence's host work are hidden in every run, and no run nears the API server's cap on requests, so those three
    # are held). MLPerf's mean prompts: all three (the 405B's from one system's Offline row and five systems' Server
    # rows). 37 fitted, 5 held.
    assert (len(fitted_slots()), len(slots())) == (37, 42)
    for name, key in set(slots()) - set(fitted_slots()):
        assert calibration().values[(name, key)] == BY_NAME[name].band(key)[0] and BY_NAME[name].why_fixed


def test_a_held_value_that_moved_is_refused(tmp_path):
    # vLLM's kernel factor is the reference, 1 by definition: a file that says otherwise is stale.
    text = PATH.read_text()
    table = text[text.index("[parameters.kernel_fraction]"):]
    edited = text.replace(table, table.replace("vllm = 1.0\n", "vllm = 0.9\n", 1), 1)
    assert edited != text
    (tmp_path / "c.toml").write_text(edited)
    with pytest.raises(SpecError, match=r"kernel_fraction\] vllm: 0.9 should be held at its prior 1"):
        calibration(tmp_path / "c.toml")


def test_a_gpu_without_measured_runs_takes_its_familys_parameters_and_says_so():
    # The MI325X has no runs in the file; it is CDNA 3, like the MI300X, and gets the MI300X's values.
    assert "mi325x" not in calibration().measured_gpus
    assert params_for("mi325x", "sglang", "mla") == params_for("mi300x", "sglang", "mla")
    low, high, basis = band_for("mi325x")
    assert low <= high and basis == "its family's (cdna3) runs of deepseek-v3: mi325x has none"
    assert band_for("mi300x")[2] == "its own runs of deepseek-v3"


def test_the_fitter_recovers_the_parameters_that_made_its_data():
    # One series (B200, vLLM, GPT-OSS at TP 2, 1k/1k, six concurrencies): its "measurements" are made by the
    # equilibrium model at known parameters (the starting values with bandwidth at 0.7, GEMMs at 0.8, a
    # 70 us layer and a 5 us hop of a collective). Fitted from the starting values with no pull towards them,
    # the predictions must come back to the data, and what one series can tell apart to its value: the
    # bandwidth (from how TPOT grows with the batch) and the fixed cost of a step, step overhead + 36 layers
    # + 72 all-reduces x 2 hops (constant per step, so one TP size cannot split it into its three parts).
    d = fitting.fit_data([r for r in runs() if r.series == "b200/gpt-oss-120b/vllm/mxfp4/tp2-ep1-tp/1024-1024"])
    rows = np.arange(len(d.runs))
    assert len(rows) == 6
    start = {(n, k): BY_NAME[n].band(k)[0] for n, k in slots()}
    truth = {**start, ("bw_fraction", "blackwell"): 0.7, ("layer_overhead_s", "blackwell"): 70e-6,
             ("link_latency_s", "blackwell"): 5e-6, ("gemm_fraction", "blackwell"): 0.8}
    made = dataclasses.replace(d, measured=fitting.steady_predictions(d, truth))
    factors = np.ones((len(d.runs), len(fitting.METRICS)))
    # Free: what the truth changed, and what competes with it for the same effect (the experts' compute; the
    # step's and per-sequence host costs are held at their priors); everything else stays at its (true) start.
    free = {("bw_fraction", "blackwell"), ("layer_overhead_s", "blackwell"), ("link_latency_s", "blackwell"),
            ("gemm_fraction", "blackwell"), ("grouped_gemm_ratio", "all")}
    got = fitting.fit(made, factors, start, rows, start, prior_weight=0.0, free=free)
    back = fitting.steady_predictions(made, got)[rows]
    assert np.allclose(back, made.measured[rows], rtol=1e-3)
    assert got[("bw_fraction", "blackwell")] == pytest.approx(0.7, rel=0.02)
    def fixed(v: dict) -> float:
        return (v[("step_overhead_s", "all")] + 36 * v[("layer_overhead_s", "blackwell")]
                + 144 * v[("link_latency_s", "blackwell")])

    assert fixed(got) == pytest.approx(fixed(truth), rel=0.02)
    # Parameters of other families and engines are not touched by these runs.
    assert got[("bw_fraction", "hopper")] == start[("bw_fraction", "hopper")]


def test_a_value_within_a_hundredth_of_its_band_from_an_edge_sits_on_it():
    # bw_fraction's band is 0.65 to 0.96, 0.31 wide: within 0.0031 of an edge is on it.
    p = BY_NAME["bw_fraction"]
    assert (p.low, p.high) == (0.65, 0.96)
    assert (edge(p, 0.958), edge(p, 0.652), edge(p, 0.95), edge(p, 0.66)) == ("upper", "lower", "", "")
    # A parameter with a band per key: Llama 2 70B's mean prompt, 150 to 1,000 tokens (850 wide: 8.5 from an
    # edge is on it); the 8B's band, 700 to 1,600, puts 705 on its lower edge but not 715.
    p = BY_NAME["prompt_tokens"]
    assert (edge(p, 158, "llama-2-70b"), edge(p, 160, "llama-2-70b"), edge(p, 992, "llama-2-70b")) == ("lower", "",
                                                                                                       "upper")
    assert (edge(p, 705, "llama-3.1-8b"), edge(p, 715, "llama-3.1-8b")) == ("lower", "")


def test_the_fit_lists_at_an_edge_exactly_the_values_the_rule_puts_there():
    # One rule for calibrate's list (on the page's prose) and the page's table.
    cal = calibration()
    on_edge = [f"{n} {k}" for (n, k), v in cal.values.items() if (n, k) in fitted_slots() and edge(BY_NAME[n], v, k)]
    assert sorted(on_edge) == sorted(cal.raw["edges"]["at_edge"])


def test_the_identification_finds_what_one_series_cannot_tell_apart():
    # The same single series as above, measured as the model at the starting values, each run off by a
    # deterministic +-2 % (so the errors have a variance). One TP size adds 36 layers' fixed cost and 144
    # hops to every step alike, so the layer's cost and the hop's latency trade one for the other: their
    # correlation is near -1, and neither is pinned on its own; the bandwidth, which sets how TPOT grows
    # with the batch, is.
    d = fitting.fit_data([r for r in runs() if r.series == "b200/gpt-oss-120b/vllm/mxfp4/tp2-ep1-tp/1024-1024"])
    start = {(n, k): BY_NAME[n].band(k)[0] for n, k in slots()}
    wobble = np.where(np.arange(len(d.runs)) % 2 == 0, 1.02, 0.98)[:, None]
    made = dataclasses.replace(d, measured=fitting.steady_predictions(d, start) * wobble)
    keys, se, corr = fitting.identification(made, np.ones((len(d.runs), len(fitting.METRICS))), start)
    at = {k: i for i, k in enumerate(keys)}
    layer, hop, bw = at[("layer_overhead_s", "blackwell")], at[("link_latency_s", "blackwell")], \
        at[("bw_fraction", "blackwell")]
    assert corr[layer, hop] < -0.95
    assert se[bw] < se[layer] and se[bw] < se[hop]
    assert ("bw_fraction", "hopper") not in at  # no run of this series depends on a Hopper value
