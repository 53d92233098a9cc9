"""The batch API design (docs/designs/batch-api.md): the figures beyond the plan. How much of the
interactive fleet's trough the day's batch volume needs, what a token costs batch against interactive,
packed prefill, what a request costs a KV-bound replica and the tenants' fair shares, the work a
preemption loses, and the dedicated floor that finishes one file within the hour. Values in SI units.

Every fleet, count and cost the page recommends is the serving model's answer (design.model's `answer` and
`answers`): the interactive fleet the batch borrows from, the day's batch work in node-hours, what a token
costs each product, the floor. Per-token and per-step physics (KV copies, packed prefill, the tenants' costs,
a drain, a preemption) stays the napkin's first-order derivation, and the page says so. Where the two
disagree on a revision, the words saying why come from the answers' own runs.

The assumptions come from the design file's [design.inputs] table, never from constants here.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet.answer import Answer
from ...engine.fleet.planner import Plan, with_prefill
from ...engine.model.geometry import prefill_attention_flops
from ...engine.serving.calibration import band_for
from ...engine.specs import catalog, display_path
from ...text import fmt
from ..assumptions import assume, phrase
from . import design, design_answer

SLUG = "batch-api"
HOURS = range(f.HOURS_PER_DAY)  # hours from the interactive peak, one sample an hour
INPUTS = {"interactive_variant": design.TEXT, "tenant_light": design.TABLE, "tenant_heavy": design.TABLE,
          **design.positive("file_requests", "file_target_s", "weight_load_bytes_per_s")}
DISCOUNT = "batch-api-openai-discount"  # the claim whose discount off the interactive price the batch must afford


def inputs() -> dict[str, Any]:
    """[design.inputs] of the design file, each present and of its kind (one line naming the field otherwise)."""
    path = design.DESIGNS_DIR / f"{SLUG}.toml"
    raw = design.inputs(SLUG, INPUTS, path)
    where = f"{display_path(path)}: [design.inputs]"
    for key in ("tenant_light", "tenant_heavy"):
        if not {"prompt_tokens", "output_tokens"} <= set(raw[key]):
            raise design.DesignError(f"{where} {key} needs prompt_tokens and output_tokens")
    return raw


def _prefill_floors(p: Plan, prompt_tokens: float, uncached: float) -> tuple[float, float]:
    """One request's prefill compute and one read of the weights, floors in seconds."""
    s, m = p.at_slo, p.at_slo.model_spec
    attention = prefill_attention_flops(m, prompt_tokens) - prefill_attention_flops(m, prompt_tokens - uncached)
    compute = f.compute_time_s(f.prefill_flops(s.active_params, uncached, attention), s.gpus, s.gpu_peak_flops)
    return compute, f.memory_time_s(s.weight_bytes, s.gpus, s.gpu_bandwidth_bytes_per_s)


def _packed_prefill_s(p: Plan, prompt_tokens: float, uncached: float, batch_tokens: float) -> float:
    """One request's planned prefill when prompts are packed `batch_tokens` to a step."""
    compute, read = _prefill_floors(p, prompt_tokens, uncached)
    return f.planned_time_s(f.packed_prefill_s(compute, read, batch_tokens / uncached), p.efficiency)


def packed_bound_words(compute_s: float, read_s: float, prompts_per_step: float, uncached_tokens: float) -> str:
    """Which term binds a step that packs prompts_per_step prompts (formulas.packed_prefill_s), in words."""
    if prompts_per_step * compute_s >= read_s:
        return "and the step is compute-bound"
    need = read_s / compute_s  # prompts a step from which their compute outlasts the read
    return (f"and the step is still bound by the weight read: compute binds from about {fmt.num(need)} prompts, "
            f"{fmt.count(need * uncached_tokens)} tokens, a step")


def _per_million_daily(cost_per_day: float, p: Plan) -> float:
    """Cost per million output tokens over the day: a fleet's daily cost over the day's output of p's workload."""
    w = p.workload
    return f.cost_per_million_tokens_over_day(cost_per_day, w.requests_per_day * w.output_tokens)


def margin_words(batch_ratio: float, discount: float, spread: float) -> str:
    """What a standalone batch fleet's cost per token, as a share of the interactive fleet's, leaves of a discount
    off the interactive price: the margin over cost interactive prices need for batch to break even. `spread` is
    the calibrated band's p90 over its p10 on the GPU: two fleets the model prices there can be off against each
    other by that factor, so a ratio that close to the share is a tie, not a margin."""
    share = 1 - discount
    tie = (f", but by less than the calibrated band allows: two fleets priced on this model can be off against each "
           f"other by up to {fmt.pct(spread - 1)}, so on it the two are a tie, and measured fleets decide")
    leaves = f"the {fmt.pct(share)} of the interactive price that a {fmt.pct(discount)} discount leaves"
    if batch_ratio <= share:
        return (f"within {leaves}" + (tie if batch_ratio * spread > share else
                                      ", so the discount keeps the interactive margin before a single idle node is "
                                      "borrowed"))
    if batch_ratio / spread <= share:
        return f"more than {leaves}{tie}"
    return (f"more than {leaves}, so a standalone batch fleet breaks even only if interactive prices sit "
            f"{fmt.pct(batch_ratio / share - 1)} above cost; the borrowed trough is what pays for the discount")


def band_spread(gpu: str) -> float:
    """The calibrated band's p90 over its p10 on `gpu`: how far apart the model's errors on two fleets there can be."""
    low, high, _ = band_for(gpu)
    return high / low


def held_words(a: Answer, napkin_batch: int, what: str) -> str:
    """How many requests the answer's node keeps in flight (its run, by Little's law) against the batch the napkin
    allows it (`what` says what caps that batch), and the target that sets the answer's count."""
    live = a.live_concurrency_per_replica
    against = phrase(live, napkin_batch, "as many as", "more than", "fewer than", rel=0.05)
    return (f"the simulated node keeps {fmt.count(live)} requests in flight, {against} the "
            f"{fmt.count(napkin_batch)} {what}, and the {a.simulated.binding.words} sets the count")


def model() -> SimpleNamespace:
    x = inputs()
    d = design.model(SLUG, infeasible_ok=True)
    if not d.feasible:  # no fleet on this data: the pages say so (d.infeasible_words) instead of these figures
        return SimpleNamespace(inputs=x, d=d, feasible=False, serves=d.serves)
    p, w = d.plan, d.workload
    dp = d.variants["dp-attention"]
    iv = d.variants[x["interactive_variant"]]
    # The serving model's answers: the batch fleet, the interactive fleet it borrows from, the revisions'
    a, ai = d.answer, d.answers[x["interactive_variant"]]
    a_dp = d.answers["dp-attention"]

    # Packed prefill, both layouts (critique 2): the napkin's, first order, packed to the token budget the answer's
    # engine runs, so that the napkin's packing and the serving model's are the same
    packed_s = _packed_prefill_s(p, w.prompt_tokens, p.uncached_prompt_tokens, a.token_budget)
    compute_s, read_s = _prefill_floors(p, w.prompt_tokens, p.uncached_prompt_tokens)
    packed, packed_dp = with_prefill(p, packed_s), with_prefill(dp, packed_s)

    # The interactive fleet's day and what it can lend, hour by hour from its peak. Its answer is the count its
    # peak needs, so an hour's load is that count times the hour's load fraction, with its headroom kept over it.
    loads = [f.diurnal_load_fraction(h, iv.workload.peak_to_mean) for h in HOURS]
    lendable = [f.lendable_replicas(ai.replicas, ai.replicas, load, iv.headroom) for load in loads]
    batch_hours = a.replicas * f.HOURS_PER_DAY / w.peak_to_mean  # the day's batch work in node-hours, on the answer
    best_first, cumulative, hours_needed = sorted(lendable, reverse=True), 0.0, 0
    for spare in best_first:
        if cumulative >= batch_hours:
            break
        cumulative, hours_needed = cumulative + spare, hours_needed + 1

    # What a request costs: α per prompt token (packed prefill), β per output token in a full slot (first order)
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

    # One file within the hour (critique 4): the node-seconds a request takes on the answer's fleet (its nodes over
    # the rate they serve), a file's worth of them over the target
    request_s = a.replicas / a.peak_requests_per_s
    file_s = x["file_requests"] * request_s
    floor_replicas = f.whole_count(file_s / x["file_target_s"])
    daily_output = w.requests_per_day * w.output_tokens
    floor_cost = f.cost_per_day(floor_replicas * p.gpus_per_replica, p.price_per_gpu_hour)

    # The fleet to build (section 9, critique 4): the floor's dedicated nodes, the bulk on the interactive trough;
    # the answer is the same volume on a standalone fleet, the option section 9 prices and does not take
    build = (f"**{fmt.count(floor_replicas)} dedicated × {p.gpus_per_replica} {design_answer.gpu_name(w)} = "
             f"{fmt.count(floor_replicas * p.gpus_per_replica)} GPUs**, {fmt.usd(floor_cost)} a day, to finish a "
             f"file within the hour, one at a time; the bulk runs on the interactive fleet's trough, which lends "
             f"{fmt.count(sum(lendable))} node-hours a day against the batch's {fmt.num(batch_hours)}. The answer's "
             f"{fmt.count(a.gpus)} GPUs is the same volume on a fleet of its own")

    # A preemption without notice (critique 5), per node at the KV-bound batch; the drain a notice allows; the reload
    lost_s = f.preemption_lost_s(p.slo_batch, packed_s, w.output_tokens, p.planned_step_s)
    reload_s = f.transfer_time_s(p.at_slo.weight_bytes / p.gpus_per_replica, x["weight_load_bytes_per_s"])

    # What a token costs over the day, batch against interactive: on the answers, and on the napkin beside them
    batch_per_million = _per_million_daily(a.cost_per_day, p)
    interactive_per_million = _per_million_daily(ai.cost_per_day, iv)
    batch_ratio = batch_per_million / interactive_per_million
    discount = catalog().claims[DISCOUNT].low
    long_ratio = d.variants["long-outputs"].workload.output_tokens / w.output_tokens
    long_gpu_ratio = d.answer_changes["long-outputs"].gpu_ratio

    return SimpleNamespace(
        inputs=x, d=d, feasible=True, serves=d.serves, plan=p, dp=dp, summary=d.summarise(build_words=build),
        files_per_day=w.requests_per_day / x["file_requests"],
        # the fleets the page recommends: the serving model's answers (the interactive one is what the batch borrows)
        answer=a, interactive=ai, answer_dp=a_dp, answer_long=d.answers["long-outputs"],
        interactive_napkin=iv,  # the interactive variant's napkin: its workload and its first-order physics
        long_output_ratio=long_ratio,
        # placement (per node, first order)
        tp_kv_copies=p.at_slo.kv_copies, dp_kv_copies=dp.at_slo.kv_copies,
        kv_per_seq_held_tp=p.kv_bytes_per_seq_group,
        attention_bytes=dp.at_slo.weight_bytes_held - dp.at_slo.weight_bytes,
        kv_budget_tp=p.at_slo.kv_budget_bytes, kv_budget_dp=dp.at_slo.kv_budget_bytes,
        batch_gain=dp.slo_batch / p.slo_batch,
        # data-parallel attention's fleet: the answers' ratio, the napkin's beside it, and why they differ
        dp_gpu_ratio=d.answer_changes["dp-attention"].gpu_ratio,
        dp_napkin_gpu_ratio=d.changes["dp-attention"].gpu_ratio,
        dp_words=held_words(a_dp, dp.slo_batch, "its cache holds"),
        # prefill
        alone_prefill_s=p.planned_prefill_s, packed_prefill_s=packed_s,
        prompts_per_step=a.token_budget / p.uncached_prompt_tokens,
        packed_bound_words=packed_bound_words(compute_s, read_s, a.token_budget / p.uncached_prompt_tokens,
                                              p.uncached_prompt_tokens),
        weight_read_s=f.memory_time_s(p.at_slo.weight_bytes, p.gpus_per_replica, p.at_slo.gpu_bandwidth_bytes_per_s),
        packed=packed, packed_dp=packed_dp,
        packed_words=phrase(a.replicas, packed.replicas, "as many as the packed napkin's",
                            "more than the packed napkin's", "fewer even than the packed napkin's"),
        packed_dp_words=phrase(a_dp.replicas, packed_dp.replicas, "as many as the packed napkin's",
                               "more than the packed napkin's", "fewer than the packed napkin's"),
        answer_packs=assume(a.replicas < p.replicas,
                            f"nodes: the answer {a.replicas}, the napkin with prompts alone {p.replicas}",
                            "the serving model's answer no longer needs fewer nodes than prompts priced alone: "
                            "rewrite what its packed steps buy"),
        # the trough, on the interactive answer
        peak_lendable=lendable[0], trough_lendable=lendable[12], lendable_replica_hours=sum(lendable),
        batch_replica_hours=batch_hours, trough_used=batch_hours / sum(lendable),
        absorbed=min(1.0, sum(lendable) / batch_hours), hours_needed=hours_needed,
        trough_fits=assume(sum(lendable) >= batch_hours, f"node-hours a day: the trough lends "
                           f"{fmt.count(sum(lendable))}, the batch needs {fmt.num(batch_hours)}",
                           "the trough no longer holds the day's batch volume: say what is left to dedicated nodes"),
        trough_load=loads[12], interactive_busy_trough=ai.replicas * loads[12],
        # cost per million output tokens over the day, on the answers; the napkin's ratio kept apart
        batch_per_million=batch_per_million, interactive_per_million=interactive_per_million,
        batch_ratio=batch_ratio, discount=discount, price_share=1 - discount,
        margin_words=margin_words(batch_ratio, discount, band_spread(w.gpu)),
        napkin_batch_ratio=_per_million_daily(p.cost_per_day, p) / _per_million_daily(iv.cost_per_day, iv),
        interactive_gpu_ratio=ai.gpus / iv.gpus,
        interactive_discounted_more=assume(ai.gpus / iv.gpus < a.gpus / p.gpus,
                                           f"answer over napkin GPUs: interactive {ai.gpus}/{iv.gpus}, batch "
                                           f"{a.gpus}/{p.gpus}",
                                           "the serving model no longer cuts the interactive fleet more than the "
                                           "batch one: rewrite what the targets cost"),
        interactive_words=held_words(ai, iv.slo_batch, "that the napkin's planned step allows under the same target"),
        interactive_daily_over_peak=interactive_per_million / ai.cost_per_million_output_tokens,
        # fairness (first order)
        alpha_s=alpha, beta_s=beta, output_over_input=beta / alpha, light=light, heavy=heavy,
        heavy_over_light=heavy.cost_s / light.cost_s, heavy_share_by_requests=by_requests,
        heavy_share_by_tokens=by_tokens,
        # the long-output mix: the answer's growth against the output's, the napkin's beside it, and why
        long_gpu_ratio=long_gpu_ratio, long_napkin_gpu_ratio=d.changes["long-outputs"].gpu_ratio,
        long_words=phrase(long_gpu_ratio, long_ratio, "exactly as the output grows", "faster than the output grows",
                          "less than the output grows"),
        # a file, a preemption
        request_s=request_s, file_replica_s=file_s, floor_replicas=floor_replicas,
        floor_gpus=floor_replicas * p.gpus_per_replica,
        files_per_hour=w.requests_per_day / x["file_requests"] / f.HOURS_PER_DAY,
        floor_cost_per_day=floor_cost, floor_per_million=f.cost_per_million_tokens_over_day(floor_cost, daily_output),
        lost_s=lost_s,
        drain_s=w.output_tokens * p.planned_step_s, reload_s=reload_s,
    )
