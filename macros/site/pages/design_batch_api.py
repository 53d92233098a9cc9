"""The batch API design (docs/designs/batch-api.md): the figures beyond the plan. How much of the
interactive fleet's trough the day's batch volume needs, what a token costs batch against interactive,
packed prefill, what a request costs a KV-bound replica and the tenants' fair shares, the work a
preemption loses, and the dedicated floor that finishes one file within the hour. Values in SI units.

The assumptions come from the design file's [design.inputs] table, never from constants here.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet.planner import Plan, with_prefill
from ...engine.model.geometry import prefill_attention_flops
from ...engine.specs import display_path
from . import design

SLUG = "batch-api"
HOURS = range(f.HOURS_PER_DAY)  # hours from the interactive peak, one sample an hour
INPUTS = {"interactive_variant": design.TEXT, "tenant_light": design.TABLE, "tenant_heavy": design.TABLE,
          **design.positive("prefill_batch_tokens", "file_requests", "file_target_s", "weight_load_bytes_per_s")}


def inputs() -> dict[str, Any]:
    """[design.inputs] of the design file, each present and of its kind (one line naming the field otherwise)."""
    path = design.DESIGNS_DIR / f"{SLUG}.toml"
    raw = design.inputs(SLUG, INPUTS, path)
    where = f"{display_path(path)}: [design.inputs]"
    for key in ("tenant_light", "tenant_heavy"):
        if not {"prompt_tokens", "output_tokens"} <= set(raw[key]):
            raise design.DesignError(f"{where} {key} needs prompt_tokens and output_tokens")
    return raw


def _packed_prefill_s(p: Plan, prompt_tokens: float, uncached: float, batch_tokens: float) -> float:
    """One request's planned prefill when prompts are packed `batch_tokens` to a step."""
    s, m = p.at_slo, p.at_slo.model_spec
    attention = prefill_attention_flops(m, prompt_tokens) - prefill_attention_flops(m, prompt_tokens - uncached)
    compute = f.compute_time_s(f.prefill_flops(s.active_params, uncached, attention), s.gpus, s.gpu_peak_flops)
    read = f.memory_time_s(s.weight_bytes, s.gpus, s.gpu_bandwidth_bytes_per_s)
    return f.planned_time_s(f.packed_prefill_s(compute, read, batch_tokens / uncached), p.efficiency)


def _per_million_daily(p: Plan) -> float:
    """Cost per million output tokens over the day: the fleet's daily cost over its daily output."""
    w = p.workload
    return p.cost_per_day / (w.requests_per_day * w.output_tokens) * 1e6


def model() -> SimpleNamespace:
    x = inputs()
    d = design.model(SLUG, infeasible_ok=True)
    if not d.feasible:  # no fleet on this data: the pages say so (d.infeasible_words) instead of these figures
        return SimpleNamespace(inputs=x, d=d, feasible=False, serves=d.serves)
    p, w = d.plan, d.workload
    dp = d.variants["dp-attention"]
    iv = d.variants[x["interactive_variant"]]

    # Packed prefill, both layouts (critique 2)
    packed_s = _packed_prefill_s(p, w.prompt_tokens, p.uncached_prompt_tokens, x["prefill_batch_tokens"])
    packed, packed_dp = with_prefill(p, packed_s), with_prefill(dp, packed_s)

    # The interactive fleet's day and what it can lend, hour by hour from its peak
    loads = [f.diurnal_load_fraction(h, iv.workload.peak_to_mean) for h in HOURS]
    lendable = [f.lendable_replicas(iv.replicas, iv.replica_seconds_per_s, load, iv.headroom) for load in loads]
    batch_hours = packed.replica_seconds_per_s * f.HOURS_PER_DAY  # the day's batch work in replica-hours, packed
    best_first, cumulative, hours_needed = sorted(lendable, reverse=True), 0.0, 0
    for spare in best_first:
        if cumulative >= batch_hours:
            break
        cumulative, hours_needed = cumulative + spare, hours_needed + 1

    # What a request costs: α per prompt token (packed prefill), β per output token in a full slot
    alpha = packed_s / p.uncached_prompt_tokens
    beta = 1 / p.decode_tokens_per_s_per_replica
    tenants = {}  # every prompt token counted uncached: two tenants with nothing shared
    for name in ("light", "heavy"):
        t = x[f"tenant_{name}"]
        tenants[name] = SimpleNamespace(
            prompt_tokens=t["prompt_tokens"], output_tokens=t["output_tokens"],
            tokens=t["prompt_tokens"] + t["output_tokens"],
            cost_s=f.kv_bound_request_cost_s(t["prompt_tokens"], t["output_tokens"], alpha, beta, p.seq_len))
    light, heavy = tenants["light"], tenants["heavy"]
    by_requests = f.round_robin_shares([light.cost_s, heavy.cost_s])[1]
    # fair by raw tokens: equal tokens each, so each tenant's time is its cost per token
    by_tokens = f.round_robin_shares([light.cost_s / light.tokens, heavy.cost_s / heavy.tokens])[1]

    # One file within the hour (critique 4): its replica-seconds over the target
    request_s = p.uncached_prompt_tokens * alpha + w.output_tokens * beta  # the mean request fills one slot
    file_s = x["file_requests"] * request_s
    floor_replicas = f.whole_count(file_s / x["file_target_s"])

    # A preemption without notice (critique 5); the drain a notice allows; the reload after it
    daily_output = w.requests_per_day * w.output_tokens
    floor_cost = f.cost_per_day(floor_replicas * p.gpus_per_replica, p.price_per_gpu_hour)
    lost_s = f.preemption_lost_s(p.slo_batch, packed_s, w.output_tokens, p.planned_step_s)
    reload_s = f.transfer_time_s(p.at_slo.weight_bytes / p.gpus_per_replica, x["weight_load_bytes_per_s"])

    return SimpleNamespace(
        inputs=x, d=d, feasible=True, serves=d.serves, plan=p, dp=dp, interactive=iv,
        long_output_ratio=d.variants["long-outputs"].workload.output_tokens / w.output_tokens,
        # placement
        tp_kv_copies=p.at_slo.kv_copies, dp_kv_copies=dp.at_slo.kv_copies,
        kv_per_seq_held_tp=p.kv_bytes_per_seq_group,
        attention_bytes=dp.at_slo.weight_bytes_held - dp.at_slo.weight_bytes,
        kv_budget_tp=p.at_slo.kv_budget_bytes, kv_budget_dp=dp.at_slo.kv_budget_bytes,
        batch_gain=dp.slo_batch / p.slo_batch,
        # prefill
        alone_prefill_s=p.planned_prefill_s, packed_prefill_s=packed_s, prompts_per_step=x[
            "prefill_batch_tokens"] / p.uncached_prompt_tokens,
        weight_read_s=f.memory_time_s(p.at_slo.weight_bytes, p.gpus_per_replica, p.at_slo.gpu_bandwidth_bytes_per_s),
        packed=packed, packed_dp=packed_dp,
        # the trough
        peak_lendable=lendable[0], trough_lendable=lendable[12], lendable_replica_hours=sum(lendable),
        batch_replica_hours=batch_hours, trough_used=batch_hours / sum(lendable),
        absorbed=min(1.0, sum(lendable) / batch_hours), hours_needed=hours_needed,
        trough_load=loads[12], interactive_busy_trough=iv.replica_seconds_per_s * loads[12],
        # cost per million output tokens
        interactive_per_million=_per_million_daily(iv),
        batch_ratio=_per_million_daily(p) / _per_million_daily(iv),
        interactive_daily_over_peak=_per_million_daily(iv) / iv.cost_per_million_output_tokens,
        borrowed_cost_per_day=batch_hours * p.gpus_per_replica * p.price_per_gpu_hour,
        # fairness
        alpha_s=alpha, beta_s=beta, output_over_input=beta / alpha, light=light, heavy=heavy,
        heavy_over_light=heavy.cost_s / light.cost_s, heavy_share_by_requests=by_requests,
        heavy_share_by_tokens=by_tokens,
        # a file, a preemption
        request_s=request_s, file_replica_s=file_s, floor_replicas=floor_replicas,
        floor_gpus=floor_replicas * p.gpus_per_replica,
        files_per_hour=w.requests_per_day / x["file_requests"] / f.HOURS_PER_DAY,
        floor_cost_per_day=floor_cost, floor_per_million=floor_cost / daily_output * 1e6,
        lost_s=lost_s,
        drain_s=w.output_tokens * p.planned_step_s, reload_s=reload_s,
    )
