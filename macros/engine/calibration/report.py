"""The serving model against the measured runs: each fitted run's measured figures beside the model's
cross-validated prediction and the roofline floor of the same configuration, the serving model's accuracy targets and
the figures that say whether each is met (ARCHITECTURE.md, the serving model).

Read from data/calibration.toml (one [[run]] per fitted run: its cross-validated predictions `cv` and its
in-sample ones `fit`) joined by id to the measured file (measured.py). Everything here is computed; the
pages and the drawings format it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..model import scenario as scen
from ..serving.calibration import PATH as CALIBRATION_PATH
from ..serving.calibration import Calibration, Parameter, calibration, params_for
from ..serving.lengths import RangeRatio
from ..serving.profiles import profile
from ..serving.replica import build_replica
from ..serving.step import costs
from ..specs import SpecError, display_path
from .fitting import within
from .measured import RANGE_RATIO, Run, runs

# The order of a [[run]]'s `cv` and `fit` arrays (tools/calibrate.py writes them so).
PREDICTED = ("median_tpot_s", "median_ttft_s", "output_tokens_per_s_per_gpu", "p99_tpot_s")


@dataclass(frozen=True)
class AccuracyTarget:
    """One accuracy target: at least `share` of the runs predicted within `factor` of
    the measured `metric`, or (share None) the median |log(predicted / measured)| of the metric at most
    `factor`."""

    key: str  # the figure's name in calibration.toml's summaries
    metric: str  # one of PREDICTED
    factor: float
    share: float | None

    def met(self, value: float) -> bool:
        return value >= self.share if self.share is not None else value <= self.factor


TARGETS = (
    AccuracyTarget("tpot_within_15pct", "median_tpot_s", 1.15, 0.9),
    AccuracyTarget("tpot_median_abs_log_error", "median_tpot_s", 0.05, None),
    AccuracyTarget("output_per_gpu_within_15pct", "output_tokens_per_s_per_gpu", 1.15, 0.9),
    AccuracyTarget("ttft_within_factor_1_5", "median_ttft_s", 1.5, 0.8),
    AccuracyTarget("p99_tpot_within_25pct", "p99_tpot_s", 1.25, 0.7),
)


@dataclass(frozen=True)
class Floors:
    """The roofline floor of a measured configuration, in the units of its measured figures; None
    where the concurrency does not fit the floor's KV budget."""

    tpot_s: float | None  # one decode step at the concurrency, every sequence at the mean context
    ttft_s: float  # the prefill of one mean prompt, alone on the replica
    output_tokens_per_s_per_gpu: float | None  # concurrency / decode step / GPUs: decode alone

    def get(self, metric: str) -> float | None:
        return {"median_tpot_s": self.tpot_s, "median_ttft_s": self.ttft_s, "p99_tpot_s": self.tpot_s,
                "output_tokens_per_s_per_gpu": self.output_tokens_per_s_per_gpu}[metric]


@dataclass(frozen=True)
class Checked:
    """One fitted run: what was measured, what the model predicted without its series (cv), what it
    predicted fitted on everything (fit), and the floor."""

    run: Run
    cv: dict[str, float]
    fit: dict[str, float]
    floor: Floors

    def measured(self, metric: str) -> float:
        """What the run measured, as scored: a stalled run's throughput is NaN (measured.Run.stalled)."""
        if metric == "output_tokens_per_s_per_gpu":
            return self.run.steady_output_per_gpu
        return getattr(self.run, metric)

    def ratio(self, metric: str) -> float:
        """Predicted (cross-validated) / measured."""
        return self.cv[metric] / self.measured(metric)

    def floor_ratio(self, metric: str) -> float | None:
        """Measured / floor for a time, floor / measured for a rate: how many times the floor the run is
        slower (None without a floor)."""
        floor = self.floor.get(metric)
        if floor is None:
            return None
        measured = self.measured(metric)
        return floor / measured if metric == "output_tokens_per_s_per_gpu" else measured / floor


EDGE_SHARE = 0.01  # a fitted value within this share of its band's width from an edge sits on that edge


def edge(p: Parameter, value: float, key: str = "") -> str:
    """Which edge of its band (for scope key `key`) a fitted value sits on ("lower" or "upper"), or "" when it is
    inside (outside the serving model's own modules, so that a change to how the fit is reported re-simulates
    nothing)."""
    _, low, high = p.band(key)
    close = EDGE_SHARE * (high - low)
    return "lower" if value - low <= close else "upper" if high - value <= close else ""


def floors(r: Run, kv: str | None = None) -> Floors:
    """The floor of run `r` as the calculator computes it (scenario.py): its model, GPU, GPU count, layout,
    weights and the KV dtype its engine launched with, at the concurrency as the batch and the benchmark's
    mean lengths (each drawn uniformly from 0.8 to 1 x the nominal)."""
    kv = kv or profile(r.engine, r.gpu, r.model, r.weights, r.concurrency).kv
    prompt, output = RangeRatio(r.isl, RANGE_RATIO).mean, RangeRatio(r.osl, RANGE_RATIO).mean
    m, g = scen.get_model(r.model), scen.get_gpu(r.gpu)
    ttft = scen.prefill_floor_s(m, g, r.gpus, r.weights, prompt)
    try:  # the mean context over a request's decode: its prompt and half its output
        s = scen.scenario(r.model, r.gpu, gpus=r.gpus, seq_len=round(prompt + output / 2), batch=r.concurrency,
                          weights=r.weights, kv=kv, layout=r.layout)
    except scen.InputError:  # more sequences than the floor's KV budget holds: no decode floor
        return Floors(None, ttft, None)
    if not s.fits:  # on changed specs the weights may leave no room for one sequence: no decode floor either
        return Floors(None, ttft, None)
    return Floors(s.decode_step_s, ttft, s.decode_tokens_per_s / r.gpus)


def _numbers(where: str, entry: str, field: str, value: object) -> list[float]:
    if (not isinstance(value, list) or len(value) != len(PREDICTED)
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
                       for v in value)):
        raise SpecError(f"{where}: [[run]] {entry}: {field} must be {len(PREDICTED)} positive finite numbers "
                        f"({', '.join(PREDICTED)}), got {value!r}")
    return [float(v) for v in value]


def join(cal: Calibration, measured: Iterable[Run], where: str = "calibration.toml",
         floor: Callable[[Run], Floors] = floors) -> list[Checked]:
    """Each [[run]] of the calibration beside its measured run (by id) and its floor."""
    by_id = {r.id: r for r in measured}
    out = []
    for i, entry in enumerate(cal.raw.get("run", [])):
        name = f"#{i + 1} ({entry.get('id', 'no id')})"
        r = by_id.get(entry.get("id"))
        if r is None or r.excluded:
            raise SpecError(f"{where}: [[run]] {name}: no fitted run with this id in the measured file: "
                            f"run `make calibrate`")
        cv, fit = (dict(zip(PREDICTED, _numbers(where, name, k, entry.get(k)), strict=True)) for k in ("cv", "fit"))
        out.append(Checked(r, cv, fit, floor(r)))
    if not out:
        raise SpecError(f"{where}: no [[run]] entries: run `make calibrate`")
    return out


@functools.lru_cache(maxsize=1)
def checked(path: Path = CALIBRATION_PATH) -> tuple[Checked, ...]:
    """Every fitted run of data/calibration.toml, measured, predicted and floored."""
    return tuple(join(calibration(path), runs(), display_path(path)))


def scores(pred: np.ndarray, meas: np.ndarray, p99: np.ndarray) -> dict[str, object]:
    """The targets' figures for a set of runs (pred: runs x (median TPOT, median TTFT, out/s/GPU, p99 TPOT);
    meas: runs x the first three), and the ratios' quantiles (predicted / measured). tools/calibrate.py
    writes these to calibration.toml; the page computes them per group the same way."""
    ratio = pred[:, 0] / meas[:, 0]
    return {
        "runs": int(len(meas)),
        "tpot_within_15pct": within(pred[:, 0], meas[:, 0], 1.15),
        "tpot_median_abs_log_error": float(np.median(np.abs(np.log(ratio)))),
        "output_per_gpu_within_15pct": within(pred[:, 2], meas[:, 2], 1.15),
        "ttft_within_factor_1_5": within(pred[:, 1], meas[:, 1], 1.5),
        "p99_tpot_within_25pct": within(pred[:, 3], p99, 1.25),
        "tpot_ratio_p10_p50_p90": [float(q) for q in np.quantile(ratio, [0.1, 0.5, 0.9])],
        "output_per_gpu_ratio_p10_p50_p90": [float(q) for q in
                                             np.nanquantile(pred[:, 2] / meas[:, 2], [0.1, 0.5, 0.9])],
        "ttft_ratio_p10_p50_p90": [float(q) for q in np.quantile(pred[:, 1] / meas[:, 1], [0.1, 0.5, 0.9])],
    }


def summary(rows: Sequence[Checked], which: str = "cv") -> dict[str, object]:
    """scores() of `rows` for their cross-validated (`cv`) or in-sample (`fit`) predictions."""
    pred = np.array([[getattr(c, which)[m] for m in PREDICTED] for c in rows])
    meas = np.array([[c.measured(m) for m in PREDICTED[:3]] for c in rows])
    return scores(pred, meas, np.array([c.run.p99_tpot_s for c in rows]))


def planned_summary(rows: Sequence[Checked], efficiency: float = scen.DEFAULT_EFFICIENCY) -> dict[str, object]:
    """scores() of the chapters' model, floor / efficiency (times slower, rates slower), on the rows that
    have a decode floor; TTFT is the prefill floor / efficiency. The same figures as the fitted model's."""
    rows = [c for c in rows if c.floor.tpot_s is not None]
    pred = np.array([[c.floor.tpot_s / efficiency, c.floor.ttft_s / efficiency,
                      c.floor.output_tokens_per_s_per_gpu * efficiency, c.floor.tpot_s / efficiency] for c in rows])
    meas = np.array([[c.measured(m) for m in PREDICTED[:3]] for c in rows])
    return scores(pred, meas, np.array([c.run.p99_tpot_s for c in rows]))


def groups(rows: Sequence[Checked], key: Callable[[Checked], object]) -> dict[object, list[Checked]]:
    """Rows by `key`, keys sorted."""
    out: dict[object, list[Checked]] = {}
    for c in rows:
        out.setdefault(key(c), []).append(c)
    return dict(sorted(out.items()))


def median_floor_ratio(rows: Sequence[Checked], metric: str) -> float | None:
    """The median of measured / floor (times slower than the floor) over the rows that have a floor."""
    values = [r for c in rows if (r := c.floor_ratio(metric)) is not None and math.isfinite(r)]  # stalled: NaN
    return float(np.median(values)) if values else None


def worst(rows: Sequence[Checked], metric: str, n: int) -> list[Checked]:
    """The n runs whose cross-validated prediction of `metric` is furthest from the measurement, in log."""
    scored = [c for c in rows if math.isfinite(c.ratio(metric))]  # a stalled run's throughput is not scored
    return sorted(scored, key=lambda c: -abs(math.log(c.ratio(metric))))[:n]


def fixed_step_s(r: Run) -> float:
    """The fitted fixed cost of one captured decode step of run `r`'s replica (the GPU's per layer, or the host's
    per step if longer, before any byte or FLOP): what a step costs however small its batch."""
    kv = profile(r.engine, r.gpu, r.model, r.weights, r.concurrency).kv
    replica = build_replica(r.model, r.gpu, r.gpus, r.layout, r.ep, r.weights, kv)
    c = costs(replica, params_for(r.gpu, r.engine, replica.attention))
    return float(max(c.fixed_s, c.host_s))
