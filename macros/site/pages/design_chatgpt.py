"""Chapter 7 (docs/guide/design-chatgpt.md): the design round's figures for the anchor group, its
follow-ups (a long prompt, draining, a failed GPU, a heavy tenant, cost, agents), the fleet for the
stated user base from the planner (the consumer-chat workload), the timed round, and the problems.
Values in SI units; the page formats them."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.fleet.answer import Answer, answer
from ...engine.fleet.planner import Plan, cheapest, plan, require
from ...engine.fleet.workload_file import PERCENTILES, Workload, design
from ...engine.lookup import get_gpu
from ...engine.memo import memoized
from ...engine.model.geometry import prefill_attention_flops
from ...engine.model.scenario import anchor, scenario
from ...engine.specs import DATA_DIR, catalog, display_path, read_toml
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from . import _answer_knee, design_answer, design_consumer_chat
from ._shared import bandwidth_comparison, operations_examples, request_spread
from .design import binds

# Page-only inputs, the assumptions the candidate states out loud.
FLEET_DESIGN = "consumer-chat"  # the workload the fleet is sized from (macros/data/designs/)
TURNS_PER_USER_DAY = 10  # its requests a day are this many turns from each daily user
MAX_OUTPUT_TOKENS = 4000  # the generation cap that sets how long a replica takes to drain
AGENT_CALLS = 50  # sequential model calls behind one agentic user action

# The round's prompt, the beats of 7.5 and the follow-ups of 7.4 (the mock round runs the same data).
ROUND_FILE = DATA_DIR / "practice" / "chapter7.toml"
ROUND_DATA = read_toml(ROUND_FILE)
# The timed round of 7.5: each beat and its minutes, in order (they add up to the round's 45).
ROUND = tuple((beat["key"], beat["minutes"]) for beat in ROUND_DATA["beats"])

# The problems: the fleet on another GPU, a tighter target, the long prompt on another GPU.
PROBLEM_GPU = "h200"
TPOT_FACTOR = 0.5  # P2: halve the time-per-token target


def timed_round() -> SimpleNamespace:
    """Each beat of the round as (start, end) minutes, from the durations in ROUND."""
    beats, start = {}, 0
    for key, minutes in ROUND:
        beats[key] = SimpleNamespace(start=start, end=start + minutes, minutes=minutes)
        start += minutes
    return SimpleNamespace(total=start, **beats)


def follow_ups(big_prompt: int, daily_users_millions: float) -> list[str]:
    """The follow-ups of 7.4, in the chapter's order, their figures filled in."""
    figures = {"big_prompt": fmt.count(big_prompt), "daily_users_millions": fmt.num(daily_users_millions)}
    return [text.format(**figures) for text in ROUND_DATA["follow_ups"]]


def cost_words(cost: float, reference: float, what: str) -> str:
    """"about <what>" within 5 %, else how far below or above it."""
    ratio = cost / reference
    if abs(ratio - 1) <= 0.05:
        return f"about {what}"
    return f"{fmt.pct(abs(ratio - 1))} {'below' if ratio < 1 else 'above'} {what}"


def halved_tpot(w: Workload) -> Workload:
    """The workload with its time-per-token target halved: the napkin's mean and every percentile target on TPOT
    (the serving model's answer holds the percentiles)."""
    tighter = {f"tpot_p{p}_s": s * TPOT_FACTOR for p in PERCENTILES if (s := getattr(w, f"tpot_p{p}_s")) is not None}
    return dataclasses.replace(w, tpot_s=w.tpot_s * TPOT_FACTOR, **tighter)


def problems(w: Workload) -> SimpleNamespace:
    """The chapter's problems: the consumer-chat workload w on H200s (the smallest shape and the
    cheapest), with its TPOT target halved, and the long prompt on the H200 group."""
    where = f"{display_path(DATA_DIR / 'designs' / f'{FLEET_DESIGN}.toml')}, in docs/guide/design-chatgpt.md's problems"
    on_h200 = dataclasses.replace(w, gpu=PROBLEM_GPU)
    base = require(plan(w), where)
    tight = require(plan(halved_tpot(w)), f"{where} (TPOT target halved)")
    wl = workloads()
    long_h200 = scenario(wl["model"], PROBLEM_GPU, gpus=wl["gpus"], seq_len=wl["big_prompt"], batch=1)
    group_h200 = scenario(wl["model"], PROBLEM_GPU, gpus=wl["gpus"])
    h200 = require(plan(on_h200), f"{where} (on {PROBLEM_GPU})")
    h200_cheapest = require(cheapest(on_h200), f"{where} (on {PROBLEM_GPU}, the cheapest shape)")
    return SimpleNamespace(
        h200=h200, h200_cheapest=h200_cheapest,
        smallest_not_cheapest=assume(
            h200_cheapest.gpus_per_replica != h200.gpus_per_replica,
            f"on the napkin, {PROBLEM_GPU}: smallest shape {h200.gpus_per_replica} GPUs, cheapest "
            f"{h200_cheapest.gpus_per_replica}", "the smallest shape is now the cheapest: say so"),
        # napkin against napkin, in words that follow the data
        h200_cheapest_against_h100=cost_words(h200_cheapest.cost_per_day, base.cost_per_day,
                                              f"the {get_gpu(w.gpu).name} napkin's cost"),
        tight=tight, tight_tpot_s=w.tpot_s * TPOT_FACTOR,
        tight_answer_words=tight_answer_words(answer(tight), answer(base)),
        tight_step_ratio=tight.step_s / base.step_s,
        long_h200=long_h200, group_h200=group_h200,
        long_h200_budget_share=long_h200.kv_bytes_per_seq / group_h200.kv_budget_bytes,
    )



def tight_answer_words(tight: Answer, base: Answer) -> str:
    """Problem 2's check on the serving model: the halved target's fleet against the chapter's answer, or why the
    model finds none."""
    if not tight.feasible:
        return f"the serving model finds no fleet at all: {design_answer.why_none(tight)}"
    return (f"the serving model, which counts both, needs {design_answer.fleet(tight)}, "
            f"{fmt.times(tight.gpus / base.gpus, 3)} the chapter's answer of {fmt.count(base.gpus)} GPUs")


def binding_line(p: Plan) -> str:
    """The line a candidate rehearses, true of the fleet's own plan: bandwidth sets the step, and whichever limit
    caps the batch there, the time-per-token target or the KV cache."""
    cap = ("the TPOT target caps the batch before the KV cache fills" if p.binding == "tpot"
           else "the KV cache caps the batch")
    return f"The binding constraint is memory bandwidth: it sets the step, and {cap}."


@memoized  # six pages read the chapter's figures in a build
def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m, gpu = s.model_spec, s.gpu_spec
    prompt = anchor(seq_len=w["prompt_tokens"])
    long_prompt = anchor(seq_len=w["big_prompt"], batch=1)
    to_measured = catalog().claims["floor-to-measured"]

    # 7.3: one token on the group; the worked prompt on one GPU of it
    token_flops = f.decode_step_flops(s.active_params, 1)
    token_memory_s = f.memory_time_s(s.weight_bytes, s.gpus, gpu.bandwidth_bytes_per_s)
    token_compute_s = f.compute_time_s(token_flops, s.gpus, s.gpu_peak_flops)
    turns = w["turns"]
    # 7.4: the long prompt's prefill floor includes its causal attention; how much of it that is
    long_attention_s = f.compute_time_s(prefill_attention_flops(m, w["big_prompt"]), s.gpus, s.gpu_peak_flops)
    drain_floor_s = MAX_OUTPUT_TOKENS / s.decode_tokens_per_s_per_user
    # 7.2: the fleet for the stated user base, from the planner
    chat_workload, _ = design(FLEET_DESIGN)
    fleet = require(plan(chat_workload), display_path(DATA_DIR / "designs" / f"{FLEET_DESIGN}.toml"))
    daily_users_millions = chat_workload.requests_per_day / TURNS_PER_USER_DAY / 1e6
    # the fleet the chapter recommends: the serving model's answer on that workload (the napkin is its derivation)
    fleet_answer = answer(fleet)
    chat = design_consumer_chat.model()
    return SimpleNamespace(
        anchor=s, model=m, gpu=gpu,
        **bandwidth_comparison(s),
        fleet_tpot_binds=binds(fleet, "tpot"),  # "What binds the fleet? The target"
        binding_line=binding_line(fleet),
        price=catalog().prices[w["gpu"]],
        # inputs
        daily_users_millions=daily_users_millions,
        turns_per_user_day=TURNS_PER_USER_DAY,
        ttft_target_s=w["ttft_target_s"],
        prompt_tokens=w["prompt_tokens"],
        conversation_turns=turns,
        big_prompt=w["big_prompt"],
        tenant_requests=w["tenant_requests"],
        tenant_small_tokens=w["tenant_small_tokens"],
        max_output_tokens=MAX_OUTPUT_TOKENS,
        source_cost_usd=w["source_cost_usd"],
        agent_calls=AGENT_CALLS,
        # scenarios beside the anchor
        prompt=prompt,
        double_context=anchor(seq_len=2 * s.seq_len),
        long_prompt=long_prompt,
        fp8_kv=anchor(kv="fp8"),
        # 7.2 and 7.4: a huge request against a tiny one, in tokens
        request_token_spread=request_spread(m).token_ratio,
        # 7.3
        reserve_per_gpu=s.reserve_bytes / s.gpus,
        weights_per_gpu=s.weight_bytes / s.gpus,
        token_flops=token_flops,
        token_memory_s=token_memory_s,
        token_compute_s=token_compute_s,
        memory_over_compute=token_memory_s / token_compute_s,
        per_user_measured_low=s.decode_tokens_per_s_per_user / to_measured.high,
        per_user_measured_high=s.decode_tokens_per_s_per_user / to_measured.low,
        prefill_in_decode_steps=prompt.prefill_s / s.decode_step_s,
        prompt_compute_one_gpu_s=f.compute_time_s(f.prefill_flops(s.active_params, w["prompt_tokens"]), 1,
                                                  s.gpu_peak_flops),
        uncached_prefill_ratio=(f.multi_turn_prefill_tokens(turns, 1, False)
                                / f.multi_turn_prefill_tokens(turns, 1, True)),
        # 7.4
        long_attention_s=long_attention_s,
        long_prompt_over_ttft=long_prompt.prefill_s / w["ttft_target_s"],
        long_prompt_budget_share=long_prompt.kv_bytes_per_seq / s.kv_budget_bytes,
        drain_floor_s=drain_floor_s,
        drain_measured_low_s=drain_floor_s * to_measured.low,
        drain_measured_high_s=drain_floor_s * to_measured.high,
        replica_reprefill_s=s.max_batch * s.prefill_s,
        tenant_ratio=operations_examples(s)["tenant_ratio"],
        weight_share_of_step=s.weight_bytes_read / s.decode_bytes,
        kv_share_of_step=1 - s.weight_bytes_read / s.decode_bytes,
        idle_at_full_batch=f.compute_idle_fraction(s.decode_intensity, s.machine_balance),
        agent_latency_s=AGENT_CALLS * w["ttft_target_s"],
        # 7.2 and 7.5: the planner's fleet, the design page's figures beyond it, the timed round
        fleet_file=f"macros/data/designs/{FLEET_DESIGN}.toml",
        workload=chat_workload, fleet=fleet, answer=fleet_answer, chat=chat,
        # consumer chat's critique 1: the napkin finds eight GPUs per replica cheaper, the serving model dearer
        shape_order_words=(f"on the {get_gpu(chat_workload.gpu).name} it "
                           + ("does" if chat.d.changes["tp8"].extra_gpus < 0 < chat.d.answer_changes["tp8"].extra_gpus
                              else "does not, this time")),
        # the answer's cost per token averaged over the day, not at the peak's rate: a static fleet idles off-peak
        fleet_cost_per_million_over_day=f.cost_per_million_tokens_over_day(
            fleet_answer.cost_per_day, chat_workload.requests_per_day * chat_workload.output_tokens),
        answer_over_napkin=fleet_answer.gpus / fleet.gpus,
        # the answer's tails, token budget and assumptions, in the designs' own words (the consumer-chat file sets a
        # gap target, so no reason for its absence is needed)
        answer_p95s=design_answer.p95s(fleet_answer),
        answer_budget_words=design_answer.budget_words(fleet_answer, None),
        answer_assumptions_words=design_answer.assumptions_words(fleet_answer),
        # the napkin's planned load and the answer's replica at the peak against chapter 6's knee
        against_knee=_answer_knee.figures(fleet, fleet_answer),
        decode_replicas=fleet.decode_replicas, prefill_replicas=fleet.prefill_replicas,
        round=timed_round(), round_prompt=ROUND_DATA["prompt"],
        follow_ups=follow_ups(w["big_prompt"], daily_users_millions),
        problems=problems(chat_workload),
    )
