#!/usr/bin/env python3
"""Fit the serving model's parameters to the measured runs and write macros/data/calibration.toml
(`make calibrate`; ARCHITECTURE.md, the serving model). The site build only reads that file.

    python3 tools/calibrate.py [--folds K] [--out PATH] [--workers N]

Fits on every run the model covers (macros/engine/calibration/fitting.py says how), then cross-validates by
whole series (each series left out and predicted by a refit that never saw it; --folds K groups the
series into K folds instead, for a quicker look), and writes the values, their bounds, the data's hash,
the date, the residuals by GPU, model and engine, the runs left out and why, and each run's predictions. MLPerf's
Server and Interactive rows are in the fit and its cross-validation (calibration/server_fit.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

# One BLAS thread: the work runs a process per core (calibration/parallel.py), and a fixed thread count keeps the
# order of the least squares' sums, and so its values, the same on any machine.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from macros.engine.calibration import cross_validation, fitting, parallel  # noqa: E402
from macros.engine.calibration.measured import PATH as DATA  # noqa: E402
from macros.engine.calibration.measured import data_hash, runs  # noqa: E402
from macros.engine.calibration.mlperf import PATH as MLPERF  # noqa: E402
from macros.engine.calibration.mlperf import TOLERANCE, mlperf_runs  # noqa: E402
from macros.engine.calibration.report import edge, scores  # noqa: E402
from macros.engine.calibration.server_fit import ServerData, server_data, within_share  # noqa: E402
from macros.engine.serving.calibration import (  # noqa: E402
    BY_NAME,
    PARAMETERS,
    PATH,
    PROMPT_TOKENS,
    fitted_slots,
    scopes,
    slots,
)
from macros.engine.specs import display_path  # noqa: E402

TARGETS = "TPOT within 15 % on 90 % and median |log error| <= 0.05; tokens/s per GPU within 15 % on 90 %; " \
          "TTFT within a factor 1.5 on 80 %; p99 TPOT within 25 % on 70 %"


def _toml(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(float(f"{value:.6g}")) if math.isfinite(value) else '"nan"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def _table(lines: list[str], name: str, items: dict[str, object]) -> None:
    lines.append(f"\n[{name}]")
    lines.extend(f"{_key(k)} = {_toml(v)}" for k, v in items.items())


def _key(k: str) -> str:
    """A bare key is letters, digits, - and _; any other (a model's "llama-3.1-8b") is quoted, as TOML requires."""
    return k if re.fullmatch(r'[A-Za-z0-9_-]+|"[^"]*"', k) else _toml(k)


def within(pred: np.ndarray, meas: np.ndarray, factor: float) -> float:
    return fitting.within(pred, meas, factor) if len(meas) else math.nan


def throughput_scores(pred: np.ndarray, meas: np.ndarray) -> dict[str, object]:
    """Output tokens/s per GPU, predicted against measured, for runs that measured nothing else."""
    ratio = pred / meas
    return {"runs": int(len(meas)), "output_per_gpu_within_15pct": within(pred, meas, 1.15),
            "output_per_gpu_within_20pct": within(pred, meas, TOLERANCE),
            "output_per_gpu_within_25pct": within(pred, meas, 1.25),
            "output_per_gpu_median_abs_log_error": float(np.median(np.abs(np.log(ratio)))),
            "output_per_gpu_ratio_p10_p50_p90": [float(q) for q in np.quantile(ratio, [0.1, 0.5, 0.9])]}


INPUT_SCALES = (0.5, 0.75, 1.0, 1.5)  # the fitted mean prompts of MLPerf's datasets, scaled: none is published


def input_sensitivity(lines: list[str], values: dict) -> None:
    """How the MLPerf Offline comparison moves with the mean prompt lengths around the fitted ones, at the fitted
    values (not refitted): the median predicted / measured and the share within 20 %, at each scale."""
    # the rows at their fitted prompts, scaled; simulated with values that carry no prompts, which would replace them
    steps = {k: x for k, x in values.items() if k[0] != PROMPT_TOKENS}
    for scale in INPUT_SCALES:
        scaled = [dataclasses.replace(r, isl=round(r.isl * scale)) for r in
                  (fitting.as_fitted(r, values) for r in mlperf_runs() if r.offline and not r.excluded)]
        d = fitting.fit_data(scaled)
        ratio = fitting.simulated(d, steps)[:, 2] / d.measured[:, 2]
        lines.append("\n[[mlperf.input_sensitivity]]")
        lines.append(f"input_scale = {_toml(scale)}\nrows = {len(ratio)}")
        lines.append(f"median_ratio = {_toml(float(np.median(ratio)))}")
        lines.append(f"within_20pct = {_toml(within(ratio, np.ones_like(ratio), TOLERANCE))}")


def write_mlperf(lines: list[str], d: fitting.FitData, rows: np.ndarray, cv: np.ndarray, sim: np.ndarray) -> None:
    """The MLPerf rows: throughput scores overall and by GPU, engine and model, and each row's figures."""
    meas = d.measured[rows, 2]
    _table(lines, "mlperf.cross_validation.all", throughput_scores(cv[rows, 2], meas))
    _table(lines, "mlperf.in_sample.all", throughput_scores(sim[rows, 2], meas))
    for label, key in (("gpu", lambda r: r.gpu), ("engine", lambda r: r.engine), ("model", lambda r: r.model)):
        groups: dict[str, list[int]] = defaultdict(list)
        for n, i in enumerate(rows):
            groups[key(d.runs[i])].append(n)
        for name, where in sorted(groups.items()):
            _table(lines, f"mlperf.cross_validation.by_{label}.{name}", throughput_scores(cv[rows[where], 2],
                                                                                         meas[where]))


def write_identification(lines: list[str], d: fitting.FitData, factors: np.ndarray, values: dict) -> None:
    """What the data pin (fitting.identification): each value's relative standard error, and the pairs of
    parameters the data trade against each other, strongest first."""
    keys, se, corr = fitting.identification(d, factors, values)
    _table(lines, "identification", {
        "method": "central differences of the data's log errors in each parameter's log, at the fitted values, "
                  "without the pull towards the priors; standard errors from (J'J)^-1 times the log errors' "
                  "variance, as plain least squares would give them",
        **{f'"{n} {key}"': float(e) for (n, key), e in zip(keys, se)}})
    pairs = sorted(((float(corr[i, j]), keys[i], keys[j]) for i in range(len(keys)) for j in range(i + 1, len(keys))
                    if abs(corr[i, j]) >= fitting.STRONG_CORRELATION), key=lambda t: -abs(t[0]))
    for r, a, b in pairs:
        lines.append("\n[[identification_pair]]")
        lines.append(f"a = {_toml(' '.join(a))}\nb = {_toml(' '.join(b))}\ncorrelation = {_toml(r)}")


def by_source(d: fitting.FitData) -> tuple[np.ndarray, np.ndarray]:
    """The fitted runs' rows from InferenceMAX and from MLPerf."""
    sources = np.array([r.source for r in d.runs])
    return np.flatnonzero(sources == "inferencemax"), np.flatnonzero(sources == "mlperf")


def write(path: Path, d: fitting.FitData, values: dict, factors: np.ndarray, cv: np.ndarray, sim: np.ndarray,
          k: int | None, seconds: float, server: tuple[ServerData, np.ndarray, np.ndarray]) -> None:
    p99 = np.array([r.p99_tpot_s for r in d.runs])
    ix, mlp = by_source(d)
    lines = ["# The serving model's fitted parameters and how well they predict runs they were not fitted on.",
             "# Written by `make calibrate` (tools/calibrate.py); do not edit by hand: a test fails when the",
             "# measured file's hash no longer matches, and the build reads this file as it is (ARCHITECTURE.md)."]
    _table(lines, "data", {
        "file": display_path(DATA), "sha256": data_hash(), "date": datetime.date.today().isoformat(),
        "mlperf_file": display_path(MLPERF), "mlperf_sha256": data_hash(MLPERF),
        "runs": sum(r.source == "inferencemax" for r in (*d.runs, *(r for r, _ in d.left_out))),
        "fitted": len(ix), "series": len({d.series[i] for i in ix}),
        "mlperf_rows": sum(r.source == "mlperf" for r in (*d.runs, *(r for r, _ in d.left_out))),
        "mlperf_fitted": len(mlp), "mlperf_systems": len({d.series[i] for i in mlp}),
        "parameters": len(fitted_slots()), "held_at_prior": len(slots()) - len(fitted_slots()),
        "gpus": sorted({d.runs[i].gpu for i in ix}), "seconds": round(seconds, 1),
        "method": f"scipy.optimize.least_squares (loss {fitting.LOSS}, scale {fitting.LOSS_SCALE}) on the log error "
                  "of median TPOT, median TTFT and output tokens/s "
                  "per GPU, over the closed loop's equilibrium under the step model times the simulator's own "
                  f"factor per run (refreshed {fitting.ROUNDS} times), and on the log of MLPerf's Server rows' "
                  "highest rate inside their p99 bounds over the submitter's, under the open loop's equilibrium "
                  "with the simulator's p99 over its mean as the factor (linear in the parameters' logs within a "
                  f"round); a pull of weight {fitting.PRIOR_WEIGHT} towards each starting value",
        "cross_validation": "each series left out, refitted without it, simulated" if k is None else
                            f"{k} folds of whole series (dealt round-robin from the sorted series), each refitted "
                            "without its series, which are then simulated",
        "series_definition": "one GPU, model, engine, precision, tensor/expert parallelism, layout and pair of "
                             "lengths, across its concurrencies",
        "targets": TARGETS,
    })
    for p in PARAMETERS:
        bands = ({"start": p.start, "low": p.low, "high": p.high} if not p.per_key else
                 {f"band {key}": list(p.band(key)) for key in scopes(p)})  # [start, low, high] per key
        _table(lines, f"parameters.{p.name}", {"meaning": p.meaning, "scope": p.scope, **bands, "prior": p.prior,
                                                **({"fixed": list(p.fixed), "why_fixed": p.why_fixed} if p.fixed
                                                   else {}),
                                                **{key: values[(p.name, key)] for key in scopes(p)}})
    write_mlperf(lines, d, mlp, cv, sim)
    write_server(lines, *server)
    input_sensitivity(lines, values)
    all_cv, all_sim = cv, sim
    at_edge = [f"{n} {key}" for (n, key), v in values.items()
               if (n, key) in fitted_slots() and edge(BY_NAME[n], v, key)]
    _table(lines, "edges", {"at_edge": at_edge})
    write_identification(lines, d, factors, values)
    all_runs, d = d, fitting.subset(d, ix)
    cv, sim, p99 = cv[ix], sim[ix], p99[ix]
    _table(lines, "cross_validation.all", scores(cv, d.measured, p99))
    _table(lines, "in_sample.all", scores(sim, d.measured, p99))
    for label, keys in (("gpu", [r.gpu for r in d.runs]), ("model", [r.model for r in d.runs]),
                        ("engine", [r.engine for r in d.runs]), ("family", list(d.family))):
        groups: dict[str, list[int]] = defaultdict(list)
        for i, key in enumerate(keys):
            groups[key].append(i)
        for key, rows in sorted(groups.items()):
            _table(lines, f"cross_validation.by_{label}.{key}", scores(cv[rows], d.measured[rows], p99[rows]))
    gpus = np.array([r.gpu for r in d.runs])
    for key, rows in [*((fam, np.flatnonzero(d.family == fam)) for fam in sorted(set(d.family))),
                      *((gpu, np.flatnonzero(gpus == gpu)) for gpu in sorted(set(gpus)))]:
        band = [float(q) for q in np.quantile(cv[rows, 0] / d.measured[rows, 0], [0.1, 0.9])]
        _table(lines, f"band.{key}", {"tpot_ratio_p10_p90": band, "runs": len(rows)})
    reasons: dict[str, list[str]] = defaultdict(list)
    for r, why in d.left_out:  # MLPerf's rows left out are listed on its own section, from mlperf.py
        if r.source == "inferencemax":
            reasons[why].append(r.id)
    for n, (why, ids) in enumerate(sorted(reasons.items())):
        _table(lines, f"left_out.reason{n + 1}", {"why": why, "count": len(ids), "ids": ids})
    for i, r in enumerate(all_runs.runs):
        if r.source == "mlperf":
            lines.append("\n[[mlperf_run]]")
            lines.append(f"id = {_toml(r.id)}\nsystem = {_toml(r.series)}\nscenario = {_toml(r.scenario)}")
            lines.append(f"cv = {_toml(float(all_cv[i, 2]))}  # out/s/GPU\nfit = {_toml(float(all_sim[i, 2]))}")
    for i, r in enumerate(d.runs):
        lines.append("\n[[run]]")
        lines.append(f"id = {_toml(r.id)}\nseries = {_toml(r.series)}\nconcurrency = {r.concurrency}")
        lines.append("cv = " + _toml([float(x) for x in cv[i]]) + "  # median TPOT, median TTFT, out/s/GPU, p99 TPOT")
        lines.append("fit = " + _toml([float(x) for x in sim[i]]))
    path.write_text("\n".join(lines) + "\n")


def write_server(lines: list[str], sd: ServerData, cv: np.ndarray, fit: np.ndarray) -> None:
    """MLPerf's Server and Interactive rows: the highest rate per replica inside each row's p99 bounds, simulated with
    the parameters of a fit that never saw the row's system (cv) and of the full fit, over the submitter's rate (a valid
    run at it proves at least that much). A replica that misses the bounds even unloaded has no rate (0)."""
    ok = cv[cv > 0] / sd.measured[cv > 0]
    _table(lines, "mlperf.server", {
        "rows": len(sd.runs), "highest_rate_within_20pct": within_share(sd, cv),
        "in_sample_within_20pct": within_share(sd, fit),
        "rate_ratio_p10_p50_p90": [float(q) for q in np.quantile(ok, [0.1, 0.5, 0.9])]})
    for r, c, f, m in zip(sd.runs, cv, fit, sd.measured):
        lines += ["\n[[mlperf_server]]", f"id = {_toml(r.id)}", f"system = {_toml(r.series)}",
                  f"model_rate_per_replica = {_toml(float(c))}", f"fit_rate_per_replica = {_toml(float(f))}",
                  f"measured_rate_per_replica = {_toml(float(m))}"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folds", type=int, help="group the series into this many folds (default: one per series)")
    ap.add_argument("--out", type=Path, default=PATH, help=f"where to write (default {display_path(PATH)})")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes for the simulations and the folds (default: one per core); the values do not "
                         "depend on it")
    args = ap.parse_args()
    parallel.WORKERS = max(1, args.workers)
    began = time.time()
    d = fitting.fit_data((*runs(), *(r for r in mlperf_runs() if r.offline)))
    print(f"{len(d.runs)} runs in {len(set(d.series))} series; {len(d.left_out)} left out")
    start = {(n, key): BY_NAME[n].band(key)[0] for n, key in slots()}
    sd = server_data([r for r in mlperf_runs() if not r.offline and not r.excluded])
    values, factors, sim, (served, server) = fitting.calibrate(d, start, sd=sd)
    cv, server_cv = cross_validation.cross_validate(d, values, factors, start, args.folds, sd=sd, server=server)
    seconds = time.time() - began
    write(args.out, d, values, factors, cv, sim, args.folds, seconds, (sd, server_cv, served[0]))
    ix, mlp = by_source(d)
    s = scores(cv[ix], d.measured[ix], np.array([d.runs[i].p99_tpot_s for i in ix]))
    m = throughput_scores(cv[mlp, 2], d.measured[mlp, 2])
    print(f"MLPerf offline, cross-validated by system: out/s/GPU within 20 % {m['output_per_gpu_within_20pct']:.1%}, "
          f"ratio p10/p50/p90 {m['output_per_gpu_ratio_p10_p50_p90']}")
    print(f"cross-validated: TPOT within 15 % {s['tpot_within_15pct']:.1%}, median |log| "
          f"{s['tpot_median_abs_log_error']:.3f}; out/s/GPU within 15 % {s['output_per_gpu_within_15pct']:.1%}; "
          f"TTFT within 1.5x {s['ttft_within_factor_1_5']:.1%}; p99 TPOT within 25 % {s['p99_tpot_within_25pct']:.1%}")
    print(f"MLPerf Server, cross-validated by system: highest rate within 20 % on {within_share(sd, server_cv):.1%} "
          f"of {len(sd.runs)} rows")
    print(f"wrote {display_path(args.out)} in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
