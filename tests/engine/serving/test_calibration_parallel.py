"""The calibration's pieces of work on several processes give exactly the serial answers
(macros/engine/calibration/parallel.py): the simulations are seeded and read only their own inputs, so a worker
that computes them gives the same floats in the same order, and the fit cannot depend on the machine's cores."""

from __future__ import annotations

import numpy as np
import pytest

from macros.engine.calibration import cross_validation, fitting, parallel, server_fit
from macros.engine.calibration.measured import runs
from macros.engine.calibration.mlperf import mlperf_runs
from macros.engine.serving.calibration import calibration

SERIES = ("b200/gpt-oss-120b/vllm/mxfp4/tp2-ep1-tp/1024-1024", "h200/gpt-oss-120b/vllm/mxfp4/tp2-ep1-tp/1024-1024")


@pytest.fixture
def workers(monkeypatch):
    def use(n: int) -> None:
        monkeypatch.setattr(parallel, "WORKERS", n)
    return use


def _square_plus(shared: int, item: int) -> int:
    return item * item + shared


def test_the_map_keeps_the_items_order_and_hands_each_worker_the_shared_input(workers):
    workers(2)
    assert list(parallel.map_shared(_square_plus, 10, range(7))) == [10, 11, 14, 19, 26, 35, 46]
    assert parallel._shared is None  # released once the map is done


@pytest.mark.slow
def test_simulations_and_folds_on_two_workers_equal_the_serial_ones(workers):
    d = fitting.fit_data([r for r in runs() if r.series in SERIES])
    assert len(set(d.series)) == 2
    values = dict(calibration().values)
    factors = np.ones((len(d.runs), len(fitting.METRICS)))
    results = {}
    for n in (1, 2):
        workers(n)
        sim = fitting.simulated(d, values)
        cv, _ = cross_validation.cross_validate(d, values, factors, values, log=lambda _: None)
        results[n] = sim, cv
    assert np.isfinite(results[1][0]).all()
    np.testing.assert_array_equal(results[1][0], results[2][0])
    np.testing.assert_array_equal(results[1][1], results[2][1])


@pytest.mark.slow
def test_server_rows_capacities_on_two_workers_equal_the_serial_ones(workers):
    # MI300X's two Interactive rows: the quickest searches (about a second each)
    rows = [r for r in mlperf_runs() if not r.offline and not r.excluded and "MI300X" in r.id
            and r.id.endswith("/Interactive")]
    assert len(rows) == 2
    sd = server_fit.server_data(rows)
    values = dict(calibration().values)
    found = {}
    for n in (1, 2):
        workers(n)
        found[n] = server_fit.simulated_rates(sd, values)
    assert (found[1][0] > 0).all()
    np.testing.assert_array_equal(found[1][0], found[2][0])
    np.testing.assert_array_equal(found[1][1], found[2][1])
