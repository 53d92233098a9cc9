"""The LoRA platform design's figures beyond the plan (docs/designs/lora-platform.md): an adapter's bytes and
FLOPs, adapter slots per replica, the catalogue against host memory, load times, the adapter read a decode
step pays, resident-set hit rates under two routings, hot adapters, KV quotas, a lost replica's reload and
the merge-or-not split. Inputs are the design file's [design.inputs]; values in SI units."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.model.adapters import adapter
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from . import design

SLUG = "lora-platform"


INPUTS = {"targets": design.LIST, "adapter_dtype": design.TEXT, **design.positive(
    "tenants", "adapters", "popularity_exponent", "flat_popularity_exponent", "rank", "rank_cap",
    "adapter_slice_bytes", "host_memory_bytes_per_node", "node_gpus", "kv_quota_share")}


def inputs(slug: str = SLUG) -> dict[str, Any]:
    """The design's own assumptions: the [design.inputs] table of macros/data/designs/<slug>.toml."""
    return design.inputs(slug, INPUTS)


def _hot(shares: list[float], busy_replicas: float) -> list[float]:
    """The shares of the adapters whose own load, at the peak, is more than one replica keeps busy."""
    return [p for p in shares if p * busy_replicas > 1]


def model(slug: str = SLUG) -> SimpleNamespace:
    i, shared = inputs(slug), workloads()
    d = design.model(slug)
    p, w, s = d.plan, d.workload, d.plan.at_slo
    reads, salted = d.variants["adapter-reads"], d.variants["tenant-salted"]
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
    # adapter on one replica, so the fleet's slots add up. Scale-in to the mean shrinks the fleet.
    mean_replicas = math.ceil(p.replicas / w.peak_to_mean)
    fleet_slots, mean_slots = slots * p.replicas, slots * mean_replicas

    # Hot adapters: their own load is more than a replica. Merging them runs their traffic without the
    # adapter read, on dedicated replicas rounded up each; the rest stays in the unmerged pool, whose
    # step still reads about as many distinct adapters (three fewer of ~a hundred).
    hot = _hot(shares, p.replica_seconds_per_s)
    merged_replicas = sum(f.replicas_for_load(q * p.replica_seconds_per_s, w.headroom) for q in hot)
    pooled_replicas = f.replicas_for_load((1 - sum(hot)) * reads.replica_seconds_per_s, w.headroom)
    base_flops_per_token = f.decode_step_flops(s.active_params, 1)

    return SimpleNamespace(
        d=d, plan=p, workload=w, reads=reads, salted=salted, inputs=i, adapter=a, adapter_cap=a_cap,
        pcie_bytes_per_s=pcie, storage_bytes_per_s=storage,
        targets=", ".join(targets), adapter_flop_share=a.flops_per_token / base_flops_per_token,
        # memory: the slice, its slots, what it costs the batch
        slots=slots, slots_cap=slots_cap, spare_kv_at_slo=p.spare_kv_bytes,
        max_batch_with_slice=int(f.max_batch(budget_with_slice, p.kv_bytes_per_seq_group)),
        adapters_per_replica=i["adapters"] / p.replicas, fleet_slots=fleet_slots,
        catalogue_bytes=i["adapters"] * a.bytes, catalogue_cap_bytes=i["adapters"] * a_cap.bytes,
        catalogue_cap_host_share=i["adapters"] * a_cap.bytes / i["host_memory_bytes_per_node"],
        # loads, as floors
        load_host_s=f.transfer_time_s(a.bytes, pcie),
        load_storage_s=f.transfer_time_s(a.bytes, storage),
        # the step's adapter read (critique 1)
        distinct_random=distinct_random, distinct=distinct, adapter_read_bytes=distinct * a.bytes,
        adapter_read_share=distinct * a.bytes / s.decode_bytes, step_floor_s=step_floor,
        step_planned_s=f.planned_time_s(step_floor, w.efficiency),
        # critique 1's revision: "more than the slots", "over the target"
        # capped at the slots the replica holds: the whole slice, or each distinct adapter once
        slots_words=(f"more than the {slots} slots, so the step can read the whole slice" if distinct_random > slots
                     else f"fewer than the {slots} slots, so the step reads each of them once"),
        over_target=assume(f.planned_time_s(step_floor, w.efficiency) > w.tpot_s,
                           f"planned step {fmt.ms(f.planned_time_s(step_floor, w.efficiency))}, target "
                           f"{fmt.ms(w.tpot_s)}", "the adapter read no longer pushes the step past the target"),
        derated_efficiency=w.efficiency * s.decode_bytes / step_bytes,
        slice_read_s=f.memory_time_s(slice_bytes, p.gpus_per_replica, s.gpu_bandwidth_bytes_per_s),
        # hit rates (critique 2)
        hit_random=f.popular_set_hit_rate(shares, slots),
        hit_affinity=f.popular_set_hit_rate(shares, fleet_slots),
        mean_replicas=mean_replicas, mean_slots=mean_slots,
        miss_at_mean=1 - f.popular_set_hit_rate(shares, mean_slots),
        miss_at_mean_flat=1 - f.popular_set_hit_rate(flat, mean_slots),
        # hot adapters (critique 4 and section 9's merge)
        fleet_busy=p.replica_seconds_per_s / p.replicas,
        top_share=shares[0], top_load_replicas=shares[0] * p.replica_seconds_per_s,
        top_replicas=f.replicas_for_load(shares[0] * p.replica_seconds_per_s, w.headroom),
        hot_count=len(hot), hot_share=sum(hot), pooled_share=1 - sum(hot),
        merged_replicas=merged_replicas, pooled_replicas=pooled_replicas,
        split_gpus=(merged_replicas + pooled_replicas) * p.gpus_per_replica,
        merge_saves_gpus=reads.gpus - (merged_replicas + pooled_replicas) * p.gpus_per_replica,
        tax_gpus=d.changes["adapter-reads"].extra_gpus,
        # tenants: fair shares and KV quotas
        tenant_tokens_per_s=(w.peak_output_tokens_per_s + p.peak_input_tokens_per_s) / i["tenants"],
        quota_bytes=i["kv_quota_share"] * budget_with_slice,
        quota_sequences=int(f.max_batch(i["kv_quota_share"] * budget_with_slice, p.kv_bytes_per_seq_group)),
        # a lost replica, a lost node (critique 5)
        slice_reload_host_s=f.transfer_time_s(slice_bytes, pcie),
        slice_reload_storage_s=f.transfer_time_s(slice_bytes, storage),
        node_reload_storage_s=f.transfer_time_s(i["node_gpus"] * slice_bytes, storage),
        live_per_replica=p.live_sequences, reprefill_replica_s=p.live_sequences * p.planned_prefill_s,
        catalogue_storage_s=f.transfer_time_s(i["adapters"] * a.bytes, storage),
        # a new replica: the base model is every tenant's, so it loads once, from host memory or storage
        base_load_host_s=f.transfer_time_s(s.weight_bytes, pcie),
        base_load_storage_s=f.transfer_time_s(s.weight_bytes, storage),
        salted_extra_gpus=d.changes["tenant-salted"].extra_gpus,
        # a deleted tenant (critique 6): every node's host tier holds the whole catalogue, so each of the
        # tenant's adapters has one copy per node (replicas are whole GPUs, so the node count is exact)
        nodes=math.ceil(p.gpus / i["node_gpus"]), tenant_adapters=i["adapters"] / i["tenants"],
        tenant_host_copies=i["adapters"] / i["tenants"] * math.ceil(p.gpus / i["node_gpus"]),
    )
