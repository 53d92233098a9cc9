"""MLPerf's Server rows in the fit (macros/engine/calibration/server_fit.py): the open loop's equilibrium carries the
rate it is given (Little's law) until the engine's running cap saturates, the surrogate's highest rate sits where the
tighter p99 bound binds, and the linear form the least squares reads is the surrogate at and one step from its
point."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from macros.engine.calibration import cross_validation, fitting, server_fit
from macros.engine.calibration.mlperf import mlperf_runs
from macros.engine.serving.calibration import calibration, step_params
from macros.engine.serving.steady import equilibrium
from macros.engine.serving.step import costs

B200_70B_SERVER = "v5.1/NVIDIA/B200-SXM-180GBx8_TRT/llama2-70b-99/Server"


@pytest.fixture(scope="module")
def sd():
    rows = [r for r in mlperf_runs() if not r.offline and not r.excluded]
    return server_fit.server_data(rows)


def _one(sd, row_id):
    i = next(n for n, r in enumerate(sd.runs) if r.id == row_id)
    pick = np.array([i])

    def rows(x):
        return dataclasses.replace(x, **{f.name: np.asarray(getattr(x, f.name))[pick] for f in dataclasses.fields(x)})
    return dataclasses.replace(sd, runs=[sd.runs[i]], queries=[sd.queries[i]], prepared=[sd.prepared[i]],
                               stacked=rows(sd.stacked), setup=rows(sd.setup), family=sd.family[pick],
                               engine=sd.engine[pick], attention=sd.attention[pick], series=sd.series[pick],
                               benchmark=sd.benchmark[pick], measured=sd.measured[pick],
                               ttft_bound=sd.ttft_bound[pick], tpot_bound=sd.tpot_bound[pick])


def test_the_open_loop_carries_its_rate_until_the_running_cap_saturates(sd):
    # Little's law: at a rate X below saturation, the replica holds X x E2E requests and serves X a second; its
    # decodes number X (O - 1) TPOT. At 1,000 x the submitter's rate the cap (2,048 sequences) binds, and the
    # replica serves only cap / E2E, less than it is sent.
    one = _one(sd, B200_70B_SERVER)
    v = calibration().values
    p = step_params(v, one.family, one.engine, one.attention)
    c = costs(one.stacked, p)
    for rate in (one.measured / 4, one.measured / 2):
        eq = equilibrium(c, one.setup, rate=rate)
        assert eq.requests_per_s == pytest.approx(rate, rel=1e-6)
        assert eq.decode_batch == pytest.approx(rate * (one.setup.output - 1) * eq.tpot_s, rel=1e-3)
    flood = one.measured * 1000
    eq = equilibrium(c, one.setup, rate=flood)
    e2e = eq.ttft_s + (one.setup.output - 1) * eq.tpot_s
    assert one.setup.concurrency[0] == 2048
    assert eq.requests_per_s == pytest.approx(2048 / e2e, rel=1e-6) and eq.requests_per_s[0] < flood[0]
    assert server_fit.open_loop(one, v, flood)[2][0]


def test_the_surrogate_s_highest_rate_is_where_the_tighter_bound_binds(sd):
    # At the rate it returns, the scaled p99 of the binding metric equals its bound (a margin of 0 in log); a looser
    # TTFT bound never lowers it, and factors twice as large (a longer tail at the same mean) lower it.
    one = _one(sd, B200_70B_SERVER)
    v = calibration().values
    factors = np.array([[3.0, 2.0]])
    rate = server_fit.surrogate_capacity(one, v, factors)
    assert abs(server_fit._margin(one, v, factors, np.log(rate))[0]) < 1e-3
    looser = dataclasses.replace(one, ttft_bound=one.ttft_bound * 2)
    assert server_fit.surrogate_capacity(looser, v, factors)[0] >= rate[0] * (1 - 1e-6)
    assert server_fit.surrogate_capacity(one, v, factors * 2)[0] < rate[0]


def test_the_linear_form_is_the_surrogate_at_its_point_and_one_step_away(sd):
    # Forward differences of 0.05 in a key's log: at the point the residual is the surrogate's log error, and one
    # step along a key it is the surrogate's there (the difference was taken over exactly that step).
    one = _one(sd, B200_70B_SERVER)
    v = dict(calibration().values)
    factors = np.array([[3.0, 2.0]])
    key = ("gemm_fraction", "blackwell")
    lin = server_fit.linearized(one, v, factors, [key, ("bw_fraction", "blackwell")])
    exact = np.log(server_fit.surrogate_capacity(one, v, factors) / one.measured)
    assert lin.residual(v) == pytest.approx(exact)
    moved = {**v, key: v[key] * math.exp(0.05)}
    assert lin.residual(moved) == pytest.approx(np.log(server_fit.surrogate_capacity(one, moved, factors)
                                                       / one.measured))


def test_a_system_s_server_rows_are_folded_with_its_offline_row(sd):
    # Cross-validation by system: the fold that leaves a system out leaves out its Server rows too, and a system
    # whose Offline row the model cannot run still gets a fold of its own.
    d = fitting.fit_data([r for r in mlperf_runs() if r.offline])
    groups = cross_validation.folds(d, None, sd.series)
    assert sorted(s for g in groups for s in g) == sorted(set(d.series) | set(sd.series))
    interactive = next(r for r in sd.runs if r.id.endswith("8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"))
    assert interactive.series not in set(d.series) and [interactive.series] in groups
