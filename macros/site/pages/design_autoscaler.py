"""docs/designs/autoscaler.md, worked design 6: the figures beyond the plan. The day's curve in replicas,
the warm pool from the forecast error, the replica-hours the trough frees and the batch work they absorb,
cold start from each source of weights, the morning ramp and a rollout against the shared store,
admission control under a shock, and preempting batch work.

Every fleet, count and cost is the serving model's answer (design.model's `answer` and `answers`): each
hour's replicas are the hour's rate over the rate one of the answer's replicas serves at the peak (the
answer at the trough's rate checks that line), and a request's replica time is the answer's. The napkin's
shapes, batch caps, steps and prefills stay first-order physics, and the page says so.

Inputs: the workload file macros/data/designs/autoscaler.toml (its plan, its variants, and its
[design.inputs] table), data/workloads.toml's shared link rates, data/autoscale.toml's engine start,
chapter 6's NVMe rate and the NIC claim. SI units; replica-hours and requests are counts."""

from __future__ import annotations

import dataclasses
from functools import cache
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.autoscale.fluid import MINUTES_PER_HOUR
from ...engine.autoscale.inputs import cold_start, day_inputs
from ...engine.autoscale.reservation import day_reservation
from ...engine.autoscale.run import day_targets
from ...engine.fleet.answer import Answer, answer
from ...engine.fleet.planner import NODE_GPUS, cheapest, plan, require
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume, phrase
from ..markdown import listed, table
from . import design, design_answer
from .autoscaling import LOCAL_NVME_BYTES_PER_S

SLUG = "autoscaler"
INPUTS = design.positive("forecast_error", "naive_forecast_error", "surprise", "store_aggregate_bytes_per_s")
WIDER = 4  # the replica shape the design's file argues against, priced beside its own
SMALL = 0.05  # a share of the spare replica-hours small enough not to price


def inputs() -> dict[str, float]:
    """The [design.inputs] table of the design file, every key present and a positive number."""
    raw = design.inputs(SLUG, INPUTS)
    return {key: float(raw[key]) for key in INPUTS}


def _per_request(a: Answer) -> float:
    """Replica-seconds one request takes on the answer's fleet: its replicas over the rate they serve at the peak."""
    return a.replicas / a.peak_requests_per_s


def _targets(w) -> str:
    """"p95 TTFT 1 s, p95 TPOT 40 ms, ...": a workload's targets in words."""
    return ", ".join(f"{t.words} {fmt.seconds(t.seconds)}" for t in w.targets)


def versus_napkin(answer_ratio: float, napkin_ratio: float) -> str:
    """"3.19×, where the napkin says 3.03×": a revision's fleet against the design's, on the answers and the napkin."""
    return f"{fmt.times(answer_ratio)}, where the napkin says {fmt.times(napkin_ratio)}"


def lent_words(a: Answer, lent: Answer) -> str:
    """What the serving model's lent replica does differently from the interactive one, from their runs: the tokens
    a step carries and the requests each keeps in flight (Little's law on the run)."""
    steps = ("steps of the same size" if lent.token_budget == a.token_budget else
             f"steps of {fmt.count(lent.token_budget)} tokens where the interactive one runs "
             f"{fmt.count(a.token_budget)}")
    return (f"the lent replica runs {steps}, and keeps {fmt.count(lent.live_concurrency_per_replica)} requests in "
            f"flight against the interactive replica's {fmt.count(a.live_concurrency_per_replica)}")


def day_words(day_rate: float, missed_rate: float, answer_rate: float, targets: str) -> str:
    """The day model's capacity per replica against the rate the answer gives a replica at the peak (every target of
    the design's; `targets`: those the day's capacity does not bound). Both are the serving model's, from two
    searches: the day's stops with a rate that meets the targets (`day_rate`) and one that misses (`missed_rate`),
    so an answer's rate between them is the same capacity to the search's tolerance."""
    rest = f", which also meet the rest of the design's targets ({targets})" if targets else ""
    words = phrase(day_rate, answer_rate,
                   f"the same as the {fmt.num(answer_rate)} requests/s the answer's replicas take at the peak",
                   f"more than the {fmt.num(answer_rate)} requests/s the answer's replicas take at the peak{rest}",
                   f"less than the {fmt.num(answer_rate)} requests/s the answer's replicas take at the peak",
                   rel=0.01)
    if not words.startswith("the same") and day_rate <= answer_rate < missed_rate:
        words += (f", but inside the day's own search, which stopped between {fmt.num(day_rate)} (met) and "
                  f"{fmt.num(missed_rate)} requests/s (missed): one capacity, to that search's tolerance")
    return words


def _cold_start(weight_bytes: float, gpus: int, warmup_s: float) -> list[SimpleNamespace]:
    """Loading one replica's weights from each source, fastest last: the load floor (bytes over the
    link, the link to itself) and the lead time with the engine's warm-up added."""
    w = workloads()
    nic = catalog().claims["nic-bandwidth"].low
    sources = [  # (what, bytes/s of one link, links in parallel: one per GPU where each GPU has its own)
        ("network storage", w["network_storage_bytes_per_s"], 1),
        ("local NVMe", LOCAL_NVME_BYTES_PER_S, 1),
        ("host RAM, over PCIe", w["pcie_bytes_per_s"], gpus),
        ("peer GPUs, over the GPU network", nic, gpus),
    ]
    out = []
    for what, rate, links in sources:
        load_s = f.transfer_time_s(weight_bytes / links, rate)
        out.append(SimpleNamespace(source=what, bytes_per_s=rate, links=links, load_s=load_s,
                                   lead_s=load_s + warmup_s))
    return out


def _hours_after_peak(values: list, peak_hour: float) -> list[list]:
    """A day's per-minute values grouped by hour, hour 0 the one that starts at the peak."""
    start = round(peak_hour * MINUTES_PER_HOUR)
    return [[values[(start + h * MINUTES_PER_HOUR + m) % len(values)] for m in range(MINUTES_PER_HOUR)]
            for h in range(f.HOURS_PER_DAY)]


def _day_table(rates: list[float], serving: list[int], pools: list[int], fleet: int) -> str:
    # every hour: the prose cites hours by their figures (the afternoon's shock), so none may be left out
    rows = [[f"{h}–{h + 1}", fmt.num(rates[h]), fmt.count(serving[h]), fmt.count(pools[h]),
             fmt.count(fleet - serving[h] - pools[h])] for h in range(len(rates))]
    # serving or starting, and held through the scale-down wait after the afternoon's longer prompts
    return table(["Hours after the peak", "Requests/s at most", "In service or starting at most (hold included)",
                  "Warm pool", "Spare (lent to batch)"], rows)


def _sources_table(sources: list[SimpleNamespace]) -> str:
    rows = [[s.source, fmt.bandwidth(s.bytes_per_s) + (f" × {s.links}" if s.links > 1 else ""),
             fmt.seconds(s.load_s), fmt.seconds(s.lead_s)] for s in sources]
    return table(["Weights from", "Link (per GPU where ×)", "Load floor", "With the engine's warm-up"], rows)


@cache
def model() -> SimpleNamespace:
    x = inputs()
    d = design.model(SLUG)
    p, w = d.plan, d.workload
    trough, batch = d.variants["trough"], d.variants["batch-slo"]
    g, price = p.gpus_per_replica, p.price_per_gpu_hour

    # The serving model's answers: the peak's fleet, and the rate one of its replicas serves there
    a, at = d.answer, d.answers["trough"]
    per_replica = a.peak_requests_per_s / a.replicas
    bounded, rest = day_targets(w, day_inputs().slo_percentile)

    # At first order: the peak's answer and a pool for the hour-ahead forecast's error.
    pool_peak = f.warm_pool_replicas(a.replicas, x["forecast_error"])
    first_order = a.replicas + pool_peak
    # The reservation: the fewest replicas that serve the forecastable day (the curve and the afternoon's longer
    # prompts, minute by minute, at the scaler's set point) as well as no ceiling does, from the first order up.
    held = day_reservation(w, first_order)
    fleet = held.replicas
    # That day, hour by hour from the peak: the highest rate, the most replicas serving or starting, and the pool
    # for the forecast's error that the rest of the reservation holds.
    peak_hour = held.day.inputs.peak_hour
    rates = [max(h) for h in _hours_after_peak(list(held.day.day.rates_per_s), peak_hour)]
    hourly = [max(h) for h in _hours_after_peak([m.replicas + m.starting for m in held.day.run.minutes], peak_hour)]
    pools = [min(f.warm_pool_replicas(n, x["forecast_error"]), fleet - n) for n in hourly]  # none at the ceiling
    all_day = fleet * f.HOURS_PER_DAY
    interactive_hours, pool_hours = sum(hourly), sum(pools)
    spare_hours = all_day - interactive_hours - pool_hours
    # the steepest hour of the morning
    ramp = max(hourly[(h + 1) % f.HOURS_PER_DAY] - hourly[h] for h in range(f.HOURS_PER_DAY))
    mean_rate = (p.peak_requests_per_s + trough.peak_requests_per_s) / 2

    # Batch work on the spare hours: priced per request on the interactive answer, then on the batch tier's
    lent = d.answers["batch-slo"]
    naive_requests = spare_hours * f.SECONDS_PER_HOUR / _per_request(a)
    batch_requests = spare_hours * f.SECONDS_PER_HOUR / _per_request(lent)
    pooled_batch_requests = (spare_hours + pool_hours) * f.SECONDS_PER_HOUR / _per_request(lent)

    # Cold start, and many replicas loading at once.
    weight_bytes = p.at_slo.weight_bytes
    warmup_s = day_inputs().engine_start_s  # the engine's start, shared with the day of traffic's cold start
    sources = _cold_start(weight_bytes, g, warmup_s)
    network, nvme, host, peer = sources
    # an on-demand replica after its instance is acquired: the image, then the weights from the store, then the
    # engine (the day of traffic's cold start without its allocation)
    on_demand = cold_start(weight_bytes, day_inputs())
    store = x["store_aggregate_bytes_per_s"]
    rollout_store_s = max(network.load_s, f.transfer_time_s(fleet * weight_bytes, store))
    flips_per_day = max(hourly) - min(hourly)  # replicas handed back to interactive each day, trough to most
    return_store_s = max(network.load_s, f.transfer_time_s(flips_per_day * weight_bytes, store))
    return_rounds = f.fanout_rounds(flips_per_day, min(hourly))
    rollout_rounds = f.fanout_rounds(fleet - 1, 1)

    # Admission control under a shock: what the whole reservation serves at the day's capacity per replica
    # within the SLO, on the planned mix at the peak and on the afternoon's longer prompts (the hours the
    # reservation was sized for), and the excess a shock on the afternoon's rate brings.
    capacity_rate = fleet * held.day.planned.rate_per_s
    shock_rate = p.peak_requests_per_s * (1 + x["surprise"])
    shifted = held.day.day.shifted
    afternoon_rate = max(r for r, in_shift in zip(held.day.day.rates_per_s, shifted) if in_shift)
    afternoon_capacity = fleet * held.day.shifted.rate_per_s
    afternoon_shock = afternoon_rate * (1 + x["surprise"])
    excess_rate = max(0.0, afternoon_shock - afternoon_capacity)
    afternoon_served, allowed = afternoon_capacity / afternoon_rate, held.day.controls.shed_allowed

    # Preempting a batch replica for interactive work: kill (recompute later) or drain (wait); first-order physics
    cold = d.variants["cold-cache"]
    kill_replica_s = batch.max_batch * cold.planned_prefill_s  # every sequence's prompt prefilled again
    # the youngest sequence runs to its end, at the batch tier's simulated p95 TPOT (its answer's run)
    drain_s = w.output_tokens * d.answers["batch-slo"].tpot_p95_s

    naive_pool_peak = f.warm_pool_replicas(a.replicas, x["naive_forecast_error"])
    smallest = require(plan(dataclasses.replace(w, gpus_per_replica=None)), f"{d.file} (the smallest shape)")
    reserved = (f"The reservation, **{fmt.count(fleet)} × {g} {design_answer.gpu_name(w)} = {fmt.count(fleet * g)} "
                f"GPUs**, {fmt.usd(f.cost_per_day(fleet * g, price))} a day: the most the forecast's day holds at "
                f"once, its afternoon's longer prompts included, {fmt.times(fleet / a.replicas, 3)} the peak's answer")
    return SimpleNamespace(
        summary=d.summarise(build_words=reserved),
        day_table=_day_table(rates, hourly, pools, fleet), sources_table=_sources_table(sources),
        peak_to_trough=p.peak_requests_per_s / trough.peak_requests_per_s,
        replicas_per_node=NODE_GPUS // g, ttft_s=w.ttft_s, tpot_s=w.tpot_s,
        d=d, p=p, inputs=x, trough=trough, batch=batch, cold=cold, long=d.variants["long-prompts"],
        # the fleets the page recommends: the serving model's answers
        answer=a, answer_trough=at, answer_long=d.answers["long-prompts"], answer_cold=d.answers["cold-cache"],
        answer_lent=lent, per_replica_per_s=per_replica,
        long_words=versus_napkin(d.answer_changes["long-prompts"].gpu_ratio, d.changes["long-prompts"].gpu_ratio),
        cold_words=versus_napkin(d.answer_changes["cold-cache"].gpu_ratio, d.changes["cold-cache"].gpu_ratio),
        lent_words=lent_words(a, lent), lent_gpu_ratio=d.answer_changes["batch-slo"].gpu_ratio,
        lent_napkin_gpu_ratio=d.changes["batch-slo"].gpu_ratio,
        targets_words=_targets(w), lent_targets_words=_targets(batch.workload),
        lent_gain=_per_request(a) / _per_request(lent),
        # the sentences' facts
        prefill_most=assume(p.prefill_share > 0.5, f"the napkin's prefill share {fmt.pct(p.prefill_share)}",
                            "prefill is no longer most of the replica time: rewrite what decides the signal"),
        kill_small=assume(flips_per_day * kill_replica_s / f.SECONDS_PER_HOUR < SMALL * spare_hours,
                          f"re-prefill {fmt.num(flips_per_day * kill_replica_s / f.SECONDS_PER_HOUR)} replica-hours "
                          f"a day against {fmt.count(spare_hours)} spare",
                          "the killed work is no longer small against the spare hours: price it"),
        pool_covers_node=assume(min(n for n in pools if n) >= NODE_GPUS // g,
                                f"the smallest pool the day holds {min(n for n in pools if n)} replicas, a node "
                                f"{NODE_GPUS // g}",
                                "the pool no longer covers a node at every hour it holds one: add a node's spare"),
        afternoon_full=assume(max(hourly) == fleet,  # the day fills the reservation, so no pool fits then
                              f"the day's most replicas serving {max(hourly)} of {fleet}",
                              "the reservation now holds a pool in the afternoon too: rewrite"),
        node_share=(NODE_GPUS // g) / fleet,
        shock_absorbed=assume(shock_rate <= capacity_rate,
                              f"the shock at the peak {fmt.num(shock_rate)} requests/s against the reservation's "
                              f"{fmt.num(capacity_rate)}",
                              "the reservation no longer absorbs a shock at the peak: say what it sheds there"),
        shock_exceeds=assume(excess_rate > 0,
                             f"the afternoon's shock {fmt.num(afternoon_shock)} requests/s against the reservation's "
                             f"{fmt.num(afternoon_capacity)} then",
                             "the reservation now absorbs the afternoon's shock too: rewrite the shedding"),
        day_words=lambda day_rate, missed: day_words(day_rate, missed, per_replica, ", ".join(t.words for t in rest)),
        day_bounds=listed([t.words for t in bounded]), day_token_budget=a.token_budget,
        # the day
        requests_per_day=mean_rate * f.SECONDS_PER_DAY, hourly=hourly, pools=pools,
        trough_hour_replicas=min(hourly), pool_peak=pool_peak, pool_trough=pools[hourly.index(min(hourly))],
        pool_most=max(pools), serving_most=max(hourly), fleet=fleet,
        first_order=first_order, held=held,
        first_late_minutes=held.first.run.slo_violation_minutes, late_minutes=held.day.run.slo_violation_minutes,
        below_late_minutes=None if held.below is None else held.below.run.slo_violation_minutes,
        set_point=held.day.controls.set_point, shifted_per_replica_per_s=held.day.shifted.rate_per_s,
        planned_per_replica_per_s=held.day.planned.rate_per_s,
        fleet_gpus=fleet * g, all_day_replica_hours=all_day, interactive_replica_hours=interactive_hours,
        pool_replica_hours=pool_hours, spare_replica_hours=spare_hours, spare_share=spare_hours / all_day,
        spare_usd_per_day=spare_hours * g * price, fleet_usd_per_day=f.cost_per_day(fleet * g, price),
        pool_usd_per_day=pool_hours * g * price, ramp=ramp,
        # batch work
        per_request_s=_per_request(a), batch_per_request_s=_per_request(lent),
        naive_batch_requests=naive_requests, batch_requests=batch_requests,
        pooled_batch_requests=pooled_batch_requests,
        batch_share_of_day=batch_requests / (mean_rate * f.SECONDS_PER_DAY),
        # cold start
        weight_bytes=weight_bytes, sources=sources, network=network,
        on_demand_lead_s=on_demand.total_s - on_demand.allocation_s,
        nvme=nvme, host=host, peer=peer, warmup_s=warmup_s, store_bytes_per_s=store,
        rollout_store_s=rollout_store_s,
        return_store_s=return_store_s, return_rounds=return_rounds,
        return_peer_s=return_rounds * peer.load_s, rollout_rounds=rollout_rounds,
        rollout_peer_s=rollout_rounds * peer.load_s,
        # admission
        surprise=x["surprise"], capacity_rate=capacity_rate, shock_rate=shock_rate, afternoon_rate=afternoon_rate,
        afternoon_shock=afternoon_shock, afternoon_capacity=afternoon_capacity, excess_rate=excess_rate,
        shed_share=excess_rate / afternoon_shock,
        # the rule's allowance: a minute shedding at most this share meets the SLO (engine/autoscale/fluid.py)
        shed_allowed=allowed,
        afternoon_shed_share=1 - afternoon_served, afternoon_vs_rule="past it" if 1 - afternoon_served > allowed
        else "within it",
        # those served meet the targets at their percentile, so the rest of them miss too
        afternoon_miss_share=1 - afternoon_served * (1 - allowed),
        # the reservation sheds at the afternoon's high about what the rule allows: sized to its SLO, not the forecast
        afternoon_sheds=assume(abs(1 - afternoon_served - allowed) < 0.01,
                               f"the afternoon's forecast high {fmt.num(afternoon_rate)} requests/s against the "
                               f"reservation's {fmt.num(afternoon_capacity)} then",
                               "the reservation no longer sheds about the rule's allowance at the afternoon's high: "
                               "rewrite"),
        # preemption
        kill_replica_s=kill_replica_s, drain_s=drain_s, flips_per_day=flips_per_day,
        kill_replica_hours_per_day=flips_per_day * kill_replica_s / f.SECONDS_PER_HOUR,
        # the forecast
        forecast_error=x["forecast_error"], naive_forecast_error=x["naive_forecast_error"],
        naive_pool_peak=naive_pool_peak, naive_pool_extra=naive_pool_peak - pool_peak,
        naive_pool_usd_per_day=f.cost_per_day((naive_pool_peak - pool_peak) * g, price),
        # replica shapes
        smallest=smallest, cheapest=require(cheapest(w), f"{d.file} (the cheapest shape)"),
        # the wider shape the file's comment argues against, at the token budget its own search picks
        shape_price_words=shape_price_words(a, answer(require(
            plan(dataclasses.replace(w, gpus_per_replica=WIDER, token_budget=None)), f"{d.file} ({WIDER} GPUs)")),
            price),
    )


def shape_price_words(a: Answer, wider: Answer, price: float) -> str:
    """The pinned shape against a wider one, both the serving model's answers (each at its own token budget):
    what the finer steps cost or save at the peak."""
    head = (f"On the serving model, {wider.gpus_per_replica} GPUs a replica, at the "
            f"{fmt.count(wider.token_budget)}-token budget its search picks, need {fmt.count(wider.gpus)} GPUs "
            f"against the answer's {fmt.count(a.gpus)}")
    if wider.gpus < a.gpus:
        extra = a.gpus - wider.gpus
        return (head + f", so the finer steps cost {fmt.count(extra)} GPUs at the peak, "
                f"{fmt.usd(f.cost_per_day(extra, price))} a day held: I pay it for a fleet that scales by "
                f"{a.gpus_per_replica} GPUs rather than {wider.gpus_per_replica}, and say so.")
    more = "the same count" if wider.gpus == a.gpus else f"{fmt.count(wider.gpus - a.gpus)} more"
    return head + (f", {more}: once queueing and the all-reduces are counted the wider replica is not cheaper, "
                   "and the finer steps come free.")
