"""Cross-validation by whole series: each series (an InferenceMAX GPU, model, engine, precision, parallelism and
lengths across its concurrencies; an MLPerf submitter's system, its Offline and Server rows together) is left out
in turn, the parameters it informs are refitted on the rest, and the left-out series is simulated with them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from . import parallel, server_fit
from .fitting import METRICS, FitData, Values, fit, simulated, used_slots
from .server_fit import Linearized, ServerData


def folds(d: FitData, k: int | None = None, more: np.ndarray | None = None) -> list[list[str]]:
    """The series in k groups (every series alone when k is None): sorted, dealt round-robin, so that the
    series of one GPU or engine spread over the folds. `more`: series of further rows (MLPerf's Server rows)."""
    series = sorted(set(d.series) | (set() if more is None else set(more)))
    k = len(series) if k is None else k
    return [series[i::k] for i in range(k)]


def cross_validate(d: FitData, values: Values, factors: np.ndarray, start: Values, k: int | None = None,
                   log: Callable[[str], None] = print, sd: ServerData | None = None,
                   server: Linearized | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Leave each fold of whole series out, refit on the rest (from `values`, the factors fixed), simulate
    the left-out series with the refit: runs x (METRICS, p99 TPOT), each run predicted by a fit that never
    saw its series, and likewise MLPerf's Server rows' highest rates (a system's rows are one series). The refit
    moves the parameters whose scope covers the left-out series (its GPU family's, its engine's, the global ones):
    the rest keep the full fit's values, which the left-out series reaches only through those. Refitting every
    parameter instead took three to six times as long and moved the left-out series' predictions by at most 0.1 %
    (seven series checked, 2026-12-01). The folds run a worker each (parallel.py)."""
    out = np.full((len(d.runs), len(METRICS) + 1), np.nan)
    rates = None if sd is None else np.full(len(sd.runs), np.nan)
    groups = folds(d, k, None if sd is None else sd.series)
    shared = (d, values, factors, start, sd, server)
    for n, (held, predicted, held_s, found) in enumerate(parallel.map_shared(_fold, shared, groups)):
        out[held] = predicted
        if rates is not None:
            rates[held_s] = found
        if (n + 1) % 10 == 0 or n + 1 == len(groups):
            log(f"cross-validation: {n + 1} of {len(groups)} folds")
    return out, rates


def _fold(shared: tuple, group: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float]]:
    """One fold: its runs' rows and their predictions, its Server rows and their rates, by a refit without them."""
    d, values, factors, start, sd, server = shared
    held = np.flatnonzero(np.isin(d.series, group))
    held_s = np.array([], int) if sd is None else np.flatnonzero(np.isin(sd.series, group))
    train = None if sd is None else dataclasses.replace(server, rows=np.flatnonzero(~np.isin(sd.series, group)))
    free = used_slots(d, held) | (used_slots(sd, held_s) if sd is not None else set())
    refit = fit(d, factors, values, np.flatnonzero(~np.isin(d.series, group)), start, free=free, server=train)
    predicted = simulated(d, refit, list(held))[held] if len(held) else np.zeros((0, len(METRICS) + 1))
    return held, predicted, held_s, [server_fit.simulated_capacity(sd, i, refit)[0] for i in held_s]
