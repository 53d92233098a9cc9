"""Fitting the serving model's parameters to the measured runs, and checking them on runs left out.

What is fitted: the log error of median TPOT, median TTFT and output tokens/s per GPU, for every measured
configuration the model covers, as its benchmark ran it (a closed loop at its concurrency, its lengths,
its engine's launch settings), and of MLPerf's Server rows' highest rate inside their p99 bounds
(server_fit.py), by scipy.optimize.least_squares under a robust loss (LOSS) within each
parameter's physical bounds, with a weak pull (weight PRIOR_WEIGHT on the log ratio) towards each
parameter's starting value, so that a parameter the data cannot see stays where physics put it instead of
drifting to a bound.

How: simulating all configurations takes about half a minute, too slow to call a thousand times, so the
least squares calls the closed loop's equilibrium under the same step model (steady.py), and the
simulator is brought in as a factor per configuration and metric, simulated / equilibrium at the current
parameters, held fixed during a fit and refreshed between fits (ROUNDS times). The reported residuals
are the simulator's, never the equilibrium's.

Cross-validation is by whole series (measured.series_key: one GPU, model, engine, precision, parallelism
and lengths across its concurrencies): each series is left out in turn, the parameters it informs are
refitted on the rest, and the left-out series is simulated with them (cross_validation.py says which and why).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..serving.calibration import BY_NAME, PROMPT_TOKENS, fitted_slots, step_params
from ..serving.families import family_of
from ..serving.kv_blocks import pool_blocks
from ..serving.lengths import RangeRatio
from ..serving.metrics import summarize
from ..serving.profiles import EngineProfile, launched, profile, rank_limits
from ..serving.replica import Replica, build_replica
from ..serving.sim import simulate
from ..serving.steady import ClosedLoopSetup, equilibrium
from ..serving.step import costs
from ..stacked import stacked
from . import parallel, server_fit
from .measured import RANGE_RATIO, Run
from .mlperf import steady_output_tokens_per_s, without_api_server
from .server_fit import Linearized, ServerData, linearized

METRICS = ("median_tpot", "median_ttft", "output_per_gpu")
PRIOR_WEIGHT = 0.1
# A robust loss: residuals up to about LOSS_SCALE in log (10 %) count as squares, larger ones about linearly.
# Some measured runs carry what no step model has: SGLang's DeepSeek runs on B200 stall a few requests for
# about 70 s (p99 TTFT 70 s against a median of 0.5 s), which cuts the benchmark's throughput by up to a
# third. Under a squared loss those few runs pull every parameter they share towards them.
LOSS, LOSS_SCALE = "soft_l1", 0.1
ROUNDS = 2  # refreshes of the simulator's factors before the final fit
STRONG_CORRELATION = 0.8  # two fitted values this correlated (either sign) are reported as a pair the data trade
Values = dict[tuple[str, str], float]


@dataclass(frozen=True)
class FitData:
    runs: list[Run]
    profiles: list[EngineProfile]
    replicas: list[Replica]
    stacked: Replica  # the replicas' fields as arrays, one entry per run
    setup: ClosedLoopSetup
    measured: np.ndarray  # runs x METRICS
    family: np.ndarray
    engine: np.ndarray
    attention: np.ndarray
    series: np.ndarray
    left_out: list[tuple[Run, str]]  # runs the model does not cover, and why
    # What an offline run's depth depends on, for prompts the fit sets: the benchmark whose mean prompt is a fitted
    # value ("" for a run whose lengths are measured), the KV pool in tokens, the output each sequence holds there
    # and the engine's running cap
    benchmark: np.ndarray
    pool_tokens: np.ndarray
    held_output: np.ndarray
    max_running: np.ndarray


def run_profile(r: Run) -> EngineProfile:
    """The engine as the benchmark launched it: an offline run's cap is the submitter's (or the engine's)."""
    if r.offline:
        return launched(profile(r.engine, r.gpu, r.model, r.weights), max_batch=r.concurrency or None,
                        **dict(r.launch))
    return profile(r.engine, r.gpu, r.model, r.weights, r.concurrency)


def fit_data(runs: tuple[Run, ...] | list[Run]) -> FitData:
    """The runs the model covers, with their replicas and launch profiles; the rest with a reason."""
    kept, profs, reps, left, pools, held_out = [], [], [], [], [], []
    for r in runs:
        if r.excluded:
            left.append((r, r.excluded))
            continue
        pr = run_profile(r)
        rep = build_replica(r.model, r.gpu, r.gpus, r.layout, r.ep, r.weights, r.kv or pr.kv)
        tokens = pool_blocks(rep, pr.memory_fraction, pr.block_tokens) * pr.block_tokens
        if tokens < r.isl + r.osl:
            left.append((r, "the weights leave no KV pool in the engine's memory share as the model counts it"))
            continue
        kept.append(r)
        profs.append(pr)
        reps.append(rep)
        pools.append(tokens)
        held_out.append(r.osl if pr.preemption == "reserve" else r.osl / 2)
    limits = [rank_limits(p, rep.ranks) for p, rep in zip(profs, reps)]  # (a rank's token budget, the running cap)
    setup = ClosedLoopSetup(
        concurrency=np.array([r.concurrency for r in kept], float),
        prompt=np.array([r.isl if r.offline else RangeRatio(r.isl, RANGE_RATIO).mean for r in kept], float),
        output=np.array([r.osl if r.offline else RangeRatio(r.osl, RANGE_RATIO).mean for r in kept]),
        mixed=np.array([1.0 if p.policy == "mixed" else 0.0 for p in profs]),
        token_budget=np.array([budget for budget, _ in limits], float),
        admission_interval=np.array([p.admission_interval_steps for p in profs], float),
        graph_max_batch=np.array([p.graph_max_batch for p in profs], float),
        request_overhead_s=np.zeros(len(kept)))
    measured = np.array([[r.median_tpot_s, r.median_ttft_s, r.steady_output_per_gpu] for r in kept])
    d = FitData(kept, profs, reps, stacked(reps), setup, measured,
                np.array([family_of(r.gpu).key for r in kept]), np.array([r.engine for r in kept]),
                np.array([rep.attention for rep in reps]), np.array([r.series for r in kept]), left,
                np.array([r.model if r.source == "mlperf" else "" for r in kept]), np.array(pools, float),
                np.array(held_out, float), np.array([cap for _, cap in limits], float))
    return dataclasses.replace(d, setup=setup_at(d, {}))  # an offline run's depth, at its prompt's prior


def as_fitted(r: Run, values: Values) -> Run:
    """An MLPerf row with its dataset's mean prompt as fitted, in place of the prior it was read with."""
    if r.source != "mlperf" or (PROMPT_TOKENS, r.model) not in values:
        return r
    return dataclasses.replace(r, isl=round(values[(PROMPT_TOKENS, r.model)]))


def setup_at(d: FitData, values: Values) -> ClosedLoopSetup:
    """The closed loops as fitted: MLPerf's prompts at their fitted means (the row's prior where `values` has none),
    and an offline run's depth with them: as many sequences as the cap and the KV pool allow (a reserving engine
    holds each one's whole output; a recomputing one, on average half of it)."""
    if not np.any(d.benchmark != ""):  # only MLPerf's rows run offline
        return d.setup
    # not rounded: the least squares differentiates through it
    prompt = np.array([values.get((PROMPT_TOKENS, b), p) if b else p for b, p in zip(d.benchmark, d.setup.prompt)])
    offline = np.array([r.offline for r in d.runs])
    depth = np.minimum(d.max_running, d.pool_tokens / (prompt + d.held_output))
    return dataclasses.replace(d.setup, prompt=prompt, concurrency=np.where(offline, depth, d.setup.concurrency))


def subset(d: FitData, rows: np.ndarray) -> FitData:
    """The same data for the runs in `rows` only (the runs left out stay listed)."""
    def pick(obj: object) -> object:
        return dataclasses.replace(obj, **{f.name: np.asarray(getattr(obj, f.name))[rows]
                                           for f in dataclasses.fields(obj)})
    return FitData([d.runs[i] for i in rows], [d.profiles[i] for i in rows], [d.replicas[i] for i in rows],
                   pick(d.stacked), pick(d.setup), d.measured[rows], d.family[rows], d.engine[rows], d.attention[rows],
                   d.series[rows], d.left_out, d.benchmark[rows], d.pool_tokens[rows], d.held_output[rows],
                   d.max_running[rows])


def steady_predictions(d: FitData, values: Values) -> np.ndarray:
    """runs x METRICS at the closed loop's equilibrium."""
    loadgen = np.array([r.source == "mlperf" for r in d.runs])
    p = without_api_server(step_params(values, d.family, d.engine, d.attention), loadgen)
    setup = setup_at(d, values)
    overhead = p.request_overhead_s + p.prompt_token_overhead_s * setup.prompt
    eq = equilibrium(costs(d.stacked, p), dataclasses.replace(setup, request_overhead_s=overhead))
    return np.stack([eq.tpot_s, eq.ttft_s, eq.output_tokens_per_s / d.stacked.gpus], axis=1)


def simulate_measured_run(d: FitData, i: int, values: Values, seed: int = 0) -> dict[str, float]:
    """One run as its benchmark ran it: every request reported, as the client reports them."""
    p = without_api_server(step_params(values, d.family[i], d.engine[i], d.attention[i]), d.runs[i].source == "mlperf")
    r = as_fitted(d.runs[i], values)
    result = simulate(d.replicas[i], p, d.profiles[i], r.workload(seed, int(d.max_running[i])))
    if r.offline:  # the benchmark's rate is its steady one: ten minutes barely see the drain
        return {"median_tpot": math.nan, "median_ttft": math.nan, "p99_tpot": math.nan,
                "output_per_gpu": steady_output_tokens_per_s(result.records) / d.replicas[i].gpus}
    s = summarize(result)
    return {"median_tpot": s.tpot_s["p50"], "median_ttft": s.ttft_s["p50"],
            "output_per_gpu": s.output_tokens_per_s / d.replicas[i].gpus, "p99_tpot": s.tpot_s["p99"]}


def simulated(d: FitData, values: Values, which: list[int] | None = None) -> np.ndarray:
    """runs x (METRICS, p99 TPOT) from the simulator (rows not in `which` are NaN), a run per worker."""
    out = np.full((len(d.runs), len(METRICS) + 1), np.nan)
    rows = list(range(len(d.runs)) if which is None else which)
    for i, row in zip(rows, parallel.map_shared(_simulated_row, (d, values), rows)):
        out[i] = row
    return out


def _simulated_row(shared: tuple[FitData, Values], i: int) -> list[float]:
    d, values = shared
    row = simulate_measured_run(d, i, values)
    return [row[m] for m in (*METRICS, "p99_tpot")]


def fit(d: FitData, factors: np.ndarray, start: Values, rows: np.ndarray, prior: Values,
        prior_weight: float = PRIOR_WEIGHT, free: set[tuple[str, str]] | None = None,
        tolerance: float = 1e-4, server: Linearized | None = None) -> Values:
    """Least squares on log(equilibrium x factor / measured) over `rows`, and on the Server rows' log rate ratios
    (`server`, its rows), within the bounds, with a pull of `prior_weight` towards `prior`. Only the parameters in
    `free` move (by default every one a run in `rows` or a Server row depends on); the rest keep their values in
    `start`."""
    from scipy.optimize import least_squares

    if free is None:
        free = used_slots(d, rows) | (used_slots(server.data, server.rows) if server else set())
    used = free & set(fitted_slots())
    keys = sorted(k for k in start if k in used)
    lo = np.array([BY_NAME[name].band(key)[1] for name, key in keys])
    hi = np.array([BY_NAME[name].band(key)[2] for name, key in keys])
    x0 = np.clip(np.array([start[k] for k in keys]), lo + 1e-12, hi)
    target = np.log(d.measured[rows])
    scale = np.array([max(abs(prior[k]), 1e-6) for k in keys])

    measured = np.isfinite(target)  # an offline run measures its throughput only

    def residual(x: np.ndarray) -> np.ndarray:
        v = {**start, **dict(zip(keys, x))}
        pred = steady_predictions(d, v)[rows] * factors[rows]
        pulls = prior_weight * (x - np.array([prior[k] for k in keys])) / scale
        rates = [] if server is None else [server.residual(v)]
        return np.concatenate([np.where(measured, np.log(pred) - np.where(measured, target, 0.0), 0.0).ravel(),
                               *rates, pulls])

    sol = least_squares(residual, x0, bounds=(lo, hi), x_scale=scale, xtol=tolerance, ftol=tolerance, max_nfev=200,
                        loss=LOSS, f_scale=LOSS_SCALE)
    return {**start, **dict(zip(keys, (float(v) for v in sol.x)))}


def identification(d: FitData, factors: np.ndarray, values: Values, step: float = 1e-3
                   ) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray]:
    """What the data pins: the Jacobian of the data's log errors against each parameter's log (central
    differences of `step`), at `values`, without the pull towards the priors, as plain least squares would
    see it (the fit's robust loss weighs outliers less). Returns the slots, each one's relative standard
    error sqrt(diag (J'J)^-1 s^2), s^2 the log errors' variance (0.01: the data fix it to about 1 %; 1 or
    more: they do not), and their correlation matrix; two parameters correlated near +-1 trade against each
    other."""
    rows = np.arange(len(d.runs))
    keys = sorted(set(fitted_slots()) & used_slots(d, rows))  # a slot no run depends on has nothing to pin it
    measured = np.isfinite(np.log(d.measured[rows]))

    def errors(v: Values) -> np.ndarray:
        pred = np.log(steady_predictions(d, v)[rows] * factors[rows])
        return np.where(measured, pred, 0.0).ravel()

    columns = []
    for k in keys:
        up, down = dict(values), dict(values)
        up[k], down[k] = values[k] * math.exp(step), values[k] * math.exp(-step)
        columns.append((errors(up) - errors(down)) / (2 * step))
    jac = np.stack(columns, axis=1)
    residual = (errors(values) - np.where(measured, np.log(d.measured[rows]), 0.0).ravel())[measured.ravel()]
    sigma2 = float(residual @ residual) / max(1, residual.size - len(keys))  # the log errors' variance
    normal = jac.T @ jac
    # A whisker of ridge keeps a singular pair invertible: two values the runs move only together come out
    # correlated near -1 with huge errors (a pseudo-inverse would report them +1 and small).
    ridge = 1e-10 * max(float(np.max(np.diag(normal))), 1e-300)
    cov = np.linalg.inv(normal + ridge * np.eye(len(keys))) * sigma2
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    corr = cov / np.outer(np.where(se > 0, se, 1.0), np.where(se > 0, se, 1.0))
    return keys, se, corr


def used_slots(d: FitData | ServerData, rows: np.ndarray) -> set[tuple[str, str]]:
    """The (parameter, scope) slots the runs in `rows` depend on: their families', their engines', global."""
    out = set()
    for name, p in BY_NAME.items():
        if p.scope == "global":
            out.add((name, "all"))
        else:
            keys = {"family": d.family, "engine": d.engine, "benchmark": d.benchmark}[p.scope][rows]
            out.update((name, k) for k in set(keys) if k)
    return out


def calibrate(d: FitData, start: Values, log: Callable[[str], None] = print, sd: ServerData | None = None
              ) -> tuple[Values, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Fit on every run, refreshing the simulator's factors ROUNDS times. Returns the values, the factors,
    the simulator's predictions at the values (runs x (METRICS, p99 TPOT)) and, with MLPerf's Server rows `sd`,
    their simulated highest rates and factors, and the surrogate linear at the values (for the cross-validation)."""
    rows = np.arange(len(d.runs))
    factors = np.ones((len(d.runs), len(METRICS)))
    values = dict(start)
    served = server_fit.simulated_rates(sd, values) if sd else None  # the factors start where the priors put them
    keys = sorted(used_slots(sd, np.arange(len(sd.runs))) & set(fitted_slots())) if sd else []
    for round_ in range(ROUNDS + 1):
        server = linearized(sd, values, served[1], keys) if sd else None
        values = fit(d, factors, values, rows, start, tolerance=1e-6, server=server)  # tighter than a fold's refit
        sim = simulated(d, values)
        message = ""
        if sd:
            served = server_fit.simulated_rates(sd, values)
            said = server_fit.within_share(sd, sd.measured * np.exp(server.residual(values)))
            message = (f", Server highest rate within 20 % {server_fit.within_share(sd, served[0]):.3f} "
                       f"(surrogate {said:.3f})")
        log(f"round {round_ + 1}: in-sample median |log error| of TPOT "
            f"{np.nanmedian(np.abs(np.log(sim[:, 0] / d.measured[:, 0]))):.3f}, of out/s/GPU "
            f"{np.nanmedian(np.abs(np.log(sim[:, 2] / d.measured[:, 2]))):.3f}{message}")
        if round_ < ROUNDS:
            factors = sim[:, :len(METRICS)] / steady_predictions(d, values)
    return values, factors, sim, (served, linearized(sd, values, served[1], keys)) if sd else None


def within(pred: np.ndarray, meas: np.ndarray, factor: float) -> float:
    """Share of runs predicted within a factor (1.15 for +-15 %: |log ratio| <= log 1.15), over the runs with a
    measurement (a stalled run's throughput is NaN: measured.Run.steady_output_per_gpu)."""
    scored = np.isfinite(meas)
    return float(np.mean(np.abs(np.log(pred[scored] / meas[scored])) <= math.log(factor)))
