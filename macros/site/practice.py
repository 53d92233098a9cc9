"""The practice problems as text: each problem's question, its answer, and the worked derivation
(macros/text/show.py's formulas with the values substituted, plan_report's steps for the planner),
for the problems page, practice/problems.json and the flashcards. The problems and their answers are
macros/engine/practice.py's."""

from __future__ import annotations

import json
from typing import Any

from ..engine.practice import Problem, problems
from ..engine.scenario import Scenario
from ..text import fmt, plan_report, show

# kind -> (the page's section heading, the chapter that teaches it: its title and its path from docs/)
KIND_INFO: dict[str, tuple[str, str, str]] = {
    "fit": ("Does it fit?", "§3.5 A complete worked budget", "guide/memory.md#35-a-complete-worked-budget"),
    "max-batch": ("Max batch", "§3.5 A complete worked budget", "guide/memory.md#35-a-complete-worked-budget"),
    "decode-floor": ("The decode floor", "§2.2 Decode is memory-bandwidth-bound",
                     "guide/roofline.md#22-decode-is-memory-bandwidth-bound"),
    "per-user": ("Planned tokens per second per user", "§3.5 A complete worked budget",
                 "guide/memory.md#35-a-complete-worked-budget"),
    "cost": ("Cost per million output tokens", "§7.3 Altitude 2",
             "guide/design-chatgpt.md#73-altitude-2-open-up-the-serving-layer"),
    "binding": ("Which is binding?", "§2.1 Arithmetic intensity", "guide/roofline.md#21-arithmetic-intensity"),
    "layout": ("Layouts: tp or dp-attention", "Parallelism and placement", "parallelism.md"),
    "planner": ("How many GPUs for this workload?", "Plan a fleet", "planner.md"),
}


def _setup(s: Scenario) -> str:
    return (f"{s.model_spec.name} ({s.weights_dtype.upper()} weights, {s.kv_dtype.upper()} KV cache) on "
            f"{s.gpus} × {s.gpu_spec.name}")


def _plan_setup(p: Problem) -> str:
    w, r = p.workload, p.result
    source = (f"The workload in {p.inputs['file']}" + (f", variant {p.inputs['variant']}" if "variant" in p.inputs
                                                         else "") if "file" in p.inputs else "This workload")
    fixed = f"{w.gpus_per_replica} GPUs per replica" if w.gpus_per_replica else "replica shape of your choice"
    return (f"{source}: {w.name}, {r.at_slo.model_spec.name} ({w.weights.upper()} weights) on "
            f"{r.at_slo.gpu_spec.name}, {fixed}; {fmt.num(w.peak_requests_per_s)} requests/s at peak, "
            f"{fmt.tokens(w.prompt_tokens)} in and {fmt.tokens(w.output_tokens)} out per request, "
            f"{fmt.pct(w.prefix_hit_rate)} of prompt tokens from the prefix cache; "
            f"targets TTFT ≤ {fmt.seconds(w.ttft_s)}, TPOT ≤ {fmt.seconds(w.tpot_s)}; "
            f"efficiency {fmt.pct(w.efficiency)}, headroom {fmt.pct(w.headroom)}")


def question(p: Problem) -> str:
    """The question, in plain text (no Markdown), with every input it needs."""
    if p.kind == "planner":
        return f"{_plan_setup(p)}. How many GPUs does it need?"
    s = p.result
    seq, reserve = f"{fmt.count(s.seq_len)}-token", fmt.bytes_(s.reserve_bytes / s.gpus)
    if p.kind == "fit":
        return (f"Does {_setup(s)} hold at least one {seq} sequence, keeping {reserve} per GPU "
                "for activations and overhead?")
    if p.kind == "max-batch":
        return f"How many {seq} sequences can {_setup(s)} hold at once, keeping {reserve} per GPU in reserve?"
    step = f"at batch {s.batch}, every sequence at {fmt.tokens(s.seq_len)}"
    if p.kind == "decode-floor":
        return f"What is the decode-step floor of {_setup(s)} {step}?"
    if p.kind == "per-user":
        return (f"What rate does each user see, planned at {fmt.pct(s.efficiency)} of the floor, on {_setup(s)} "
                f"{step}?")
    if p.kind == "cost":
        return (f"What does a million output tokens cost on {_setup(s)} at its max batch of {seq} sequences, "
                f"at {fmt.usd(s.price_per_gpu_hour)} per GPU-hour and {fmt.pct(s.efficiency)} of the floor?")
    if p.kind == "binding":
        return f"Decoding on {_setup(s)} {step}: is the step bound by memory bandwidth or by compute?"
    return (f"With the {s.layout} layout, how many {seq} sequences does {_setup(s)} hold, keeping {reserve} "
            "per GPU in reserve?")


def answer_text(p: Problem) -> str:
    """The answer, formatted as the site formats it."""
    s = p.result
    if p.kind == "fit":
        return (f"Yes: the KV budget holds {s.max_batch} sequences" if s.fits
                else "No: not even one sequence fits")
    if p.kind in ("max-batch", "layout"):
        text = f"{s.max_batch:,} sequences"
        if p.kind == "layout" and p.other is not None:
            other = f"{p.other.max_batch:,}" if p.other.fits else "none"
            text += f" ({other} under {p.other.layout})"
        return text
    if p.kind == "decode-floor":
        return fmt.ms(s.decode_step_s)
    if p.kind == "per-user":
        return fmt.tokens_per_s(p.answer)
    if p.kind == "cost":
        return f"{fmt.usd(s.cost_per_million_tokens)} per million output tokens"
    if p.kind == "binding":
        return "Memory bandwidth" if s.bound == "memory" else "Compute"
    return f"{s.gpus:,} GPUs: {s.replicas:,} replicas of {s.gpus_per_replica}"


def _budget_lines(s: Scenario) -> list[tuple[str, str]]:
    held = [("weights held", show.weights_held(s))] if s.layout == "dp-attention" else []
    return [("memory", show.memory(s)), ("weights", show.weights(s)), *held, ("reserve", show.reserve(s)),
            ("KV budget", show.budget(s)), ("KV per token", show.kv_per_token(s.model_spec, s.kv_dtype)),
            ("KV per sequence", show.kv_per_seq(s)), ("KV copies", show.kv_copies(s))]


def _floor_lines(s: Scenario) -> list[tuple[str, str]]:
    return [("bytes per step", show.decode_bytes(s)), ("memory time", show.memory_time(s)),
            ("FLOPs per step", show.decode_flops(s)), ("compute time", show.compute_time(s)),
            ("floor", f"the larger: {fmt.ms(s.decode_step_s)} ({s.bound}-bound)")]


def steps(p: Problem) -> list[tuple[str, str]]:
    """(what, the formula with its values and result), step by step."""
    s = p.result
    if p.kind == "planner":
        return plan_report.steps(s)
    if p.kind in ("fit", "max-batch", "layout"):
        out = _budget_lines(s)
        if s.fits:
            out.append(("max batch", show.max_batch(s)))
        else:
            out.append(("verdict", f"one sequence needs {fmt.bytes_(s.kv_bytes_per_seq_group)} and the budget is "
                                   f"{fmt.bytes_(s.kv_budget_bytes)}: it does not fit"))
        return out
    if p.kind == "binding":
        return [("machine balance", show.machine_balance(s.gpu_spec, s.gpu_peak_flops)),
                ("bytes per step", show.decode_bytes(s)), ("FLOPs per step", show.decode_flops(s)),
                ("intensity", show.intensity(s)),
                ("verdict", f"{fmt.num(s.decode_intensity)} FLOP/B is {'below' if s.bound == 'memory' else 'above'} "
                            f"the balance of {fmt.num(s.machine_balance)} FLOP/B: {s.bound}-bound")]
    out = _floor_lines(s)
    if p.kind == "per-user":
        out += [("planned step", show.planned_step(s)),
                ("per user", f"1 / {fmt.ms(s.planned_step_s)} = {fmt.tokens_per_s(p.answer)}")]
    elif p.kind == "cost":
        out = [("max batch", show.max_batch(s)), *out, ("throughput", show.throughput(s)), ("cost", show.cost(s))]
    return out


def command(p: Problem) -> str:
    """The gpu_math.py command line that checks the answer."""
    if p.kind == "planner":
        if "file" not in p.inputs:
            return "python3 gpu_math.py plan workload.toml --json"
        variant = f" --variant {p.inputs['variant']}" if "variant" in p.inputs else ""
        return f"python3 gpu_math.py plan {p.inputs['file']}{variant} --json"
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in p.inputs.items())
    return f"python3 gpu_math.py {flags} --json"


def workload_toml(table: dict[str, Any]) -> str:
    """A generated workload as a workload file, to save and pass to `gpu_math.py plan`."""
    lines = [f"{k} = {json.dumps(v)}" for k, v in table.items() if not isinstance(v, dict)]
    for section, values in table.items():
        if isinstance(values, dict):
            lines += ["", f"[{section}]", *(f"{k} = {json.dumps(v)}" for k, v in values.items())]
    return "\n".join(lines) + "\n"


def exported() -> list[dict[str, Any]]:
    """practice/problems.json: every problem with its inputs and its answer in SI units."""
    return [dict(id=p.id, kind=p.kind, question=question(p), inputs=p.inputs, answer=p.answer, unit=p.unit,
                 json_key=p.json_key) for p in problems()]


def problems_json() -> bytes:
    return (json.dumps(exported(), indent=1, ensure_ascii=False) + "\n").encode()
