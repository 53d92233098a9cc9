"""The LoRA platform design's figures beyond the plan (docs/designs/lora-platform.md): an adapter's bytes and
FLOPs, adapter slots per replica, the catalogue against host memory, load times, the adapter read a decode
step pays, resident-set hit rates under two routings, hot adapters, KV quotas, a lost replica's reload and
the merge-or-not split. Inputs are the design file's [design.inputs]; values in SI units.

Every fleet, replica count, GPU count and cost is the serving model's answer (design.model's `answer`,
`answer_changes`): the fleet's slots, the replicas at the mean, the hot adapters (their load against what one
of the answer's replicas carries at the peak), the nodes a tenant's adapters sit on. The serving model's step
reads each step's distinct adapters (engine/serving/adapters.py), so the answer includes the read; the merged
variant (no adapter to read) prices it, and section 9's merge is priced at the rates the two answers' replicas
meet the targets at. The napkin (`d.plan`) gives per-step physics, first order: an adapter's bytes against a
step's at the SLO batch, the KV budget, planned prefill."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet import workload_file
from ...engine.lookup import lookup
from ...engine.model.adapters import adapter
from ...engine.serving.adapters import ADAPTER_DTYPE
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from . import design, design_noise

SLUG = "lora-platform"


INPUTS = design.positive("tenants", "flat_popularity_exponent", "rank_cap", "host_memory_bytes_per_node", "node_gpus",
                         "kv_quota_share")


def _load(key: str) -> tuple[float, float]:
    """A reported adapter load time's range (s), from the design's claims."""
    c = lookup("claim", key, catalog().claims)
    return c.low, c.high


def inputs(slug: str = SLUG) -> dict[str, Any]:
    """The design's own assumptions: the [design.inputs] table of macros/data/designs/<slug>.toml, with the adapter
    mix its workload's [adapters] gives the serving model (catalogue, Zipf exponent, rank, slice) and the targets
    and format the step reads every adapter in."""
    w, _ = workload_file.design(slug)
    return {**design.inputs(slug, INPUTS), "adapters": w.adapters, "popularity_exponent": w.adapter_popularity,
            "rank": w.adapter_rank, "adapter_slice_bytes": w.adapter_slice_bytes, "targets": list(f.LORA_TARGETS),
            "adapter_dtype": ADAPTER_DTYPE}


def _hot(shares: list[float], replicas: float) -> list[float]:
    """The shares of the adapters whose own load, at the peak, is more than one of `replicas` carries."""
    return [p for p in shares if p * replicas > 1]


def catalogue_words(fleet_slots: int, adapters: int, hit: float) -> str:
    """What the answer's fleet of slots holds, homed by affinity: the whole catalogue, or the adapters that carry
    `hit` of the requests."""
    if fleet_slots >= adapters:
        return f"enough for the whole catalogue of {fmt.count(adapters)} with each adapter on one home replica"
    return (f"fewer than the catalogue's {fmt.count(adapters)}: homed by affinity, they hold the adapters that carry "
            f"{fmt.pct(hit)} of the requests, and the rest load from host memory")


def miss_words(miss: float, quantile: float = 0.95) -> str:
    """Whether a request at the quantile (p95) is a cold one: more than 1 - quantile of requests miss."""
    one_in = round(1 / (1 - quantile))
    if miss > 1 - quantile:
        return f"more than one in {one_in}, so the p{round(quantile * 100)} request is a cold one"
    return f"fewer than one in {one_in}, so the p{round(quantile * 100)} request still finds its adapter"


def read_cost_words(unmerged_gpus: int, merged_gpus: int) -> str:
    """Revision 1: what the adapter read costs the serving model's answer, against the same traffic with none."""
    if unmerged_gpus > merged_gpus:
        return (f"{unmerged_gpus} GPUs against {merged_gpus} with no adapter read, a bound: the read costs "
                f"{unmerged_gpus - merged_gpus} GPU{'s' if unmerged_gpus - merged_gpus > 1 else ''}")
    return f"{unmerged_gpus} GPUs, the same as with no adapter read: the read costs no GPU at this peak"


def napkin_read_words(slo_batch: int, live: float) -> str:
    """Revision 1: whose adapter read is the larger, the napkin's at its SLO batch or a simulated replica's at the
    sequences it runs at the peak (more sequences draw more distinct adapters)."""
    more = slo_batch > live
    return (f"The napkin's read is the {'larger' if more else 'smaller'}: its SLO batch of {slo_batch} draws "
            f"{'more' if more else 'fewer'} distinct adapters than the {fmt.num(live)} sequences a simulated replica "
            "runs at the peak")


def cold_ttft_words(ttft_p95_s: float, load_low_s: float, load_high_s: float, target_s: float) -> str:
    """Revision 2: a cold request's TTFT, the answer's p95 plus a reported load's range, against the target."""
    low, high = ttft_p95_s + load_low_s, ttft_p95_s + load_high_s
    if high <= target_s:
        verdict = "inside it"
    elif low > target_s:
        verdict = f"over it by {fmt.pct(low / target_s - 1)} to {fmt.pct(high / target_s - 1)}"
    else:
        verdict = f"inside it at the fast end and over it by {fmt.pct(high / target_s - 1)} at the slow end"
    return f"{fmt.seconds(low)} to {fmt.seconds(high)}, {verdict}"


def homed_words(per_replica: float, slots: int) -> str:
    """Revision 1: whether affinity routing alone bounds the distinct adapters a replica's step can read."""
    if per_replica <= slots:
        return (f"Affinity routing already limits a replica to its own {fmt.num(per_replica)} homed adapters, no "
                f"more than its {slots} slots")
    return (f"Affinity routing homes {fmt.num(per_replica)} adapters on each of the answer's replicas, more than its "
            f"{slots} slots, so routing alone does not bound the read")


def merge_words(split_gpus: int, unmerged_gpus: int, tied: bool) -> str:
    """Section 9: the merged-and-pooled fleet against the unmerged one, in words; `tied`: inside the span the
    calibrated band gives the unmerged answer (design_noise.tie)."""
    if tied:
        return f"{split_gpus} GPUs against {unmerged_gpus} unmerged: a tie inside the calibrated band"
    if split_gpus < unmerged_gpus:
        return f"{split_gpus} GPUs against {unmerged_gpus} unmerged, {unmerged_gpus - split_gpus} saved"
    if split_gpus == unmerged_gpus:
        return f"{split_gpus} GPUs, the same as unmerged"
    return f"{split_gpus} GPUs against {unmerged_gpus} unmerged, {split_gpus - unmerged_gpus} more"


def model(slug: str = SLUG) -> SimpleNamespace:
    i, shared = inputs(slug), workloads()
    d = design.model(slug)
    p, w, s = d.plan, d.workload, d.plan.at_slo
    ans = d.answer  # the serving model's fleet: every replica count below is its
    merged, salted = d.answers["merged"], d.variants["tenant-salted"]
    pcie, storage = shared["pcie_bytes_per_s"], shared["network_storage_bytes_per_s"]
    targets = tuple(i["targets"])
    a = adapter(w.model, i["rank"], targets, i["adapter_dtype"])
    a_cap = adapter(w.model, i["rank_cap"], targets, i["adapter_dtype"])
    slice_bytes = i["adapter_slice_bytes"]
    slots, slots_cap = int(f.max_batch(slice_bytes, a.bytes)), int(f.max_batch(slice_bytes, a_cap.bytes))
    budget_with_slice = s.kv_budget_bytes - slice_bytes

    # The step at the SLO batch: u distinct adapters, at most the slots, each read once.
    shares = f.zipf_shares(i["adapters"], i["popularity_exponent"])
    flat = f.zipf_shares(i["adapters"], i["flat_popularity_exponent"])
    distinct_random = f.expected_distinct(shares, p.slo_batch)
    distinct = min(distinct_random, slots)
    step_bytes = f.lora_step_bytes(s.decode_bytes, distinct, a.bytes)
    step_floor = f.memory_time_s(step_bytes, p.gpus_per_replica, s.gpu_bandwidth_bytes_per_s)

    # Resident sets: random routing gives every replica the whole mix; affinity routing homes each
    # adapter on one replica, so the answer's slots add up. Scale-in to the mean shrinks the fleet (first
    # order: the answer's count over the peak-to-mean ratio).
    mean_replicas = math.ceil(ans.replicas / w.peak_to_mean)
    fleet_slots, mean_slots = slots * ans.replicas, slots * mean_replicas
    hit_affinity = f.popular_set_hit_rate(shares, fleet_slots)
    read_share = distinct * a.bytes / s.decode_bytes

    # Hot adapters: their own load at the peak is more than one of the answer's replicas carries. Merging them
    # runs their traffic without the adapter read, on dedicated replicas rounded up each at the rate a replica of
    # the merged answer meets the targets at; the rest stays in the unmerged pool, at the answer's rate (its steps
    # still read about as many distinct adapters, the hot ones being two of many).
    hot = _hot(shares, ans.replicas)
    merged_rate, unmerged_rate = merged.simulated_requests_per_s_per_replica, ans.simulated_requests_per_s_per_replica
    merged_replicas = sum(math.ceil(q * w.peak_requests_per_s / merged_rate) for q in hot)
    pooled_replicas = math.ceil((1 - sum(hot)) * w.peak_requests_per_s / unmerged_rate)
    split_gpus = (merged_replicas + pooled_replicas) * ans.gpus_per_replica
    base_flops_per_token = f.decode_step_flops(s.active_params, 1)

    return SimpleNamespace(
        d=d, plan=p, workload=w, merged=merged, salted=salted, inputs=i, adapter=a, adapter_cap=a_cap,
        pcie_bytes_per_s=pcie, storage_bytes_per_s=storage,
        targets=", ".join(targets), adapter_flop_share=a.flops_per_token / base_flops_per_token,
        # memory: the slice, its slots, what it costs the batch
        slots=slots, slots_cap=slots_cap, spare_kv_at_slo=p.spare_kv_bytes,
        max_batch_with_slice=int(f.max_batch(budget_with_slice, p.kv_bytes_per_seq_group)),
        adapters_per_replica=i["adapters"] / ans.replicas, fleet_slots=fleet_slots,
        catalogue_words=catalogue_words(fleet_slots, i["adapters"], hit_affinity),
        # the slice that would home the whole catalogue on the answer's replicas, against the KV its sequences in
        # flight at the peak leave (its run, by Little's law; each at full context)
        catalogue_slice_bytes=i["adapters"] * a.bytes / ans.replicas,
        room_at_peak_bytes=s.kv_budget_bytes - ans.live_concurrency_per_replica * p.kv_bytes_per_seq_group,
        catalogue_bytes=i["adapters"] * a.bytes, catalogue_cap_bytes=i["adapters"] * a_cap.bytes,
        catalogue_cap_host_share=i["adapters"] * a_cap.bytes / i["host_memory_bytes_per_node"],
        # loads, as floors
        load_host_s=f.transfer_time_s(a.bytes, pcie),
        load_storage_s=f.transfer_time_s(a.bytes, storage),
        # the step's adapter read (critique 1)
        distinct_random=distinct_random, distinct=distinct, adapter_read_bytes=distinct * a.bytes,
        adapter_read_share=read_share, step_floor_s=step_floor,
        read_cost_gpus=ans.gpus - merged.gpus, read_cost_words=read_cost_words(ans.gpus, merged.gpus),
        napkin_read_words=napkin_read_words(p.slo_batch, ans.live_concurrency_per_replica),
        homed_words=homed_words(i["adapters"] / ans.replicas, slots),
        step_planned_s=f.planned_time_s(step_floor, w.efficiency),
        # critique 1's revision: "more than the slots", "over the target"
        # capped at the slots the replica holds: the whole slice, or each distinct adapter once
        slots_words=(f"more than the {slots} slots, so the step can read the whole slice" if distinct_random > slots
                     else f"fewer than the {slots} slots, so the step reads each of them once"),
        over_target=assume(f.planned_time_s(step_floor, w.efficiency) > w.tpot_s,
                           f"planned step {fmt.ms(f.planned_time_s(step_floor, w.efficiency))}, target "
                           f"{fmt.ms(w.tpot_s)}", "the adapter read no longer pushes the step past the target"),
        slice_read_s=f.memory_time_s(slice_bytes, p.gpus_per_replica, s.gpu_bandwidth_bytes_per_s),
        # hit rates (critique 2)
        hit_random=f.popular_set_hit_rate(shares, slots),
        hit_affinity=hit_affinity, miss_at_peak=1 - hit_affinity, peak_miss_words=miss_words(1 - hit_affinity),
        mean_replicas=mean_replicas, mean_slots=mean_slots,
        miss_at_mean=1 - f.popular_set_hit_rate(shares, mean_slots),
        mean_miss_words=miss_words(1 - f.popular_set_hit_rate(shares, mean_slots)),
        miss_at_mean_flat=1 - f.popular_set_hit_rate(flat, mean_slots),
        # hot adapters (critique 4, on the answer) and section 9's merge (on the napkin, which prices the read)
        top_share=shares[0], top_load_replicas=shares[0] * ans.replicas,
        top_replicas=math.ceil(shares[0] * ans.replicas),
        hot_count=len(hot), hot_share=sum(hot), pooled_share=1 - sum(hot),
        merged_replicas=merged_replicas, pooled_replicas=pooled_replicas,
        split_gpus=split_gpus,
        merge_words=merge_words(split_gpus, ans.gpus, design_noise.tie(ans, gpus=split_gpus)),
        # tenants: fair shares and KV quotas
        tenant_tokens_per_s=(w.peak_output_tokens_per_s + p.peak_input_tokens_per_s) / i["tenants"],
        quota_bytes=i["kv_quota_share"] * budget_with_slice,
        quota_sequences=int(f.max_batch(i["kv_quota_share"] * budget_with_slice, p.kv_bytes_per_seq_group)),
        # a lost replica, a lost node (critique 5)
        slice_reload_host_s=f.transfer_time_s(slice_bytes, pcie),
        slice_reload_storage_s=f.transfer_time_s(slice_bytes, storage),
        node_reload_storage_s=f.transfer_time_s(i["node_gpus"] * slice_bytes, storage),
        # the answer's sequences in flight per replica (its run), each re-prefilled at the napkin's planned prefill
        live_per_replica=ans.live_concurrency_per_replica,
        reprefill_replica_s=ans.live_concurrency_per_replica * p.planned_prefill_s,
        catalogue_storage_s=f.transfer_time_s(i["adapters"] * a.bytes, storage),
        # a new replica: the base model is every tenant's, so it loads once, from host memory or storage
        base_load_host_s=f.transfer_time_s(s.weight_bytes, pcie),
        base_load_storage_s=f.transfer_time_s(s.weight_bytes, storage),
        cold_ttft_fast_words=cold_ttft_words(ans.ttft_p95_s, *_load("lora-platform-serverlessllm-load"), w.ttft_s),
        cold_ttft_slow_words=cold_ttft_words(ans.ttft_p95_s, *_load("lora-platform-lorax-load"), w.ttft_s),
        spare_cost_per_day=ans.cost_per_day / ans.replicas,
        salted_extra_gpus=d.answer_changes["tenant-salted"].extra_gpus,
        # the revision's table calls the two fleets a tie when the salted one lies inside the answer's band
        salted_verdict=("inside the band: worth paying"
                        if design_noise.tie(ans, d.answers["tenant-salted"]) else "I would pay it"),
        salted_extra_cost_per_day=d.answer_changes["tenant-salted"].extra_cost_per_day,
        copy_words=("one base copy per GPU serves every tenant" if ans.gpus_per_replica == 1 else
                    f"one base copy per {ans.gpus_per_replica}-GPU replica serves every tenant"),
        # a deleted tenant (critique 6): every node's host tier holds the whole catalogue, so each of the
        # tenant's adapters has one copy per node of the answer's fleet (the nodes it fills, rounded up)
        nodes=math.ceil(ans.gpus / i["node_gpus"]), tenant_adapters=i["adapters"] / i["tenants"],
        tenant_host_copies=i["adapters"] / i["tenants"] * math.ceil(ans.gpus / i["node_gpus"]),
    )
