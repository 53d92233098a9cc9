"""The agent platform design (docs/designs/agents.md): what the plan does not say about a task of many
steps. The task's shape (steps, prefixes, tool time, TTLs, the burst) is the design's assumption, read
from [design.inputs] of macros/data/designs/agents.toml; the rest comes from its plan and variants.
Values in SI units; the page formats them.

First order, like the planner: no queueing inside a step, steps of a task strictly one after another,
every idle task's KV at the mean context. A task's times are the napkin's (its planned prefill and step);
every fleet, cost and load per replica is the serving model's answer: its replicas, and the calls in flight
on each from its own run.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.fleet import planner_simulated as ps
from ...engine.fleet.answer import Answer
from ...engine.fleet.planner import Plan, planned_prefill_s
from ...engine.serving.cache import cached_run
from ...engine.serving.estimate import prompt_alone_steps
from ...engine.serving.run import prepare
from ...engine.serving.step import StepParams, StepTerms, costs
from ...text import fmt
from . import design

SLUG = "agents"
INPUTS = design.positive(
    "steps_per_task", "shared_prefix_tokens", "task_prefix_tokens", "tokens_per_step", "tool_s",
    "host_dram_bytes", "host_link_bytes_per_s", "retention_ttl_s", "long_ttl_s", "burst_tasks", "runaway_steps",
)


def inputs() -> SimpleNamespace:
    """[design.inputs] of the design file, every key present and a positive number."""
    raw = design.inputs(SLUG, INPUTS)
    return SimpleNamespace(**{key: raw[key] for key in INPUTS})


def _step(p: Plan, tool_s: float) -> SimpleNamespace:
    """One step of a task on plan p: its first token, its output, its tool, and the task of N steps."""
    w = p.workload
    decode_s = w.output_tokens * p.planned_step_s
    return SimpleNamespace(ttft_s=p.planned_prefill_s, decode_s=decode_s, tool_s=tool_s,
                           model_s=p.planned_prefill_s + decode_s)


def _task(p: Plan, x: SimpleNamespace, cost_per_day: float) -> SimpleNamespace:
    """A task on plan p (its times are the napkin's) whose fleet costs `cost_per_day` (the serving model's answer)."""
    step = _step(p, x.tool_s)
    task_s = f.task_time_s(x.steps_per_task, p.planned_prefill_s, p.workload.output_tokens, p.planned_step_s,
                           x.tool_s)
    tasks_per_day = p.workload.requests_per_day / x.steps_per_task
    return SimpleNamespace(step=step, task_s=task_s, tasks_per_day=tasks_per_day,
                           cost_per_task=cost_per_day / tasks_per_day,
                           ttft_s=x.steps_per_task * step.ttft_s, decode_s=x.steps_per_task * step.decode_s,
                           tool_s=x.steps_per_task * x.tool_s)


LAYOUT_LABELS = {"tp": "tensor-parallel, the experts split",
                 "dp-attention": "attention data-parallel, the experts split"}


def layout_words(tp: Answer, dp: Answer) -> str:
    """The layout decision in words that follow the serving model: the tensor-parallel answer against the same node
    under data-parallel attention, where each call's uncached prompt runs its attention on its own rank while the
    others wait for it at the MoE's exchange."""
    ratio = dp.gpus / tp.gpus
    if ratio > 1:
        return (f"The napkin would take it. But each call's uncached prompt then runs its attention on one rank while "
                f"the other {tp.gpus_per_replica - 1} wait, and a 100-to-1 call is mostly prompt: the serving model "
                f"needs {fmt.count(dp.gpus)} GPUs that way, {fmt.times(ratio)} the tensor-parallel answer, even at a "
                f"{fmt.count(dp.token_budget)}-token budget. Data-parallel attention pays where decodes dominate, or "
                "once prefill has its own pool.")
    return (f"The serving model agrees, for all that each call's prompt runs its attention on one rank: "
            f"{fmt.count(dp.gpus)} GPUs that way against the answer's {fmt.count(tp.gpus)}, a revision to adopt.")


def kept_words(kept: float) -> str:
    """Where the idle KV waits at the peak, in words that follow the data: HBM alone, or HBM and host DRAM."""
    if kept >= 1:
        return "room for all of it at the peak; host DRAM takes what a fuller replica cannot keep"
    return f"room for {fmt.pct(kept)} of it; the rest goes to host DRAM"


def hbm_only_words(kept: float, gpu_ratio: float) -> str:
    """Revision 2's verdict on HBM alone at the peak: what it keeps, and what the fleet without a host tier costs."""
    if kept >= 1:
        fleet = ("the table's two columns are the same fleet" if gpu_ratio == 1
                 else f"the table's second column needs {fmt.times(gpu_ratio)} the GPUs")
        return (f"HBM alone keeps every idle task's KV at the peak, the hit rate holds, and {fleet}: the host tier "
                "is for the replicas that run full")
    return (f"HBM alone keeps {fmt.pct(kept)} of the idle tasks' KV at the peak; the rest find only the shared "
            f"system prompt, and the fleet grows to the table's second column, {fmt.times(gpu_ratio)} the GPUs: "
            "that is what the host tier below saves")


def alone_chunks(a: Answer) -> tuple[StepParams, list[StepTerms]]:
    """One call alone on the answer's shape, its uncached prompt stepped as the scheduler steps it, and the fitted
    parameters it runs on: why the serving model's call alone takes longer than the napkin's prefill at its assumed
    efficiency."""
    q = ps.run_request(a.simulated.workload, a.gpus_per_replica, None)
    p = prepare(q)
    return p.params, prompt_alone_steps(costs(p.replica, p.params), q.input_tokens, a.token_budget)


def idle_words(a: Answer) -> str:
    """Why an answer's fleet is the size it is, from its own run: the target that sets the count, and how busy that
    leaves each replica (Little's law on the run: calls in flight = rate x time in the system)."""
    t, live = a.simulated.binding, a.live_concurrency_per_replica
    out = (f"the {t.words} sets the count: each replica takes {fmt.num(a.simulated_requests_per_s_per_replica)} "
           f"calls a second and has {fmt.num(live)} in flight on average")
    if live < 1:
        out += ", fewer than one: the replicas stand mostly idle, so hardly any call waits behind another's prefill"
    return out


def model() -> SimpleNamespace:
    d = design.model(SLUG)
    p, w, x = d.plan, d.workload, inputs()
    s = p.at_slo
    n = x.steps_per_task
    # the per-call percentile the file's TTFT target promises (p95): critique 3 asks what it promises a task
    call_percentile = next(t.percentile for t in w.targets if t.metric == "ttft" and t.percentile is not None)
    first = x.shared_prefix_tokens + x.task_prefix_tokens
    # Each fleet priced on the serving model's answer; its task times stay the napkin's (first order, above).
    answers = {"base": d.answer, **d.answers}
    tasks = {name: _task(plan, x, answers[name].cost_per_day) for name, plan in {"base": p, **d.variants}.items()}
    t = tasks["base"]

    # The loop's tokens: the mean prompt the planner is given, and the best hit rate the loop allows
    task_prompt = f.task_prompt_tokens(n, first, x.tokens_per_step)
    peak_task_rate = w.peak_requests_per_s / n

    # Tasks in flight at the peak, and the spare the napkin's headroom leaves (Little's law on the fleet); the
    # answer, the fewest replicas that hold the p95s at the peak, has none there
    in_flight = f.tasks_in_flight(peak_task_rate, t.task_s)
    spare_tasks = in_flight * (p.replicas / p.replica_seconds_per_s - 1)
    burst_first = dataclasses.replace(w, prompt_tokens=first, prefix_hit_rate=x.shared_prefix_tokens / first)
    burst_prefill_s = x.burst_tasks * planned_prefill_s(burst_first, p.gpus_per_replica)

    # KV retention across the tool call: idle tasks' KV against the HBM the running ones leave free, on a replica
    # of the answer's fleet at the peak. It runs the calls in flight its run shows (Little's law on the run), not
    # the napkin's SLO batch, which is only the most it may; each call that ends waits tool_s on its tool.
    a = d.answer
    live, rate = a.live_concurrency_per_replica, a.simulated_requests_per_s_per_replica
    idle = f.idle_sequences(live, x.tool_s, live / rate)
    idle_kv = idle * p.kv_bytes_per_seq_group
    hbm_room = p.at_slo.kv_budget_bytes - live * p.kv_bytes_per_seq_group
    kept = f.kept_share(hbm_room, idle_kv)
    shared_hit = x.shared_prefix_tokens / w.prompt_tokens  # what an evicted task still finds: the system prompt
    hbm_only_hit = f.blended_hit_rate(kept, w.prefix_hit_rate, shared_hit)
    # A replica that runs full, at its SLO batch (a burst, or a fleet with its headroom spent): more tasks idle,
    # less room beside the running ones
    full_idle_kv = f.idle_sequences(p.slo_batch, x.tool_s, t.step.model_s) * p.kv_bytes_per_seq_group
    full_kept = f.kept_share(p.spare_kv_bytes, full_idle_kv)
    full_hit = f.blended_hit_rate(full_kept, w.prefix_hit_rate, shared_hit)
    for name, stated, derived, places in (("hbm-only", d.variants["hbm-only"].prefix_hit_rate, hbm_only_hit, 2),
                                          ("full-replicas", d.variants["full-replicas"].prefix_hit_rate, full_hit, 3)):
        # the variants price these derivations: they must be them, to the places the file gives
        design.check_stated(SLUG, f"[variants.{name}] prefix_hit_rate", stated, derived, 0.5 * 10 ** -places)

    # Finished or paused tasks kept for a TTL: their final context, per replica
    final_tokens = first + x.tokens_per_step * n
    final_kv = final_tokens * p.kv_bytes_per_token
    ends_per_replica_s = peak_task_rate / a.replicas
    ttl_kv = ends_per_replica_s * x.retention_ttl_s * final_kv
    long_ttl_kv = ends_per_replica_s * x.long_ttl_s * final_kv

    # A runaway loop: tokens against the mean task's, and the step at which its context is full
    runaway_prompt = f.task_prompt_tokens(x.runaway_steps, first, x.tokens_per_step)
    steps_to_full = (s.model_spec.max_context - first) / x.tokens_per_step

    # A replica lost: every task homed there, running or waiting on a tool, re-prefills its whole context
    homed = live + idle
    # one uncached call alone on the answer's shape: how much of its TTFT target it spends with no queue at all
    blind_answer = d.answers["cache-blind"]
    alone = cached_run(ps.run_request(blind_answer.simulated.workload, blind_answer.gpus_per_replica, None))
    blind_params, chunks = alone_chunks(blind_answer)
    chunks_s = sum(t.total_s for t in chunks)

    return SimpleNamespace(
        d=d, plan=p, workload=w, inputs=x, tasks=tasks, task=t, steps=n,
        first_prompt_tokens=first, mean_prompt_tokens=f.task_mean_prompt_tokens(n, first, x.tokens_per_step),
        task_prompt_tokens=task_prompt, task_output_tokens=n * w.output_tokens,
        hit_ceiling=f.task_hit_rate_ceiling(n, first, x.task_prefix_tokens, x.tokens_per_step),
        peak_task_rate=peak_task_rate,
        # per GPU of the answer's fleet, at the peak
        output_per_gpu_s=p.peak_output_tokens_per_s / a.gpus, input_per_gpu_s=p.peak_input_tokens_per_s / a.gpus,
        kv_step_share=p.held_kv_bytes / s.decode_bytes,
        gpu_ratio={name: c.gpu_ratio for name, c in d.answer_changes.items()},
        napkin_gpu_ratio={name: c.gpu_ratio for name, c in d.changes.items()},
        blind_words=idle_words(d.answers["cache-blind"]),
        blind_alone_ttft_s=alone["ttft_s"]["p95"], blind_slower=d.answers["cache-blind-slower"],
        blind_chunks=len(chunks), blind_chunks_s=chunks_s,
        blind_attention_share=sum(t.attention_class_s for t in chunks) / chunks_s,
        blind_moe_share=sum(t.moe_class_s for t in chunks) / chunks_s,
        moe_fraction=blind_params.moe_fraction,
        dp_batch_gain=d.variants["dp-attention"].max_batch / p.max_batch,
        layout_label=LAYOUT_LABELS[w.layout],
        layout_words=layout_words(d.answer, d.answers["dp-attention"]),
        task_shares=SimpleNamespace(ttft=t.ttft_s / t.task_s, decode=t.decode_s / t.task_s, tool=t.tool_s / t.task_s),
        experts_touched=f.experts_touched(s.model_spec.experts, s.model_spec.experts_per_token, p.slo_batch),
        # latency
        ttft_budget_s=n * w.ttft_s, step_percentile=call_percentile,
        any_slow=f.any_step_beyond_quantile(call_percentile / 100, n),
        fast_saved_s=t.task_s - tasks["fast-tpot"].task_s,
        # scaling
        in_flight=in_flight, spare_tasks=spare_tasks, burst_prefill_s=burst_prefill_s,
        burst_excess=x.burst_tasks - spare_tasks, burst_drain_s=(x.burst_tasks - spare_tasks) / peak_task_rate,
        # the answer has no spare at the peak, so queued tasks drain only on what arrivals leave free: at the mean
        # rate, the fleet held at its peak size completes peak_task_rate and is sent peak_task_rate / peak_to_mean
        burst_drain_at_mean_s=x.burst_tasks / (peak_task_rate * (1 - 1 / w.peak_to_mean)),
        burst_prefill_per_replica_s=burst_prefill_s / a.replicas, tools_running=in_flight * t.tool_s / t.task_s,
        # retention
        live_per_replica=live, calls_per_replica_s=rate, idle_per_replica=idle, idle_kv_bytes=idle_kv,
        hbm_room_bytes=hbm_room,
        shared_hit=shared_hit,
        hbm_only_hit=hbm_only_hit, idle_kv_host_share=idle_kv / x.host_dram_bytes,
        full_idle_kv_bytes=full_idle_kv, full_room_bytes=p.spare_kv_bytes, full_kept=full_kept,
        full_hit=full_hit,
        kept_words=kept_words(kept), hbm_only_words=hbm_only_words(kept, d.answer_changes["hbm-only"].gpu_ratio),
        reload_s=p.kv_bytes_per_seq / x.host_link_bytes_per_s,
        final_tokens=final_tokens, final_kv_bytes=final_kv, ttl_kv_bytes=ttl_kv, long_ttl_kv_bytes=long_ttl_kv,
        long_ttl_host_share=long_ttl_kv / x.host_dram_bytes,
        # budgets
        runaway_prompt_tokens=runaway_prompt, runaway_ratio=runaway_prompt / task_prompt,
        runaway_cost=t.cost_per_task * runaway_prompt / task_prompt, steps_to_full=steps_to_full,
        # failover
        # each homed task re-prefills its context elsewhere: the serving model's steps for it, not the napkin's
        homed_per_replica=homed, failover_prefill_s=homed * chunks_s,
        failover_share=homed * chunks_s / (a.replicas - 1),
    )
