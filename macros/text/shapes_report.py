"""The shape search in words (`gpu_math.py shapes FILE`): each shape's best point within the targets, the
chosen shape, the runner-up and why it lost, and the Pareto curve the search walked."""

from __future__ import annotations

from ..engine.fleet.fleet_options import FleetOptions
from ..engine.fleet.shapes import ShapeResult, ShapeSearch
from . import fmt


def why_not(r: ShapeResult, ttft_s: float, tpot_s: float) -> str:
    """Why a shape has no point within the targets: it holds no sequence, or even one sequence misses."""
    if r.does_not_fit is not None:
        return r.does_not_fit
    p = r.lightest
    missed = ([f"TPOT {fmt.ms(p.tpot_s)} against {fmt.ms(tpot_s)}"] if p.tpot_s > tpot_s else []) + (
        [f"TTFT {fmt.seconds(p.ttft_s)} against {fmt.seconds(ttft_s)}"] if p.ttft_s > ttft_s else [])
    return "one request at a time already misses: " + " and ".join(missed)


def lost_because(s: ShapeSearch) -> str:
    """Why the runner-up lost, in words ("" when there is none)."""
    if s.runner_up is None:
        return ""
    a, b = s.chosen.best, s.runner_up.best
    if s.tied:
        return (f"{s.runner_up.shape.label} comes within 1 % per GPU ({fmt.tokens_per_s(b.output_tokens_per_s_per_gpu)}"
                f" against {fmt.tokens_per_s(a.output_tokens_per_s_per_gpu)}); {s.chosen.shape.label} uses fewer "
                "GPUs per replica")
    return (f"{s.runner_up.shape.label} reaches {fmt.tokens_per_s(b.output_tokens_per_s_per_gpu)} per GPU at its best "
            f"point within the targets (concurrency {b.concurrency}), against "
            f"{fmt.tokens_per_s(a.output_tokens_per_s_per_gpu)} for {s.chosen.shape.label}")


def render(s: ShapeSearch, name: str, ttft_s: float, tpot_s: float) -> str:
    out = [f"{name}: replica shapes within TTFT {fmt.seconds(ttft_s)} and TPOT {fmt.ms(tpot_s)} (means, closed loop "
           "at equilibrium under the fitted step model)", ""]
    for r in s.results:
        if r.best is None:
            out.append(f"  {r.shape.label:22} none: {why_not(r, ttft_s, tpot_s)}")
        else:
            p = r.best
            out.append(f"  {r.shape.label:22} {fmt.tokens_per_s(p.output_tokens_per_s_per_gpu)} per GPU at "
                       f"{fmt.tokens_per_s(p.tokens_per_s_per_user)} per user (concurrency {p.concurrency}, TTFT "
                       f"{fmt.seconds(p.ttft_s)}, TPOT {fmt.ms(p.tpot_s)})")
    out.append("")
    if s.chosen is None:
        out.append("No shape within one node meets the targets at any concurrency.")
    else:
        out.append(f"Chosen: {s.chosen.shape.label}.")
        if s.runner_up is not None:
            out.append(f"Runner-up: {lost_because(s)}.")
    out += ["", "Pareto curve (tokens/s per user, tokens/s per GPU, shape, concurrency):"]
    out += [f"  {fmt.tokens_per_s(p.tokens_per_s_per_user):>14}  "
            f"{fmt.tokens_per_s(p.output_tokens_per_s_per_gpu):>16}  {p.shape.label}, {p.concurrency}"
            for p in s.pareto]
    out += ["", "Left out: open-loop queueing at peak (the percentile planner simulates it), the cached "
                "prefix's KV in the decode context, shapes wider than one node."]
    return "\n".join(out) + "\n"


def fleet_options(o: FleetOptions) -> str:
    """The plan's shape search, pools and speculative step in a few lines (`gpu_math.py plan`)."""
    s, out = o.shapes, ["", "Replica shape (the shape search under the fitted step model, mean targets, closed loop):"]
    if s.chosen is None:
        out.append("  no shape within one node meets the targets at any concurrency")
    else:
        out.append(f"  chosen {s.chosen.shape.label}: {fmt.tokens_per_s(s.chosen.best.output_tokens_per_s_per_gpu)} "
                   "per GPU" + (f"; runner-up: {lost_because(s)}" if s.runner_up else ""))
    if o.split is not None:
        d = o.split
        out.append("Disaggregated prefill and decode (KV sent over the network after prefill):")
        if d.gpus is None:
            out.append("  no answer: one of the two pools has no shape that meets its target")
        else:
            out.append(f"  prefill {d.prefill.replicas} x {d.prefill.shape.label}, decode {d.decode.replicas} x "
                       f"{d.decode.shape.label} (batch {d.decode.batch}): {fmt.count(d.gpus)} GPUs against "
                       f"{fmt.count(d.colocated_gpus)} colocated; mean TTFT {fmt.seconds(d.ttft_s)} with "
                       f"{fmt.ms(d.kv_transfer_s)} of KV transfer")
    if o.speculative is not None:
        q = o.speculative
        out.append(f"Speculative decoding, {q.draft_tokens} drafts at {fmt.pct(q.acceptance)} acceptance, at the SLO "
                   f"batch: {fmt.num(q.tokens_per_step)} tokens per verify step, {fmt.times(q.speedup)} the tokens/s; "
                   + ("it still pays at every batch up to 4,096" if o.break_even_batch is None else
                      f"it stops paying at a batch of {fmt.count(o.break_even_batch)}"))
    return "\n".join(out) + "\n"
