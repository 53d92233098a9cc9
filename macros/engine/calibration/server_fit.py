"""MLPerf's Server and Interactive rows in the fit: each row's figure is the highest Poisson rate per replica whose
p99 TTFT and p99 TPOT stay inside the benchmark's bounds (a valid run at the submitter's rate proves at least that
much), and the fit compares the model's with the submitter's, in log.

The least squares cannot search the simulator for that rate at every step, so it uses the open loop's equilibrium
under the same step model (steady.equilibrium with a rate), whose mean TTFT and TPOT times a factor per row (the
simulated p99 over the equilibrium's mean, measured at the simulated highest rate and held between fits, as the
closed loop's factors are) must meet the bounds: the highest such rate, found by bisection in log and then by the
secant between the last bracket's ends, so that it moves smoothly with the parameters. The reported figures are the
simulator's, found by capacity.search_capacity with the parameters being fitted.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..lookup import InputError
from ..serving.calibration import PROMPT_TOKENS, step_params
from ..serving.capacity import CapacityQuery, search_capacity, search_request
from ..serving.families import family_of
from ..serving.profiles import rank_limits
from ..serving.replica import Replica
from ..serving.run import Prepared, RunRequest, prepare, run
from ..serving.steady import ClosedLoopSetup, equilibrium
from ..serving.step import costs
from ..stacked import stacked
from . import parallel
from .measured import Run
from .mlperf import TOLERANCE, server_query, without_api_server

Values = dict[tuple[str, str], float]
BRACKET = 16.0  # the surrogate looks for the highest rate within this factor of the submitter's, either way
BISECTIONS, SECANTS = 12, 6


@dataclass(frozen=True)
class ServerData:
    runs: list[Run]
    queries: list[CapacityQuery]  # at each benchmark's prior prompt
    prepared: list[Prepared]
    stacked: Replica
    setup: ClosedLoopSetup  # concurrency: the engine's running cap
    family: np.ndarray
    engine: np.ndarray
    attention: np.ndarray
    series: np.ndarray
    benchmark: np.ndarray
    measured: np.ndarray  # the submitter's rate per replica
    ttft_bound: np.ndarray
    tpot_bound: np.ndarray


def server_data(runs: list[Run]) -> ServerData:
    """The Server and Interactive rows, each with its engine as the submitter launched it."""
    queries = [server_query(r) for r in runs]
    prepared = [prepare(search_request(q, 1.0, q.requests)) for q in queries]
    limits = [rank_limits(p.profile, p.replica.ranks) for p in prepared]
    setup = ClosedLoopSetup(
        concurrency=np.array([cap for _, cap in limits], float),
        prompt=np.array([q.prompt_tokens for q in queries], float),
        output=np.array([q.output_tokens for q in queries], float),
        mixed=np.array([1.0 if p.profile.policy == "mixed" else 0.0 for p in prepared]),
        token_budget=np.array([budget for budget, _ in limits], float),
        admission_interval=np.array([p.profile.admission_interval_steps for p in prepared], float),
        graph_max_batch=np.array([p.profile.graph_max_batch for p in prepared], float),
        request_overhead_s=np.zeros(len(runs)))
    return ServerData(runs, queries, prepared, stacked([p.replica for p in prepared]), setup,
                      np.array([family_of(r.gpu).key for r in runs]), np.array([r.engine for r in runs]),
                      np.array([p.replica.attention for p in prepared]), np.array([r.series for r in runs]),
                      np.array([r.model for r in runs]), np.array([r.rate_per_replica for r in runs]),
                      np.array([r.ttft_p99_bound_s for r in runs]), np.array([r.tpot_p99_bound_s for r in runs]))


def _prompts(sd: ServerData, values: Values) -> np.ndarray:
    return np.array([values.get((PROMPT_TOKENS, b), p) for b, p in zip(sd.benchmark, sd.setup.prompt)])


def open_loop(sd: ServerData, values: Values, rate: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean TTFT and TPOT of each row's replica at `rate`, and whether the rate saturates its running cap."""
    p = without_api_server(step_params(values, sd.family, sd.engine, sd.attention), True)
    prompt = _prompts(sd, values)
    setup = dataclasses.replace(sd.setup, prompt=prompt,
                                request_overhead_s=p.request_overhead_s + p.prompt_token_overhead_s * prompt)
    eq = equilibrium(costs(sd.stacked, p), setup, rate=rate)
    e2e = eq.ttft_s + (setup.output - 1) * eq.tpot_s
    return eq.ttft_s, eq.tpot_s, rate * e2e >= 0.999 * setup.concurrency


def _margin(sd: ServerData, values: Values, factors: np.ndarray, log_rate: np.ndarray) -> np.ndarray:
    """How far past its tighter bound each row's scaled p99 lies at exp(log_rate), in log (saturation: +1)."""
    ttft, tpot, saturated = open_loop(sd, values, np.exp(log_rate))
    over = np.maximum(np.log(ttft * factors[:, 0] / sd.ttft_bound), np.log(tpot * factors[:, 1] / sd.tpot_bound))
    return np.where(saturated, np.maximum(over, 1.0), over)


def surrogate_capacity(sd: ServerData, values: Values, factors: np.ndarray) -> np.ndarray:
    """The highest rate per replica whose scaled p99s meet both bounds, under the open loop's equilibrium."""
    lo = np.log(sd.measured / BRACKET)
    hi = np.log(sd.measured * BRACKET)
    m_lo, m_hi = _margin(sd, values, factors, lo), _margin(sd, values, factors, hi)
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2
        m = _margin(sd, values, factors, mid)
        below = m <= 0
        lo, m_lo = np.where(below, mid, lo), np.where(below, m, m_lo)
        hi, m_hi = np.where(below, hi, mid), np.where(below, m_hi, m)
    for _ in range(SECANTS):  # the root inside the last bracket, smooth in the parameters
        x = lo - m_lo * (hi - lo) / np.where(m_hi != m_lo, m_hi - m_lo, 1.0)
        x = np.clip(x, lo, hi)
        m = _margin(sd, values, factors, x)
        below = m <= 0
        lo, m_lo = np.where(below, x, lo), np.where(below, m, m_lo)
        hi, m_hi = np.where(below, hi, x), np.where(below, m_hi, m)
    return np.exp(lo - m_lo * (hi - lo) / np.where(m_hi != m_lo, m_hi - m_lo, 1.0))


def simulated_capacity(sd: ServerData, i: int, values: Values) -> tuple[float, np.ndarray]:
    """Row i's highest rate by the simulator, with the parameters `values` (capacity.search_capacity), and the
    factors the surrogate needs there: the simulated p99 TTFT and TPOT over the equilibrium's means at that rate. A
    replica that misses the bounds even unloaded has no rate (0) and keeps factors of 1."""
    p = without_api_server(step_params(values, sd.family[i], sd.engine[i], sd.attention[i]), True)
    q = sd.queries[i]
    prompt = round(_prompts(sd, values)[i])
    q = dataclasses.replace(q, prompt_tokens=prompt)

    def runner(request: RunRequest) -> dict:
        return run(dataclasses.replace(prepare(request), params=p))

    try:
        found = search_capacity(q, runner)
    except InputError:
        return 0.0, np.ones(2)
    rate = np.full(len(sd.runs), found.rate_per_s)
    ttft, tpot, _ = open_loop(sd, values, rate)
    return found.rate_per_s, np.array([found.ttft_s / ttft[i], found.tpot_s / tpot[i]])


def simulated_rates(sd: ServerData, values: Values) -> tuple[np.ndarray, np.ndarray]:
    """Every row's simulated highest rate and factors (simulated_capacity)."""
    rates, factors = np.full(len(sd.runs), math.nan), np.ones((len(sd.runs), 2))
    for i, (rate, factor) in enumerate(parallel.map_shared(_capacity_row, (sd, values), range(len(sd.runs)))):
        rates[i], factors[i] = rate, factor
    return rates, factors


def _capacity_row(shared: tuple[ServerData, Values], i: int) -> tuple[float, np.ndarray]:
    return simulated_capacity(shared[0], i, shared[1])


def within_share(sd: ServerData, rates: np.ndarray) -> float:
    """Share of the rows whose rate is within TOLERANCE of the submitter's, either way (no rate: outside)."""
    ratio = np.maximum(rates / sd.measured, 1e-9)
    return float(np.mean(np.abs(np.log(ratio)) <= math.log(TOLERANCE)))


@dataclass(frozen=True)
class Linearized:
    """The surrogate's log error per row, linear in the log of each parameter the rows read, around `at`: the fit's
    least squares reads this (a surrogate solve per step of it would take a second), and each round of the fit makes
    it again at the new values with the simulator's new factors."""

    data: ServerData
    rows: np.ndarray  # the rows a fit compares
    keys: list[tuple[str, str]]
    at: np.ndarray  # log values
    base: np.ndarray  # log(surrogate / measured), every row
    jac: np.ndarray  # every row x keys

    def residual(self, values: Values) -> np.ndarray:
        x = np.log(np.array([values[k] for k in self.keys]))
        return (self.base + self.jac @ (x - self.at))[self.rows]


def linearized(sd: ServerData, values: Values, factors: np.ndarray, keys: list[tuple[str, str]],
               step: float = 0.05) -> Linearized:
    """The surrogate around `values`, by forward differences of `step` in each key's log."""
    base = np.log(surrogate_capacity(sd, values, factors) / sd.measured)
    columns = []
    for k in keys:
        moved = dict(values)
        moved[k] = values[k] * math.exp(step)
        columns.append((np.log(surrogate_capacity(sd, moved, factors) / sd.measured) - base) / step)
    jac = np.stack(columns, axis=1) if columns else np.zeros((len(sd.runs), 0))
    return Linearized(sd, np.arange(len(sd.runs)), list(keys), np.log(np.array([values[k] for k in keys])), base,
                      jac)
