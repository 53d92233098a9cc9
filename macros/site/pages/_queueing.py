"""Chapter 6.5's queueing figures (docs/guide/autoscaling.md): the anchor sweep's replica (pages/_sweep.py) as one
server whose service S is one prompt's prefill (problems.latency.prefill_service_s), the textbook's napkins on it
(formulas/queueing.py) beside the serving model's runs, and the practice problems held to the same napkin.

The runs: the anchor sweep's own Poisson runs, read again for their means and p95s (the sweep keeps p50 and p99
only; the same requests, so no new simulation), and BURSTY_FRACTIONS of its rates again with gamma gaps of
coefficient of variation BURSTY_CV (two runs of BURSTY_REQUESTS): Kingman's case. Beside those, the exact waits
of one first-come server of service S on the very arrival times the simulator drew (Lindley's recursion), which
separates what the textbook's approximation misses from what the mapping of a replica onto one server misses.
SI units."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.lookup import get_gpu, get_model
from ...engine.problems import problems
from ...engine.problems.latency import NAPKIN_MAX_UTILISATION, NAPKIN_TOLERANCE, PERCENTILE, prefill_service_s
from ...engine.serving import sweep as s
from ...engine.serving.arrivals import Gamma, requests
from ...engine.serving.cache import cached_run
from ...engine.serving.lengths import Fixed
from ...engine.serving.prng import Rng
from ...engine.serving.run import RunRequest, prepare
from ...text import fmt
from ..assumptions import assume
from ..markdown import table
from ._sweep import AnchorSweep, anchor_sweep

BURSTY_CV = 2.0  # the gaps' coefficient of variation: c_a^2 = 4, Kingman's wait four times M/D/1's
BURSTY_FRACTIONS = (0.25, 0.55)  # of the sweep's capacity: two of its rates, inside the napkin's range
BURSTY_REQUESTS = 1000  # bursts make a mean noisy: five times the sweep's runs
P95 = float(PERCENTILE[1:])
ONE_SERVER_SHARE = 0.7  # "nearly as long": one server's exact wait is at least this share of the simulator's


@dataclass(frozen=True)
class Rate:
    """One rate of the anchor sweep: the napkin (overhead + S + M/D/1's wait, and its p95) against the run."""

    rate_per_s: float
    rho: float  # lambda S
    napkin_mean_s: float
    napkin_p95_s: float
    sim_mean_s: float
    sim_p95_s: float

    @property
    def in_range(self) -> bool:
        return self.rho <= NAPKIN_MAX_UTILISATION

    @property
    def mean_error(self) -> float:
        return self.napkin_mean_s / self.sim_mean_s - 1

    @property
    def p95_ratio(self) -> float:
        return self.napkin_p95_s / self.sim_p95_s

    @property
    def p95_error(self) -> float:
        return self.p95_ratio - 1

    def cells(self) -> list[str]:
        """The sweep table's row. At rho >= 1 the napkin has no steady state (its wait is unbounded), which the
        row says in words rather than as a figure."""
        steady = math.isfinite(self.napkin_p95_s)
        unbounded = "unbounded (ρ ≥ 1)"
        return [f"{fmt.num(self.rate_per_s)}/s", fmt.num(self.rho, 2),
                fmt.seconds(self.napkin_mean_s) if steady else unbounded, fmt.seconds(self.sim_mean_s),
                fmt.seconds(self.napkin_p95_s) if steady else unbounded, fmt.seconds(self.sim_p95_s),
                fmt.times(self.p95_ratio) if steady else "—"]


def rates_table(rates: list[Rate]) -> str:
    return table(["Offered", "ρ = λS", "Mean TTFT, napkin", "Mean TTFT, simulated", "p95 TTFT, napkin",
                  "p95 TTFT, simulated", "p95: napkin ÷ simulated"], [r.cells() for r in rates], align="rrrrrrr")


def base_request(swept: AnchorSweep) -> RunRequest:
    """The sweep's replica and lengths, as sweep.sweep takes them (it sets the load itself)."""
    return RunRequest(**swept.start, concurrency=1)


def poisson_run(base: RunRequest, rate: float) -> dict[str, Any]:
    """The sweep's own run at `rate` (sweep.point's request), read for every statistic."""
    return cached_run(replace(base, concurrency=None, rate_per_s=rate, burstiness=None, trace=None,
                              requests=s.SWEEP_REQUESTS))


def bursty_run(base: RunRequest, rate: float) -> dict[str, Any]:
    return cached_run(replace(base, concurrency=None, rate_per_s=rate, burstiness=BURSTY_CV, trace=None,
                              requests=BURSTY_REQUESTS))


def napkin(rate: float, service: float, overhead: float) -> tuple[float, float, float, float]:
    """rho, M/D/1's mean wait, and TTFT's napkin mean and p95: overhead + S + the wait (its mean, its p95)."""
    rho, wait = f.utilisation(rate, service), f.md1_wait_s(rate, service)
    return rho, wait, overhead + service + wait, overhead + service + f.wait_percentile_s(wait, rho, P95)


def one_server_wait_s(base: RunRequest, rate: float, service: float) -> float:
    """The mean wait of one first-come server of fixed service S on the arrival times the bursty run drew (its
    seed and gaps, run.py's stream), over the requests its statistics keep (after the first tenth)."""
    n = BURSTY_REQUESTS
    drawn = requests(Gamma(rate, BURSTY_CV), Fixed(base.input_tokens), Fixed(base.output_tokens), n, Rng(base.seed))
    waits = f.lindley_waits_s([q.arrival_s for q in drawn], service)[n // 10:]
    return sum(waits) / len(waits)


def problem_rows() -> list[SimpleNamespace]:
    """Each published queueing problem: its rho, the napkin's p95, the simulated p95, and the napkin's error."""
    return [SimpleNamespace(id=p.id, rho=p.solution["utilisation"], napkin_p95_s=p.solution["napkin_p95"],
                            sim_p95_s=p.answer, error=p.solution["napkin_p95"] / p.answer - 1,
                            in_range=p.solution["in_range"])
            for p in problems() if p.kind == "ttft" and p.variant == "queue"]


def figures(swept: AnchorSweep | None = None) -> SimpleNamespace:
    swept = swept or anchor_sweep()
    base = base_request(swept)
    prepared = prepare(replace(base, concurrency=None, rate_per_s=1.0))
    service, overhead = prefill_service_s(base.model, base.gpu, base.gpus, base.engine, base.input_tokens)
    rates = []
    for rate in s.sweep_rates(swept.capacity_per_s):
        r = poisson_run(base, rate)
        rho, _, mean, p95 = napkin(rate, service, overhead)
        rates.append(Rate(rate, rho, mean, p95, r["ttft_s"]["mean"], r["ttft_s"][PERCENTILE]))
    inside = [r for r in rates if r.in_range]
    past = [r for r in rates if not r.in_range]
    overshoot = next((r for r in past if abs(r.p95_error) > NAPKIN_TOLERANCE), None)
    # the lightest rate and the last inside the range (the first two rates if fewer than two are inside: the
    # sentences that rest on the range then say they are broken)
    light, top = (inside[0], inside[-1]) if len(inside) >= 2 else (rates[0], rates[1])
    checked_rates = inside if len(inside) >= 2 else [light, top]
    worst_p95 = max(abs(r.p95_error) for r in checked_rates)
    # the worked example: the knee's rate (the sweep's own), or the last rate inside the range if there is no knee
    at = next((r for r in rates if swept.knee and math.isclose(r.rate_per_s, swept.knee.rate_per_s)), top)
    rho, wait, mean, p95 = napkin(at.rate_per_s, service, overhead)
    mm1 = f.mm1_wait_s(at.rate_per_s, service)
    wait_p95 = f.wait_percentile_s(wait, rho, P95)
    # why the p95 grows faster: the rise of each from the lightest rate to the last inside the range
    sim_mean_rise, sim_p95_rise = top.sim_mean_s - light.sim_mean_s, top.sim_p95_s - light.sim_p95_s
    napkin_mean_rise, napkin_p95_rise = top.napkin_mean_s - light.napkin_mean_s, top.napkin_p95_s - light.napkin_p95_s
    bursty = []
    for fraction in BURSTY_FRACTIONS:
        rate = fraction * swept.capacity_per_s
        poisson, gamma = poisson_run(base, rate), bursty_run(base, rate)
        bursty.append(SimpleNamespace(
            rate_per_s=rate, rho=f.utilisation(rate, service), md1_wait_s=f.md1_wait_s(rate, service),
            kingman_wait_s=f.kingman_wait_s(rate, service, BURSTY_CV, 0.0),
            one_server_wait_s=one_server_wait_s(base, rate, service),
            # the simulator's wait: its mean TTFT less the overhead and S (what the napkin's TTFT adds them to)
            poisson_wait_s=poisson["ttft_s"]["mean"] - overhead - service,
            sim_wait_s=gamma["ttft_s"]["mean"] - overhead - service))
    for b in bursty:
        b.sim_over_kingman = b.sim_wait_s / b.kingman_wait_s
        b.sim_burst_gain = b.sim_wait_s / b.poisson_wait_s
    rows = problem_rows()
    checked = [p for p in rows if p.in_range]
    return SimpleNamespace(
        model_name=get_model(base.model).name, gpu_name=get_gpu(base.gpu).name, gpus=base.gpus,
        engine_name=prepared.profile.name, output=base.output_tokens,
        service_s=service, overhead_s=overhead, token_budget=prepared.profile.token_budget,
        prompt=base.input_tokens, prompts_per_step=prepared.profile.token_budget // base.input_tokens,
        percentile_share=P95 / 100, tail_share=1 - P95 / 100,  # the p95's 95 %, and the 5 % of arrivals above it
        prefill_per_s=1 / service,
        rates=rates, rates_table=rates_table(rates), light=light, top=top, overshoot=overshoot,
        worst_mean_error=max(abs(r.mean_error) for r in checked_rates), worst_p95_error=worst_p95,
        sweep_within=assume(len(inside) >= 2 and worst_p95 <= NAPKIN_TOLERANCE,
                            f"{len(inside)} swept rates with rho up to {NAPKIN_MAX_UTILISATION}, the napkin's p95 off "
                            f"by up to {worst_p95:.0%} against a tolerance of {NAPKIN_TOLERANCE:.0%}",
                            "say how far the napkin holds on the sweep, and choose the range or the tolerance again"),
        shared_steps=assume(prepared.profile.token_budget // base.input_tokens >= 2,
                            f"a token budget of {prepared.profile.token_budget} tokens, prompts of "
                            f"{base.input_tokens}", "say why the napkin overshoots under load"),
        # the worked example
        example=SimpleNamespace(rate_per_s=at.rate_per_s, rho=rho, wait_s=wait, mm1_wait_s=mm1, residual_s=service / 2,
                                mm1_residual_s=service, queued=f.in_system(at.rate_per_s, wait),
                                wait_p95_s=wait_p95, p95_over_mean=wait_p95 / wait, napkin_mean_s=mean,
                                napkin_p95_s=p95, sim_mean_s=at.sim_mean_s, sim_p95_s=at.sim_p95_s,
                                is_knee=swept.knee is not None and at.rate_per_s == swept.knee.rate_per_s),
        # why the p95 grows faster than the mean
        sim_mean_rise_s=sim_mean_rise, sim_p95_rise_s=sim_p95_rise,
        sim_rise_ratio=sim_p95_rise / sim_mean_rise if sim_mean_rise > 0 else math.inf,
        napkin_rise_ratio=napkin_p95_rise / napkin_mean_rise if napkin_mean_rise > 0 else math.inf,
        top_factor=math.log(20 * top.rho) / top.rho,
        p95_grows_faster=assume(sim_p95_rise > 2 * sim_mean_rise,
                                f"from {light.rate_per_s:.3g} to {top.rate_per_s:.3g} requests/s the simulated mean "
                                f"TTFT rises {sim_mean_rise:.3g} s, the p95 {sim_p95_rise:.3g} s",
                                "say how the simulated p95 and mean move as the rate grows"),
        # Kingman's case
        bursty_cv=BURSTY_CV, bursty_requests=BURSTY_REQUESTS, bursty=bursty,
        kingman_factor=BURSTY_CV ** 2,  # Kingman's wait over M/D/1's: (c_a^2 + 0) / (1 + 0)
        # Kingman short of both, and one server on the same arrivals most of the way to the simulator
        kingman_short=assume(all(b.sim_wait_s > b.kingman_wait_s and b.one_server_wait_s > b.kingman_wait_s
                                 and b.one_server_wait_s >= ONE_SERVER_SHARE * b.sim_wait_s for b in bursty),
                             "; ".join(f"rho {b.rho:.2f}: Kingman {b.kingman_wait_s:.3g} s, one server "
                                       f"{b.one_server_wait_s:.3g} s, simulator {b.sim_wait_s:.3g} s" for b in bursty),
                             "say which of Kingman, one server and the simulator waits longest"),
        # how far the napkin goes, and the practice problems
        tolerance=NAPKIN_TOLERANCE, max_rho=NAPKIN_MAX_UTILISATION, problems=rows, checked=len(checked),
        excluded=len(rows) - len(checked),
        worst_problem_error=max((abs(p.error) for p in checked), default=math.nan),
        problems_within=assume(all(abs(p.error) <= NAPKIN_TOLERANCE for p in checked) and checked,
                               ", ".join(f"{p.id} {p.error:+.0%}" for p in rows),
                               "a published problem's napkin misses its simulated p95 by more than the tolerance"),
    )
