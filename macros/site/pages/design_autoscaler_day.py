"""docs/designs/autoscaler.md, section 7's day of traffic: the design's workload for one day under each
policy (scaling on queue depth) and under each signal (reactive scaling), from the minute-level fluid model
(macros/engine/autoscale/), with the tables, the sentences' facts and the drawing's series.

Inputs: the workload file macros/data/designs/autoscaler.toml, its reservation (design_autoscaler.py),
data/autoscale.toml (the day, the mix shift,
the cold start, the control loop), data/workloads.toml (the storage link, the KV set point) and the
instance-acquisition claim. SI units; GPU-hours, requests and minutes are counts."""

from __future__ import annotations

import dataclasses
import math
from functools import cache
from types import SimpleNamespace

from ...engine.autoscale.fluid import POLICIES
from ...engine.autoscale.run import Autoscaled, autoscale
from ...engine.autoscale.signals import SIGNALS, busy_probability
from ...engine.fleet.workload_file import design
from ...engine.workloads import workloads
from ...text import fmt
from ...text.autoscale_report import LEAVES_OUT, price_source
from ..assumptions import assume
from ..markdown import table

SLUG = "autoscaler"
POLICY_SIGNAL = "queue"  # the policies are compared on the signal that reads the true load
SIGNAL_POLICY = "reactive"  # the signals are compared with nothing else steering: no forecast, no pool
NAMES = {"reactive": "Reactive", "predictive": "Predictive", "warm-pool": "Predictive + warm pool",
         "kv": "KV occupancy", "queue": "Queue depth", "tokens": "Tokens/s", "requests": "Request count",
         "utilisation": "GPU utilisation"}
BIN_MINUTES = 5  # the drawing's resolution: 288 points a day, not 1,440
# Ten more days of bursts, each with its own backtest (seed + 1): the policies' comparison is one drawn day, so the
# page says on how many of these it holds, and their range
OTHER_DAYS = range(2, 12)


def _row(name: str, r: Autoscaled) -> list[str]:
    run = r.run
    return [name, fmt.count(run.gpu_hours), "no price" if r.cost is None else fmt.usd(r.cost),
            fmt.count(run.slo_violation_minutes), fmt.pct(run.shed_requests / run.offered_requests),
            fmt.count(run.cold_starts)]


HEADER = ["", "GPU-hours", "Cost of the hours used", "Minutes over the SLO", "Shed (of offered)", "Cold starts"]


def series(r: Autoscaled) -> SimpleNamespace:
    """The drawing's series, per BIN_MINUTES: hour of the bin's start, offered and capacity in requests/s
    (means), shed in requests/s (mean), replicas serving and warm (most)."""
    minutes = r.run.minutes
    bins = [minutes[i:i + BIN_MINUTES] for i in range(0, len(minutes), BIN_MINUTES)]
    per_s = 60 * BIN_MINUTES
    return SimpleNamespace(
        hours=[i * BIN_MINUTES / 60 for i in range(len(bins))],
        offered=[sum(m.offered for m in b) / per_s for b in bins],
        capacity=[sum(m.capacity for m in b) / per_s for b in bins],
        shed=[sum(m.shed for m in b) / per_s for b in bins],
        replicas=[max(m.replicas for m in b) for b in bins],
        warm=[max(m.warm_pool for m in b) for b in bins],
    )


KV_TIE_MINUTES = 5  # two signals this close in minutes over the SLO do as well as each other on this day


def kv_words(kv_minutes: int, queue_minutes: int) -> str:
    """KV occupancy against queue depth, in minutes over the SLO, leading into why its set point is the occupancy at
    SLO capacity (the page's next clause)."""
    if abs(kv_minutes - queue_minutes) <= KV_TIE_MINUTES:
        return "KV occupancy does as well as queue depth only because"
    if kv_minutes > queue_minutes:
        return (f"KV occupancy does worse than queue depth, {kv_minutes} minutes over the SLO against "
                f"{queue_minutes}, even though")
    return f"KV occupancy does better than queue depth, {kv_minutes} minutes over the SLO against {queue_minutes}, as"


@cache
def model() -> SimpleNamespace:
    w = design(SLUG)[0]
    from . import design_autoscaler  # here: it imports chapter 6's page model, which imports this one's drawing

    reservation = design_autoscaler.model().fleet  # what section 3 reserves: no policy may hold more
    policies = {p: autoscale(w, p, POLICY_SIGNAL, reservation=reservation) for p in POLICIES}
    x0 = policies[POLICIES[0]].inputs
    others = [{p: autoscale(w, p, POLICY_SIGNAL, x=dataclasses.replace(x0, seed=k), reservation=reservation)
               .run.slo_violation_minutes for p in POLICIES} for k in OTHER_DAYS]
    signals = {s: autoscale(w, SIGNAL_POLICY, s, reservation=reservation) for s in SIGNALS}
    react, ahead, pooled = (policies[p] for p in POLICIES)
    good, count, util, kv = signals[POLICY_SIGNAL], signals["requests"], signals["utilisation"], signals["kv"]
    x = react.inputs
    extra_cost = pooled.cost - react.cost if pooled.cost is not None and react.cost is not None else None
    kv_target = workloads()["kv_occupancy_target"]
    napkin = react.plan.peak_requests_per_s / react.plan.replicas  # the first-order fleet's share per replica
    # The rate per replica at which the utilisation reading falls to its set point (signals.busy_probability solved
    # for the rate), and the share of the day the utilisation scaler spends at the reservation's ceiling.
    busy_at_capacity = busy_probability(react.planned.rate_per_s, react.planned.e2e_mean_s)
    util_rate = -math.log(1 - react.controls.set_point * busy_at_capacity) / react.planned.e2e_mean_s
    at_ceiling = sum(m.replicas == util.controls.max_replicas for m in util.run.minutes) / len(util.run.minutes)
    shifted = react.shifted
    slo = {k: r.run.slo_violation_minutes for k, r in {**policies, **{f"s:{k}": v for k, v in signals.items()}}.items()}
    return SimpleNamespace(
        w=w, policies=policies, signals=signals, reactive=react, predictive=ahead, pooled=pooled,
        policy_table=table(["Policy (on queue depth)", *HEADER[1:]], [_row(NAMES[p], policies[p]) for p in POLICIES]),
        signal_table=table(["Signal (reactive)", *HEADER[1:]], [_row(NAMES[s], signals[s]) for s in SIGNALS]),
        leaves_out=LEAVES_OUT, price_note=price_source(react).strip(),
        inputs=x, cold=react.cold, controls=react.controls,
        capacity_per_s=react.planned.rate_per_s, capacity_missed_per_s=react.planned.failed_rate_per_s,
        shifted_capacity_per_s=react.shifted.rate_per_s,
        capacity_drop=react.planned.rate_per_s / react.shifted.rate_per_s,
        # Which target the longer prompts' capacity stops at: the one its percentile is closer to.
        shift_binding="TTFT" if shifted.ttft_s / w.ttft_s >= shifted.tpot_s / w.tpot_s else "TPOT",
        token_growth=(w.prompt_tokens * x.shift_prompt_scale + w.output_tokens) / (w.prompt_tokens + w.output_tokens),
        napkin_per_replica_per_s=napkin,
        util_rate_at_set_point=util_rate, util_overprovision=react.planned.rate_per_s / util_rate,
        util_share_at_ceiling=at_ceiling,
        busy_at_tenth=busy_probability(react.planned.rate_per_s / 10, react.planned.e2e_mean_s),
        shed_allowed=react.controls.shed_allowed,  # a minute may shed this share and meet the SLO
        pool_peak=max(m.warm_pool for m in pooled.run.minutes),
        other_days=others, other_count=len(others), other_seeds=f"{OTHER_DAYS[0]} to {OTHER_DAYS[-1]}",
        pool_never_worse=assume(all(d["warm-pool"] <= d["reactive"] for d in others),
                                "on every other day the pool's minutes over the SLO are at most reactive scaling's",
                                "the pool adds minutes over the SLO on another day: say so"),
        forecast_never_helps=assume(all(abs(d["predictive"] - d["reactive"]) <= max(2, d["reactive"] // 10)
                                        for d in others),
                                    "on every other day the forecast alone is within a tenth of reactive scaling",
                                    "the forecast alone changes the SLO minutes on another day: say which"),
        pool_wins_days=sum(d["warm-pool"] < d["reactive"] for d in others),
        late_range={p: (min(d[p] for d in others), max(d[p] for d in others)) for p in POLICIES},
        extra_cost=extra_cost, extra_cost_share=None if extra_cost is None else extra_cost / react.cost,
        util_gpu_hours_ratio=util.run.gpu_hours / good.run.gpu_hours,
        kv_at_capacity=react.planned.kv_occupancy, kv_target=kv_target,
        # The sentences' facts.
        napkin_optimistic=assume(napkin > react.planned.rate_per_s,
                                 f"per replica at the peak: planner {fmt.num(napkin)} requests/s, simulator "
                                 f"{fmt.num(react.planned.rate_per_s)}",
                                 "the simulated replica now takes as much as the planner gives it: rewrite"),
        pool_wins=assume(slo["warm-pool"] < slo["reactive"] and extra_cost is not None and extra_cost > 0,
                         f"minutes over the SLO: reactive {slo['reactive']}, warm pool {slo['warm-pool']}; "
                         f"extra cost {fmt.usd(extra_cost or 0)}",
                         "say which policy has fewer minutes over the SLO, and at what cost"),
        predictive_alone_close=assume(abs(slo["predictive"] - slo["reactive"]) <= max(2, slo["reactive"] // 10),
                                      f"minutes over the SLO: reactive {slo['reactive']}, predictive "
                                      f"{slo['predictive']}",
                                      "the forecast alone now changes the SLO minutes: say by how much and why"),
        count_fails=assume(slo["s:requests"] > slo[f"s:{POLICY_SIGNAL}"] and count.run.gpu_hours < good.run.gpu_hours,
                           f"request count: {slo['s:requests']} minutes over the SLO and "
                           f"{fmt.count(count.run.gpu_hours)} GPU-hours; queue depth: {slo[f's:{POLICY_SIGNAL}']} "
                           f"and {fmt.count(good.run.gpu_hours)}",
                           "request count no longer under-provisions during the mix shift: rewrite its sentence"),
        util_wastes=assume(util.run.gpu_hours > 1.5 * good.run.gpu_hours and at_ceiling > 0.5,
                           f"GPU-hours: utilisation {fmt.count(util.run.gpu_hours)}, queue depth "
                           f"{fmt.count(good.run.gpu_hours)}; utilisation at the ceiling {fmt.pct(at_ceiling)} "
                           "of the day",
                           "utilisation no longer over-provisions by much, or not at the ceiling: rewrite"),
        kv_below_target=assume(react.planned.kv_occupancy < kv_target,
                               f"KV occupancy at SLO capacity {fmt.pct(react.planned.kv_occupancy)}, set point "
                               f"{fmt.pct(kv_target)}",
                               "the replica now fills its KV pool at its SLO capacity: an absolute set point works"),
        kv_words=kv_words(kv.run.slo_violation_minutes, good.run.slo_violation_minutes),
        series={p: series(policies[p]) for p in POLICIES},
    )
