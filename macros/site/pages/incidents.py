"""docs/practice/failure-modes.md: serving incidents, each read as symptom (what the dashboards show)
-> the signal that tells it apart -> cause -> the fix and its cost. Every figure comes from the page
model of the chapter or design that explains the incident, or is computed here from the same data
(the anchor of chapter 7, the consumer-chat plan and its variants) plus the few assumptions in
data/practice/incidents.toml. Values in SI units; the page formats them."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.fleet.planner import plan
from ...engine.fleet.workload_file import design as load_design
from ...engine.specs import DATA_DIR, read_toml
from ...engine.workloads import workloads
from . import (
    design,
    design_agents,
    design_autoscaler,
    design_batch_api,
    design_chatgpt,
    design_code_completion,
    design_consumer_chat,
    design_rag,
    design_router,
)

INPUTS = DATA_DIR / "practice" / "incidents.toml"


def preemption(s, prompt_tokens: int) -> SimpleNamespace:
    """Admission by the prompt's size, not the sequence's final size: admitted at prompt_tokens, the
    cache holds only max_batch once every sequence reaches its full context; the rest are preempted
    and recompute their whole context."""
    admitted = int(s.kv_budget_bytes // (s.kv_bytes_per_token * prompt_tokens))
    preempted = admitted - s.max_batch
    recompute_s = preempted * s.prefill_s
    return SimpleNamespace(admitted=admitted, fits=s.max_batch, preempted=preempted, recompute_s=recompute_s,
                           recompute_steps=recompute_s / s.decode_step_s, used_at_admission=prompt_tokens / s.seq_len)


def long_prompt(s, long_s: float, big_prompt: int, chunk_tokens: int) -> SimpleNamespace:
    """One long prompt's prefill in a decode batch: whole, every decode waits for all of it; chunked,
    each step carries one chunk (its 2·N·chunk FLOPs at the group's peak, attention aside)."""
    chunk_s = f.compute_time_s(f.prefill_flops(s.active_params, chunk_tokens), s.gpus, s.gpu_peak_flops)
    chunks = math.ceil(big_prompt / chunk_tokens)
    chunked_step_s = s.decode_step_s + chunk_s
    return SimpleNamespace(stall_s=long_s, stall_steps=long_s / s.decode_step_s, chunk_tokens=chunk_tokens,
                           chunk_s=chunk_s, chunked_step_s=chunked_step_s, chunks=chunks,
                           chunked_prefill_s=chunks * chunked_step_s)


def model() -> SimpleNamespace:
    a = read_toml(INPUTS)
    w = workloads()
    c = design_chatgpt.model()
    s = c.anchor
    d = design.model("consumer-chat")
    p, cold, long_mix = d.plan, d.variants["no-prefix-cache"], d.variants["long-prompts"]
    x = design_consumer_chat.model()
    spare_replicas = p.replicas - p.replica_seconds_per_s  # replica-seconds per second beyond the peak load
    measured = plan(dataclasses.replace(d.workload, efficiency=a["measured_efficiency"]))
    per_replica_rps = p.peak_requests_per_s / p.replicas
    return SimpleNamespace(
        a=a, s=s, c=c, p=p, w=d.workload, x=x,
        preemption=preemption(s, w["prompt_tokens"]),
        long=long_prompt(s, c.long_prompt.prefill_s, w["big_prompt"], w["chunk_tokens"]),
        cold=cold, long_mix=long_mix, measured=measured,
        long_mix_prompt_tokens=load_design("consumer-chat")[1]["long-prompts"].prompt_tokens,
        extra_cold_gpus=cold.gpus - p.gpus, extra_long_gpus=long_mix.gpus - p.gpus,
        spare_replicas=spare_replicas,
        retry_absorb_s=x.reprefill_batch_s / spare_replicas,
        storm_replica_s=x.reprefill_batch_s * a["retries_per_client"],
        per_replica_rps=per_replica_rps, hung_requests=per_replica_rps * a["detection_s"],
        compute_used=1 - c.idle_at_full_batch,
        measured_cost_ratio=measured.cost_per_million_output_tokens / p.cost_per_million_output_tokens,
        router=design_router.model(), autoscaler=design_autoscaler.model(), agents=design_agents.model(),
        batch=design_batch_api.model(), completion=design_code_completion.model(), rag=design_rag.model(),
        completion_plan=design.model("code-completion").plan, rag_plan=design.model("rag").plan,
        agents_plan=design.model("agents").plan, util_reading=w["util_reading"],
        turn_gap_s=design.inputs("consumer-chat", design.positive("turn_gap_s"))["turn_gap_s"],
    )
