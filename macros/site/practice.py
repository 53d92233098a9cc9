"""The practice problems as text: each stated input printed in full (so the printed number is the number
the answer was computed from), each problem's question, its answer and its worked solution, for the problems
page, practice/problems.json and the flashcards. The problems and their answers are macros/engine/problems'."""

from __future__ import annotations

import json
from typing import Any

from ..engine.memo import memoized
from ..engine.problems import Given, Problem, problems
from ..text import fmt
from . import practice_later, practice_ops, practice_questions, practice_scale
from .practice_later import FULL, plural

QUESTIONS = {**practice_questions.QUESTIONS, **practice_ops.QUESTIONS, **practice_later.QUESTIONS,
             **practice_scale.QUESTIONS}
STEPS = {**practice_questions.STEPS, **practice_ops.STEPS, **practice_later.STEPS, **practice_scale.STEPS}

# kind -> (the page's section heading, the chapter that teaches it: its title and its path from docs/)
KIND_INFO: dict[str, tuple[str, str, str]] = {
    "memory": ("Memory and fit", "§3.5 A complete worked budget", "guide/memory.md#35-a-complete-worked-budget"),
    "decode": ("The decode step and the roofline", "§2.2 Decode is memory-bandwidth-bound",
               "guide/roofline.md#22-decode-is-memory-bandwidth-bound"),
    "moe-reads": ("What a mixture of experts reads", "The numbers sheet: formulas", "numbers.md#formulas"),
    "ttft": ("Time to first token, with and without queueing", "Plan a fleet: what the model leaves out",
             "planner.md#what-the-model-leaves-out"),
    "littles-law": ("Little's law: requests in flight", "§6.2 The signals that work",
                    "guide/autoscaling.md#62-the-signals-that-work"),
    "chunked-prefill": ("The chunked-prefill token budget", "§4.4 Chunked prefill",
                        "guide/batching.md#44-chunked-prefill"),
    "speculative": ("Speculative decoding's break-even", "§5.2 Speculative decoding",
                    "guide/toolkit.md#52-speculative-decoding"),
    "allreduce": ("The all-reduce and the widest useful split", "Communication, beside the floor",
                  "parallelism.md#communication-beside-the-floor"),
    "moe-placement": ("MoE placement: tp and dp-attention", "Parallelism and placement", "parallelism.md"),
    "scaling": ("The scaling signal", "§6.2 The signals that work", "guide/autoscaling.md#62-the-signals-that-work"),
    "cold-start": ("Cold starts and the warm pool", "§6.3 Predictive versus reactive",
                   "guide/autoscaling.md#63-predictive-versus-reactive"),
    "preemption": ("Preemption: swap or recompute", "§6.4 Admission control and fairness",
                   "guide/autoscaling.md#64-admission-control-and-fairness"),
    "cost": ("Cost per million output tokens", "§7.3 Altitude 2",
             "guide/design-chatgpt.md#73-altitude-2-open-up-the-serving-layer"),
    "fleet": ("Fleet sizing", "Plan a fleet: the method", "planner.md#the-method"),
    "reasoning-kv": ("Reasoning requests held at once", "§8.1 Reasoning models and test-time compute",
                     "guide/reasoning.md#81-reasoning-models-and-test-time-compute"),
    "grammar-mask": ("The token mask against the decode step", "§8.2 Structured output and constrained decoding",
                     "guide/reasoning.md#82-structured-output-and-constrained-decoding"),
    "image-tokens": ("An image-heavy prompt's tokens and KV cache", "§9.1 Images, audio and video as tokens",
                     "guide/multimodal.md#91-images-audio-and-video-as-tokens"),
    "lora-step": ("A decode step that mixes LoRA adapters", "§9.6 A batch that mixes adapters",
                  "guide/multimodal.md#96-a-batch-that-mixes-adapters"),
    "ep-alltoall": ("The expert-parallel all-to-all", "§10.1 The expert-parallel all-to-all",
                    "guide/moe-at-scale.md#101-the-expert-parallel-all-to-all"),
    "pool-sizing": ("Prefill and decode pools", "§10.5 Sizing the pools", "guide/moe-at-scale.md#105-sizing-the-pools"),
    "kv-reload": ("Reload a cached prefix or recompute it", "§11.1 Reload or recompute",
                  "guide/long-context.md#reload-or-recompute"),
    "long-prefill": ("A long prompt's prefill on a context-parallel group", "§11.2 A million-token prompt",
                     "guide/long-context.md#a-million-token-prompt"),
}


# (kind, variant) -> the chapter that teaches it, where it is not the kind's
VARIANT_INFO: dict[tuple[str, str], tuple[str, str]] = {
    ("ep-alltoall", "overlap-pays"): ("§10.2 Hiding it: two-batch overlap",
                                      "guide/moe-at-scale.md#102-hiding-it-two-batch-overlap"),
    ("ep-alltoall", "overlap-loses"): ("§10.2 Hiding it: two-batch overlap",
                                       "guide/moe-at-scale.md#102-hiding-it-two-batch-overlap"),
    ("pool-sizing", "handoff"): ("§10.6 The KV handoff", "guide/moe-at-scale.md#106-the-kv-handoff"),
    ("ttft", "queue"): ("§6.5 Queueing theory for one replica",
                        "guide/autoscaling.md#65-queueing-theory-for-one-replica"),
}


def teaches(p: Problem) -> tuple[str, str]:
    """The title and path from docs/ of the section that teaches the problem."""
    return VARIANT_INFO.get((p.kind, p.variant), KIND_INFO[p.kind][1:])


def given_text(g: Given) -> str:
    """One stated input as the problem prints it, in full."""
    v = g.value
    if g.unit == "text":
        return str(v)
    assert isinstance(v, int | float)
    return {
        "params": lambda: f"{fmt.num(v / 1e9, FULL)} billion",
        "bytes": lambda: plural(v, "byte"),
        "B": lambda: fmt.bytes_(v, FULL),
        "B/s": lambda: fmt.bandwidth(v, FULL),
        "FLOP/s": lambda: fmt.flops_rate(v, FULL),
        "s": lambda: fmt.seconds(v, FULL),
        "count": lambda: fmt.num(v, FULL),
        "tokens": lambda: plural(v, "token"),
        "1/s": lambda: f"{fmt.num(v, FULL)} requests/s",
        "tokens/s": lambda: fmt.tokens_per_s(v, FULL),
        "USD/h": lambda: fmt.usd(v, FULL),
        "fraction": lambda: fmt.pct(v, FULL),
    }[g.unit]()


def stated(p: Problem) -> dict[str, str]:
    """Every stated input of the problem, printed."""
    return {g.name: given_text(g) for g in p.given}


def question(p: Problem) -> str:
    """The question, in plain text (no Markdown), with every input it needs."""
    return QUESTIONS[p.kind](p, stated(p))


def answer_text(p: Problem) -> str:
    """The answer, formatted as the site formats it."""
    a, s = p.answer, p.solution
    if p.kind == "memory" and a == 0:
        return f"No: not even one sequence fits ({fmt.pct(s['over'])} over)"
    if p.kind == "decode":
        return f"{fmt.ms(a)}, {s['verdict']}-bound"
    if p.kind in ("kv-reload", "long-prefill"):
        return practice_scale.kv_tiers_answer(p)
    if p.kind in ("ep-alltoall", "pool-sizing"):
        return practice_scale.moe_at_scale_answer(p)
    if p.kind == "image-tokens":
        return f"{fmt.count(s['per_image'])} tokens an image; {fmt.bytes_(a)} of KV cache for the prompt"
    if p.kind == "lora-step":
        return f"{fmt.ms(a)}, {fmt.pct(s['extra'])} more than without the adapters"
    if p.kind == "grammar-mask":
        return (f"From {a:,} sequences: their masks take {fmt.ms(s['cpu_at'])} of CPU time against the step's "
                f"{fmt.ms(s['gpu_at'])} floor")
    if p.kind == "cold-start":
        return (f"{a} warm replica{'' if a == 1 else 's'}; a cold start takes {fmt.seconds(s['cold_start'])} "
                f"({s['minutes']} minute{'' if s['minutes'] == 1 else 's'})")
    if p.kind == "preemption":
        return (f"Swap: {fmt.times(a)} faster than recomputing" if s["verdict"] == "swap" else
                f"Recompute: {fmt.times(1 / a)} faster than swapping")
    if p.unit == "B":
        return fmt.bytes_(a)
    if p.kind == "ttft" and p.variant == "queue":
        return f"{fmt.seconds(a)} at the {s['percentile']} (the serving model's simulation)"
    if p.unit == "s":
        return fmt.seconds(a)
    if p.unit == "USD":
        return f"{fmt.usd(a)} per million output tokens"
    if p.unit == "tokens":
        return fmt.tokens(a)
    if p.kind == "speculative":
        return f"about {fmt.num(a)} sequences"
    if isinstance(a, float):
        return f"{fmt.num(a)} {p.unit}"
    return f"{a:,} {p.unit}" if a != 1 else f"1 {p.unit.rstrip('s')}"


def steps(p: Problem) -> list[tuple[str, str]]:
    """(what, the formula with its values and result), step by step, from the stated inputs."""
    return STEPS[p.kind](p, stated(p))


def command(p: Problem) -> str | None:
    """The gpu_math.py command that checks a simulated answer (the others are checked by hand)."""
    if p.kind != "ttft" or p.variant != "queue":
        return None
    i = p.inputs
    return (f"python3 gpu_math.py simulate --model {i['model']} --gpu {i['gpu']} --gpus {i['gpus']} "
            f"--engine {i['engine']} --input-tokens {i['prompt']} --output-tokens {i['output']} "
            f"--rate {fmt.num(i['rate'], FULL)} --requests {i['requests']} --json")


def exported() -> list[dict[str, Any]]:
    """practice/problems.json: every problem with its stated inputs (SI units, and as printed), its answer
    in SI units and as the page prints it, and its worked solution."""
    return [dict(id=p.id, kind=p.kind, variant=p.variant, question=question(p),
                 inputs=[dict(name=g.name, value=g.value, unit=g.unit, printed=given_text(g)) for g in p.given],
                 answer=p.answer, unit=p.unit, answer_text=answer_text(p),
                 solution=[dict(step=what, working=how) for what, how in steps(p)], command=command(p))
            for p in problems()]


@memoized(keep=True)  # the problems' texts change only with the code and data: a rebuild reads them
def problems_json() -> bytes:
    """The export as JSON; allow_nan=False makes a non-finite answer an error, never invalid JSON (the engine's
    tests hold every answer finite)."""
    return (json.dumps(exported(), indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode()
