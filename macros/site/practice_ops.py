"""Each kind's question and worked solution for the latency, communication and operations kinds: time to
first token, Little's law, the all-reduce and the widest split, the scaling signal, a cold start and its warm
pool, preemption, cost, fleet sizing (macros/site/practice_questions.py has the others; the same conventions)."""

from __future__ import annotations

from collections.abc import Callable

from ..engine.lookup import get_gpu, get_model
from ..engine.problems import Problem
from ..engine.problems.latency import NAPKIN_MAX_UTILISATION, NAPKIN_TOLERANCE
from ..text import fmt

Steps = list[tuple[str, str]]


def _gpus(n: int) -> str:
    return "1 GPU" if n == 1 else f"{n} GPUs"


def _spread(n: int) -> str:
    """"on 1 GPU" or "tensor-parallel over 4 GPUs"."""
    return "on 1 GPU" if n == 1 else f"tensor-parallel over {n} GPUs"


# --- time to first token ------------------------------------------------------------------------------


def ttft_q(p: Problem, v: dict[str, str]) -> str:
    i = p.inputs
    if p.variant == "prefill":
        return (f"A model with {v['active_params']} active parameters and {v['weights']} of weights runs "
                f"{_spread(i['gpus'])}, each GPU of {v['peak_flops']} dense peak and {v['bandwidth']}. "
                f"A prompt of {v['prompt']} reaches an idle replica. Prefill costs 2 FLOPs per active parameter per "
                "token (attention left out) and reads every weight once, and its floor is the larger of the two "
                f"times; plan at {v['efficiency']} of the floor. What is its time to first token?")
    m, g = get_model(str(i["model"])), get_gpu(str(i["gpu"]))
    return (f"{m.name} (the calculator's model {i['model']}) in its native {m.native_weights.upper()} weights "
            f"on {i['gpus']} × {g.name} (GPU {i['gpu']}), scheduled by the engine profile {i['engine']} "
            "(continuous batching, chunked prefill), receives Poisson arrivals at "
            f"{v['rate']}, each {v['prompt']} in and {v['output']} out. The serving model prices one prompt's "
            f"prefill, alone on the replica, at {v['service']}, and the API server takes {v['overhead']} before the "
            "scheduler sees a request. Treating the replica as one server whose service time is that prefill "
            "(§6.5), estimate the mean and the p95 time to first token with M/D/1; then say what p95 the serving "
            f"model simulates over {v['requests']} requests.")


def ttft_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    if p.variant == "prefill":
        return [("compute", f"2 × {v['active_params']} × {fmt.count(i['prompt'])} / ({i['gpus']} × "
                            f"{v['peak_flops']}) = {fmt.ms(s['compute_s'])}"),
                ("weight read", f"{v['weights']} / ({i['gpus']} × {v['bandwidth']}) = {fmt.ms(s['memory_s'])}"),
                ("floor", f"the larger, {fmt.ms(s['floor'])}"),
                ("planned", f"{fmt.ms(s['floor'])} / {v['efficiency']} = {fmt.seconds(p.answer)}")]
    t = s["ttft"]
    within = (f"the napkin's p95 is {fmt.pct(abs(s['napkin_p95'] / p.answer - 1), 2)} "
              f"{'above' if s['napkin_p95'] > p.answer else 'below'} it, within the chapter's "
              f"{fmt.pct(NAPKIN_TOLERANCE)} for ρ up to {fmt.num(NAPKIN_MAX_UTILISATION)}"
              if s["in_range"] else
              f"ρ is past the {fmt.num(NAPKIN_MAX_UTILISATION)} up to which the chapter trusts the napkin: it says a "
              "long queue forms, the simulation how long")
    return [("utilisation", f"ρ = λS = {v['rate']} × {v['service']} = {fmt.num(s['utilisation'])}"),
            ("M/D/1 wait", f"W_q = ρS / (2 (1 − ρ)) = {fmt.seconds(s['md1_wait'])} (M/M/1, twice that: "
                           f"{fmt.seconds(s['mm1_wait'])})"),
            ("napkin mean", f"overhead + W_q + S = {v['overhead']} + {fmt.seconds(s['md1_wait'])} + {v['service']} "
                            f"= {fmt.seconds(s['napkin'])}"),
            ("napkin p95", f"the p95 wait (W_q / ρ) ln(20ρ) = {fmt.seconds(s['wait_p95'])}, so TTFT ≈ "
                           f"{v['overhead']} + {fmt.seconds(s['wait_p95'])} + {v['service']} = "
                           f"{fmt.seconds(s['napkin_p95'])}"),
            ("simulated", f"TTFT mean {fmt.seconds(t['mean'])}, p50 {fmt.seconds(t['p50'])}, p95 "
                          f"{fmt.seconds(t['p95'])}, over {fmt.num(s['requests'])} requests after "
                          f"{fmt.num(s['warmup'])} of warm-up; {within}"),
            ("what the napkin leaves out", f"the prompts share their steps with about {fmt.num(s['mean_batch'])} "
                                           "decoding sequences, which lengthen them, and a step's token budget can "
                                           "hold more than one prompt, or pieces of two")]


# --- Little's law ---------------------------------------------------------------------------------------


def littles_q(p: Problem, v: dict[str, str]) -> str:
    base = (f"Requests arrive at {v['rate']}. Each waits {v['ttft']} for its first token and then streams "
            f"{v['output']} in all, {v['tpot']} per token after the first.")
    if p.variant == "in-flight":
        return base + " How many requests are in flight on average?"
    return (base + f" One replica runs at most {v['batch']} sequences at once, and you keep {v['headroom']} "
            "headroom over the average. How many replicas?")


def littles_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    out = [("time in the system", f"W = {v['ttft']} + ({fmt.count(i['output'])} − 1) × {v['tpot']} = "
                                  f"{fmt.seconds(s['e2e'])}"),
           ("in flight", f"L = λ W = {v['rate']} × {fmt.seconds(s['e2e'])} = {fmt.num(s['in_flight'])}")]
    if p.variant == "replicas":
        out.append(("replicas", f"ceil({fmt.num(s['in_flight'])} / {i['batch']} × (1 + {v['headroom']})) = "
                                f"{p.answer}"))
    return out


# --- the all-reduce and the widest useful split ---------------------------------------------------------


def allreduce_q(p: Problem, v: dict[str, str]) -> str:
    link = (f"Each all-reduce is a ring over links of {v['link']} per direction, in BF16 (2 bytes per "
            f"activation), plus {v['latency']} of fixed cost per collective; two all-reduces per layer.")
    if p.variant == "allreduce":
        return (f"A model with {v['layers']} layers of width {v['hidden']} runs tensor-parallel over "
                f"{p.inputs['gpus']} GPUs and decodes {v['batch']} token{'' if p.inputs['batch'] == 1 else 's'} "
                "per step. " + link +
                " How long do one step's all-reduces take?")
    return (f"A dense model of {v['params']} parameters at {v['bytes_per_weight']} per weight has {v['layers']} "
            f"layers of width {v['hidden']} and {v['kv_heads']} KV heads (replicated past {v['kv_heads']} ranks); "
            f"each sequence's KV cache is {v['kv_per_seq']}. A batch of {v['batch']} decodes on GPUs of "
            f"{v['bandwidth']} each. Take the floor as memory-bound: weights plus every sequence's KV copies, over "
            "the group's bandwidth. " + link + f" Of 1, 2, 4 and 8 GPUs, what is the widest tensor-parallel split "
            f"whose all-reduces take at most {v['share']} of its floor?")


def allreduce_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    if p.variant == "allreduce":
        g = i["gpus"]
        return [("all-reduces per step", f"2 × {i['layers']} = {s['count']}"),
                ("each", f"2 × ({g} − 1) / {g} × {i['batch']} × {fmt.count(i['hidden'])} × 2 B / {v['link']} + "
                         f"{v['latency']} = {fmt.seconds(s['each'])}"),
                ("per step", f"{s['count']} × {fmt.seconds(s['each'])} = {fmt.seconds(p.answer)}")]
    rows = "; ".join(f"{r['gpus']}: floor {fmt.ms(r['floor'])}, all-reduces {fmt.ms(r['allreduce'])} "
                     f"({fmt.pct(r['allreduce'] / r['floor'])})" for r in s["rows"])
    return [("weights", f"{v['params']} × {v['bytes_per_weight']} = {fmt.bytes_(s['weights'])}"),
            ("each width", rows),
            ("widest within the share", f"{p.answer} GPUs, the widest at or below {v['share']}")]


# --- the scaling signal, a cold start and its warm pool, preemption ----------------------------------------


def scaling_q(p: Problem, v: dict[str, str]) -> str:
    return (f"A deployment runs {v['current']} replicas. KV-cache occupancy averages {v['kv_occupancy']} "
            f"against a target of {v['kv_target']}; the p95 queue wait is {v['wait_p95']} against a target of "
            f"{v['wait_target']}. The autoscaler takes the larger of the two ratios as its signal and asks for "
            "ceil(replicas × signal). How many replicas does it ask for?")


def scaling_s(p: Problem, v: dict[str, str]) -> Steps:
    s = p.solution
    return [("ratios", f"{v['kv_occupancy']} / {v['kv_target']} = {fmt.num(s['kv_ratio'])}; "
                       f"{v['wait_p95']} / {v['wait_target']} = {fmt.num(s['wait_ratio'])}"),
            ("signal", f"the larger, {fmt.num(s['signal'])}"),
            ("replicas", f"ceil({v['current']} × {fmt.num(s['signal'])}) = {p.answer}")]


def _minutes(n: int) -> str:
    return f"{n} minute{'' if n == 1 else 's'}"


def cold_start_q(p: Problem, v: dict[str, str]) -> str:
    return (f"A replica of {_gpus(p.inputs['gpus'])} serves a model of {v['params']} parameters at "
            f"{v['bytes_per_weight']} per weight. Started from nothing, it waits {v['allocation']} for an instance, "
            f"pulls its {v['image']} serving image from a registry at {v['registry']}, loads its weights from "
            f"{p.source['storage']}, read at {v['storage']}, each GPU taking its share over its own PCIe link of "
            f"{v['pcie']} from the host, then spends {v['startup']} starting the engine, capturing CUDA graphs and "
            "warming up; each step waits for the one before. The forecast calls for "
            f"{v['forecast']} replicas now and {v['ramp']} more each minute, and misses by up to {v['error']} on a "
            "bad day. How long until a replica ordered now serves? How many warm replicas (loaded, idle) must the "
            "pool hold to cover the forecast's error at the first minute it could serve, its cold start rounded up "
            "to whole minutes?")


def cold_start_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    binds = "the source binds" if s["verdict"] == "source" else "the PCIe links bind"
    return [("weights", f"{v['params']} × {v['bytes_per_weight']} = {fmt.bytes_(s['weights'])}"),
            ("image pull", f"{v['image']} / {v['registry']} = {fmt.seconds(s['image_pull'])}"),
            ("load path", f"min({v['storage']}, {i['gpus']} × {v['pcie']}) = {fmt.bandwidth(s['path'])}: {binds}"),
            ("weight load", f"{fmt.bytes_(s['weights'])} / {fmt.bandwidth(s['path'])} = "
                            f"{fmt.seconds(s['weight_load'])}"),
            ("cold start", f"{v['allocation']} + {fmt.seconds(s['image_pull'])} + {fmt.seconds(s['weight_load'])} + "
                           f"{v['startup']} = {fmt.seconds(s['cold_start'])}: it serves after "
                           f"{_minutes(s['minutes'])}"),
            ("forecast then", f"{v['forecast']} + {v['ramp']} × {s['minutes']} = {fmt.num(s['demand'])} replicas"),
            ("warm pool", f"ceil({fmt.num(s['demand'])} × {v['error']}) = {p.answer}: a miss that shows now is "
                          f"{fmt.seconds(s['cold_start'])} from any cold replica, so only the pool absorbs it")]


def preemption_q(p: Problem, v: dict[str, str]) -> str:
    return (f"To admit another request, the scheduler evicts one sequence of {v['seq_len']} from a replica "
            f"{_spread(p.inputs['gpus'])}. The model has {v['active_params']} active parameters and {v['weights']} "
            f"of weights; {v['layers']} layers, {v['query_heads']} query heads and {v['kv_heads']} KV heads of "
            f"dimension {v['head_dim']}, a KV cache of {v['bytes_per_kv']} per element. Each GPU computes "
            f"{v['peak_flops']} (dense) and streams {v['bandwidth']}. Either swap the sequence's KV cache to host "
            f"memory and back, the whole cache through one PCIe link of {v['pcie']} each way; or drop it and "
            "recompute it by a prefill of its tokens: 2 FLOPs per active parameter per token plus causal attention, "
            "2 × layers × query heads × head dimension × s × (s + 1) FLOPs, against one read of every weight, the "
            "larger of the two times. On the floor model, which is faster, and how many times faster?")


def preemption_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    g, n = i["gpus"], i["seq_len"]
    faster = (f"swapping is {fmt.times(p.answer)} faster" if s["verdict"] == "swap" else
              f"recomputing is {fmt.times(1 / p.answer)} faster")
    return [("KV per sequence", f"2 × {i['layers']} × {i['kv_heads']} × {i['head_dim']} × {v['bytes_per_kv']} × "
                                f"{fmt.count(n)} = {fmt.bytes_(s['kv_per_seq'])}"),
            ("swap", f"2 × {fmt.bytes_(s['kv_per_seq'])} / {v['pcie']} = {fmt.ms(s['swap'])}, out and back"),
            ("prefill FLOPs", f"2 × {v['active_params']} × {fmt.count(n)} + 2 × {i['layers']} × {i['query_heads']} × "
                              f"{i['head_dim']} × {fmt.count(n)} × {fmt.count(n + 1)} = {fmt.flops(s['flops'])}"),
            ("compute", f"{fmt.flops(s['flops'])} / ({g} × {v['peak_flops']}) = {fmt.ms(s['compute_s'])}"),
            ("weight read", f"{v['weights']} / ({g} × {v['bandwidth']}) = {fmt.ms(s['memory_s'])}"),
            ("recompute", f"the larger, {fmt.ms(s['recompute'])}"),
            ("verdict", f"{fmt.ms(s['recompute'])} / {fmt.ms(s['swap'])} = {fmt.num(p.answer)}: {faster}")]


# --- cost and fleet sizing ------------------------------------------------------------------------------


def cost_q(p: Problem, v: dict[str, str]) -> str:
    return (f"A replica of {_gpus(p.inputs['gpus'])} at {v['price']} per GPU-hour decodes a batch of {v['batch']} "
            f"sequences with a floor step of {v['step']}, and realises {v['efficiency']} of the floor's "
            "throughput. What does a million output tokens cost?")


def cost_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    return [("floor throughput", f"{v['batch']} / {v['step']} = {fmt.tokens_per_s(s['floor_rate'])}"),
            ("realised", f"× {v['efficiency']} = {fmt.tokens_per_s(s['planned_rate'])}"),
            ("per hour", f"{i['gpus']} × {v['price']} = {fmt.usd(s['per_hour'])}"),
            ("per million", f"{fmt.usd(s['per_hour'])} / 3,600 s / {fmt.tokens_per_s(s['planned_rate'])} × 10⁶ = "
                            f"{fmt.usd(p.answer)}")]


def fleet_q(p: Problem, v: dict[str, str]) -> str:
    return (f"Peak traffic is {v['rate']}, {v['output']} out per request. One replica of "
            f"{_gpus(p.inputs['gpus'])} decodes {v['capacity']} at its SLO batch (planned, not the floor), and "
            f"each request's prefill holds a replica for {v['prefill']} (planned). Keep {v['headroom']} headroom "
            "over the peak. Sizing by replica-seconds per second (decode plus prefill), how many GPUs?")


def fleet_s(p: Problem, v: dict[str, str]) -> Steps:
    s, i = p.solution, p.inputs
    return [("output at peak", f"{v['rate']} × {fmt.count(i['output'])} = {fmt.tokens_per_s(s['output_rate'])}"),
            ("decode", f"{fmt.tokens_per_s(s['output_rate'])} / {v['capacity']} = {fmt.num(s['decode'])} replicas"),
            ("prefill", f"{v['rate']} × {v['prefill']} = {fmt.num(s['prefill'])} replicas"),
            ("replicas", f"ceil(({fmt.num(s['decode'])} + {fmt.num(s['prefill'])}) × (1 + {v['headroom']})) = "
                         f"{s['replicas']}"),
            ("GPUs", f"{s['replicas']} × {i['gpus']} = {p.answer:,}")]


QUESTIONS: dict[str, Callable[[Problem, dict[str, str]], str]] = {
    "ttft": ttft_q, "littles-law": littles_q, "allreduce": allreduce_q, "scaling": scaling_q,
    "cold-start": cold_start_q, "preemption": preemption_q, "cost": cost_q, "fleet": fleet_q}
STEPS: dict[str, Callable[[Problem, dict[str, str]], Steps]] = {
    "ttft": ttft_s, "littles-law": littles_s, "allreduce": allreduce_s, "scaling": scaling_s,
    "cold-start": cold_start_s, "preemption": preemption_s, "cost": cost_s, "fleet": fleet_s}
