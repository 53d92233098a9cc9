"""docs/designs/autoscaler.md, worked design 6: the figures beyond the plan. The day's curve in replicas
(each hour run through the planner), the warm pool from the forecast error, the replica-hours the
trough frees and the batch work they absorb, cold start from each source of weights, the morning ramp
and a rollout against the shared store, admission control under a shock, and preempting batch work.

Inputs: the workload file macros/data/designs/autoscaler.toml (its plan, its variants, and its
[design.inputs] table), data/workloads.toml's shared link rates, data/autoscale.toml's engine start,
chapter 6's NVMe rate and the NIC claim. SI units; replica-hours and requests are counts."""

from __future__ import annotations

import dataclasses
from functools import cache
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.autoscale.inputs import day_inputs
from ...engine.fleet.planner import NODE_GPUS, Plan, cheapest, plan, require
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..markdown import table
from . import design
from .autoscaling import LOCAL_NVME_BYTES_PER_S

SLUG = "autoscaler"
INPUTS = design.positive("forecast_error", "naive_forecast_error", "surprise", "store_aggregate_bytes_per_s")
TABLE_EVERY_HOURS = 2  # the day table shows every other hour: enough to see the curve, short enough to read


def inputs() -> dict[str, float]:
    """The [design.inputs] table of the design file, every key present and a positive number."""
    raw = design.inputs(SLUG, INPUTS)
    return {key: float(raw[key]) for key in INPUTS}


def _per_request(p: Plan) -> float:
    """Replica-seconds one request costs on the plan's replicas (decode plus prefill, no headroom)."""
    return p.replica_seconds_per_s / p.peak_requests_per_s


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


def _day_table(rates: list[float], hourly: list[int], pools: list[int], fleet: int) -> str:
    rows = [[f"{h}–{h + 1}", fmt.num(rates[h]), fmt.count(hourly[h]), fmt.count(pools[h]),
             fmt.count(fleet - hourly[h] - pools[h])] for h in range(0, len(rates), TABLE_EVERY_HOURS)]
    return table(["Hours after the peak", "Requests/s provisioned", "Interactive replicas", "Warm pool",
                  "Spare (lent to batch)"], rows)


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

    # The day, hour by hour from the peak: each hour provisioned for the highest rate it reaches.
    rates = f.hourly_peak_rates(p.peak_requests_per_s, trough.peak_requests_per_s)
    hourly = [require(plan(dataclasses.replace(w, peak_requests_per_s=r)), f"{d.file} (the hour at {r:.4g} requests/s)")
              .replicas for r in rates]
    pools = [f.warm_pool_replicas(n, x["forecast_error"]) for n in hourly]
    pool_peak = pools[0]
    fleet = p.replicas + pool_peak  # the reservation: peak replicas and the peak hour's pool
    all_day = fleet * f.HOURS_PER_DAY
    interactive_hours, pool_hours = sum(hourly), sum(pools)
    spare_hours = all_day - interactive_hours - pool_hours
    # the steepest hour of the morning
    ramp = max(hourly[(h + 1) % f.HOURS_PER_DAY] - hourly[h] for h in range(f.HOURS_PER_DAY))
    mean_rate = (p.peak_requests_per_s + trough.peak_requests_per_s) / 2

    # Batch work on the spare hours: priced per request at the interactive batch, then at the batch tier's.
    naive_requests = spare_hours * f.SECONDS_PER_HOUR / _per_request(p)
    batch_requests = spare_hours * f.SECONDS_PER_HOUR / _per_request(batch)
    pooled_batch_requests = (spare_hours + pool_hours) * f.SECONDS_PER_HOUR / _per_request(batch)

    # Cold start, and many replicas loading at once.
    weight_bytes = p.at_slo.weight_bytes
    warmup_s = day_inputs().engine_start_s  # the engine's start, shared with the day of traffic's cold start
    sources = _cold_start(weight_bytes, g, warmup_s)
    network, nvme, host, peer = sources
    store = x["store_aggregate_bytes_per_s"]
    rollout_store_s = max(network.load_s, f.transfer_time_s(fleet * weight_bytes, store))
    flips_per_day = hourly[0] - min(hourly)  # replicas handed back to interactive each morning
    return_store_s = max(network.load_s, f.transfer_time_s(flips_per_day * weight_bytes, store))
    return_rounds = f.fanout_rounds(flips_per_day, min(hourly))
    rollout_rounds = f.fanout_rounds(fleet - 1, 1)

    # Admission control under a shock at the peak: what the whole reservation serves, and the excess.
    capacity_rate = fleet / _per_request(p)
    shock_rate = p.peak_requests_per_s * (1 + x["surprise"])
    excess_rate = max(0.0, shock_rate - capacity_rate)

    # Preempting a batch replica for interactive work: kill (recompute later) or drain (wait).
    cold = d.variants["cold-cache"]
    kill_replica_s = batch.max_batch * cold.planned_prefill_s  # every sequence's prompt prefilled again
    drain_s = w.output_tokens * batch.planned_step_s  # the youngest sequence runs to its end

    naive_pool_peak = f.warm_pool_replicas(p.replicas, x["naive_forecast_error"])
    smallest = require(plan(dataclasses.replace(w, gpus_per_replica=None)), f"{d.file} (the smallest shape)")
    return SimpleNamespace(
        day_table=_day_table(rates, hourly, pools, fleet), sources_table=_sources_table(sources),
        peak_to_trough=p.peak_requests_per_s / trough.peak_requests_per_s,
        replicas_per_node=NODE_GPUS // g, ttft_s=w.ttft_s, tpot_s=w.tpot_s,
        long_replicas_ratio=d.variants["long-prompts"].replicas / p.replicas,
        d=d, p=p, inputs=x, trough=trough, batch=batch, cold=cold, long=d.variants["long-prompts"],
        # the day
        requests_per_day=mean_rate * f.SECONDS_PER_DAY, hourly=hourly, pools=pools,
        trough_hour_replicas=min(hourly), pool_peak=pool_peak, pool_trough=min(pools), fleet=fleet,
        fleet_gpus=fleet * g, all_day_replica_hours=all_day, interactive_replica_hours=interactive_hours,
        pool_replica_hours=pool_hours, spare_replica_hours=spare_hours, spare_share=spare_hours / all_day,
        spare_usd_per_day=spare_hours * g * price, fleet_usd_per_day=f.cost_per_day(fleet * g, price),
        pool_usd_per_day=pool_hours * g * price, ramp=ramp,
        # batch work
        per_request_s=_per_request(p), batch_per_request_s=_per_request(batch),
        naive_batch_requests=naive_requests, batch_requests=batch_requests,
        pooled_batch_requests=pooled_batch_requests,
        batch_share_of_day=batch_requests / (mean_rate * f.SECONDS_PER_DAY),
        # cold start
        weight_bytes=weight_bytes, sources=sources, network=network,
        nvme=nvme, host=host, peer=peer, warmup_s=warmup_s, store_bytes_per_s=store,
        rollout_store_s=rollout_store_s,
        return_store_s=return_store_s, return_rounds=return_rounds,
        return_peer_s=return_rounds * peer.load_s, rollout_rounds=rollout_rounds,
        rollout_peer_s=rollout_rounds * peer.load_s,
        # admission
        surprise=x["surprise"], capacity_rate=capacity_rate, shock_rate=shock_rate, excess_rate=excess_rate,
        shed_share=excess_rate / shock_rate, shed_per_network_lead=excess_rate * network.lead_s,
        absorbed_share=capacity_rate / p.peak_requests_per_s - 1,
        # preemption
        kill_replica_s=kill_replica_s, drain_s=drain_s, flips_per_day=flips_per_day,
        kill_replica_hours_per_day=flips_per_day * kill_replica_s / f.SECONDS_PER_HOUR,
        # the forecast
        forecast_error=x["forecast_error"], naive_forecast_error=x["naive_forecast_error"],
        naive_pool_peak=naive_pool_peak, naive_pool_extra=naive_pool_peak - pool_peak,
        naive_pool_usd_per_day=f.cost_per_day((naive_pool_peak - pool_peak) * g, price),
        # replica shapes
        smallest=smallest, cheapest=require(cheapest(w), f"{d.file} (the cheapest shape)"),
    )
