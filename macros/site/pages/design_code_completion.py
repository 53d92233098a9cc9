"""The IDE code-completion design (docs/designs/code-completion.md): the figures beyond the plan.

The keystrokes that become requests and the requests a later keystroke cancels, the latency budget
that sets the TPOT target, speculative decoding on the planned replica, the work spent on cancelled
requests, the replica shapes priced, and the prefix cache's room. The design's assumptions are read
from the [design.inputs] table of macros/data/designs/code-completion.toml; the workload's traffic and
targets are derived from them again here, and a file whose tables disagree is refused (one line).
Values in SI units; the page formats them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet.answer import Answer
from ...engine.fleet.answer import answer as serving_answer
from ...engine.fleet.plan_change import Change
from ...engine.fleet.planner import Plan, Shortfall, cheapest, plan, plan_shape, require
from ...engine.fleet.planner_simulated import value
from ...engine.fleet.workload_file import Workload
from ...engine.fleet.workload_file import load_workload_file as load_workload
from ...engine.lookup import get_gpu
from ...engine.specs import display_path
from ...text import fmt, plan_report
from ..markdown import table
from . import design, design_answer
from ._shared import speculation

SLUG = "code-completion"
SHAPES = (1, 2, 4, 8)  # replicas of one to eight GPUs: within one NVLink node
RATE_TOLERANCE = 1e-3  # relative: the file rounds the derived request rate and TPOT target
TOKEN_TOLERANCE = 0.5  # the file holds whole tokens


INPUTS = {"size_tpot_for": design.TEXT, **design.positive(
    "developers_at_peak", "triggers_per_developer_s", "mean_keystroke_gap_s", "debounce_s", "eager_debounce_s",
    "cancel_done_share", "completion_tokens", "completion_tokens_p95", "network_p95_s", "total_p95_s",
    "draft_tokens", "acceptance", "acceptance_novel")}


def inputs(path: Path | None = None) -> dict[str, Any]:
    """[design.inputs] of the design file: the assumptions the traffic and targets rest on."""
    return design.inputs(SLUG, INPUTS, path)


def derive(i: dict[str, Any]) -> SimpleNamespace:
    """From keystrokes to the planner's traffic and targets: requests sent after the debounce, the TPOT
    budget for the completion it is sized for, the share a later keystroke cancels within the budget's
    latency, and the tokens decoded per sent request."""
    triggers = i["developers_at_peak"] * i["triggers_per_developer_s"]
    sent_share = f.debounce_sent_share(i["debounce_s"], i["mean_keystroke_gap_s"])
    sized_tokens = {"mean": i["completion_tokens"], "p95": i["completion_tokens_p95"]}[i["size_tpot_for"]]
    ttft = i["ttft_s"]
    tpot = f.tpot_budget_s(i["total_p95_s"], i["network_p95_s"], ttft, sized_tokens)
    latency = f.end_to_end_s(i["network_p95_s"], ttft, i["completion_tokens"], tpot)  # the mean completion's
    cancelled = f.cancelled_share(latency, i["mean_keystroke_gap_s"])
    return SimpleNamespace(
        triggers_per_s=triggers, sent_share=sent_share, sent_per_s=triggers * sent_share, tpot_s=tpot,
        latency_s=latency, cancelled_share=cancelled, completed_per_s=triggers * sent_share * (1 - cancelled),
        decoded_tokens=f.decoded_tokens_per_request(i["completion_tokens"], cancelled, i["cancel_done_share"]),
    )


def check(w: Workload, i: dict[str, Any], where: str) -> None:
    """The workload's rate, output tokens and TPOT target must be what the inputs derive."""
    d = derive({**i, "ttft_s": w.ttft_s})
    for field, got, want, ok in (
        ("peak_requests_per_s", w.peak_requests_per_s, d.sent_per_s,
         abs(w.peak_requests_per_s / d.sent_per_s - 1) <= RATE_TOLERANCE),
        ("output_tokens", w.output_tokens, d.decoded_tokens,
         abs(w.output_tokens - d.decoded_tokens) <= TOKEN_TOLERANCE),
        ("tpot_s", w.tpot_s, d.tpot_s, abs(w.tpot_s / d.tpot_s - 1) <= RATE_TOLERANCE),
    ):
        if not ok:
            raise design.DesignError(f"{where}: {field} is {got:g} but [design.inputs] derive {want:.6g}")


def check_file(path: Path) -> tuple[Workload, dict[str, Workload], dict[str, Any]]:
    """The design file's workload and variants, each checked against the inputs it is derived from."""
    where = display_path(path)
    w, variants = load_workload(path)
    i = inputs(path)
    check(w, i, where)
    for name, changes in i.get("variants", {}).items():
        if name not in variants:
            raise design.DesignError(f"{where}: [design.inputs.variants] names no [variants.{name}]")
        check(variants[name], {**i, **changes}, f"{where}: [variants.{name}]")
    return w, variants, i


def _money(a: Answer, per_s: float, unit: float) -> float:
    """The answer's fleet's cost per `unit` of something produced at `per_s` at the peak."""
    return f.cost_per_million_tokens_at_peak(a.gpus, a.price_per_gpu_hour, per_s) / 1e6 * unit


MISSES = {"memory": "does not fit", "tpot": "misses the TPOT target", "ttft": "misses the TTFT target"}


def _shapes(w: Workload, answers: dict[int, Answer]) -> tuple[str, dict[int, Plan | Shortfall]]:
    """The workload on replicas of exactly 1, 2, 4 and 8 GPUs: a table of the napkin's plan and the serving model's
    answer on each (`answers`, by GPUs per replica), and each shape's plan or shortfall."""
    rows, plans = [], {}
    for g in SHAPES:
        p = plans[g] = plan_shape(w, g)
        answer = design_answer.fleet(answers[g]) if answers[g].feasible else "none"
        if isinstance(p, Shortfall):
            rows.append([f"{g} × {get_gpu(w.gpu).name}", "—", "—", "—", MISSES[p.constraint], answer])
            continue
        comms = p.at_slo.tp_allreduce_s or 0.0
        rows.append([f"{g} × {p.at_slo.gpu_spec.name}", str(p.slo_batch), fmt.ms(p.planned_step_s),
                     fmt.ms(comms), fmt.count(p.gpus), answer])
    header = ["Replica", "SLO batch", "Planned step", "All-reduce per step (beside it)", "Napkin GPUs",
              "The serving model's answer"]
    return table(header, rows, align="lrrrrr"), plans


def serving_shape_words(answers: dict[int, Answer], chosen: int) -> str:
    """Section 5: how the serving model, which counts the all-reduces and the tails, ranks the shapes, and where the
    chosen one stands."""
    fleets = {g: a.gpus for g, a in answers.items() if a.feasible}
    cheapest = min(fleets, key=lambda g: (fleets[g], g))
    listed = ", ".join(f"{fmt.count(n)} on {g}" for g, n in sorted(fleets.items()))
    if cheapest == chosen:
        return f"The serving model, which counts them and the tails, needs the fewest GPUs on {chosen} ({listed})"
    return (f"The serving model, which counts them and the tails, needs the fewest GPUs on {cheapest}, "
            f"{fmt.count(fleets[chosen] - fleets[cheapest])} fewer than on {chosen} ({listed})")


def one_gpu_serving_words(one: Answer, chosen: Answer) -> str:
    """Section 9: two GPUs per replica against one, on the serving model."""
    if not one.feasible:
        return f"{fmt.count(chosen.gpus)} GPUs, where one GPU per replica has no fleet"
    return f"{fmt.count(chosen.gpus)} GPUs instead of {fmt.count(one.gpus)}"


def one_gpu_words(w: Workload, one: Plan | Shortfall, shapes: list[Plan]) -> SimpleNamespace:
    """What the prose says about one GPU per replica on the napkin, against the other shapes that have a plan: its
    fleet and where it ranks, or why it has no plan at all."""
    if isinstance(one, Shortfall):
        why = plan_report.shortfall(w, one)
        return SimpleNamespace(
            verdict="On this data it cannot serve the workload at all.",
            needs=f"On the napkin one GPU per replica has no plan: {why}.")
    fleets = [s.gpus for s in shapes]
    verdict = ("It is the most expensive choice." if one.gpus == max(fleets) else
               "It is the cheapest choice." if one.gpus == min(fleets) else "It is not the cheapest choice.")
    return SimpleNamespace(
        verdict=verdict,
        needs=f"On the napkin one GPU per replica needs {fmt.count(one.gpus)} GPUs at a batch of {one.slo_batch}.")


def _more_or_fewer(count: float, what: str = "") -> str:
    """A difference with its sign in words: "10 more GPUs", "10 fewer GPUs" (a widened variant can be cheaper), or
    "10 more" without a noun."""
    return " ".join(filter(None, (fmt.count(abs(count)), "more" if count >= 0 else "fewer", what)))


def change_words(c: Change) -> str:
    """What a variant's answer changes against the design's, in words: "the serving model needs 10 more GPUs, $600
    more a day", or that it finds no fleet and why."""
    if not c.after.feasible:
        return f"the serving model finds no fleet: {design_answer.why_none(c.after)}"
    return "the serving model needs " + delta_words(c)


def delta_words(c: Change) -> str:
    """A feasible change's GPUs and cost per day against the design's: "10 more GPUs, $600 more a day"."""
    gpus, cost = _more_or_fewer(c.extra_gpus, "GPUs"), c.extra_cost_per_day
    return gpus if cost is None else f"{gpus}, {fmt.usd(abs(cost))} {'more' if cost >= 0 else 'less'} a day"


def busy_words(a: Answer, p: Plan) -> str:
    """What the serving model sees that the napkin does not, from the answer's own run: the target that sets the
    count, how busy that leaves a replica against the napkin's SLO batch (Little's law on the run), and how far
    the run's tail sits from its mean."""
    t, stats = a.simulated.binding, a.simulated.chosen.stats
    metric = f"{t.metric}_s"
    return (f"The {t.words} sets the count. Each replica takes {fmt.num(a.simulated_requests_per_s_per_replica)} "
            f"requests a second and holds {fmt.num(a.live_concurrency_per_replica)} on average, not the napkin's "
            f"batch of {p.slo_batch}, and its run's mean {design_answer.METRIC_NAMES[t.metric]} is "
            f"{fmt.seconds(stats[metric]['mean'])} against a {t.words} of {fmt.seconds(value(stats, t))}: the "
            "target binds on the tail.")


def cancelled_headline(share: float) -> str:
    """The traffic paragraph's lead, following the share of sent requests a later keystroke cancels."""
    if share > 0.5:
        return "Most are cancelled."
    return "Many are cancelled." if share >= 0.2 else "A few are cancelled."


def verify_words(ratio: float) -> str:
    """What a verification step costs against a plain one, in words that follow the ratio."""
    if ratio <= 1 + 1e-9:
        return "costs what a plain one does: the weights and the KV cache are read once either way"
    return f"costs {fmt.times(ratio)} a plain one"


def cancel_lost_words(base: Answer, lost: Answer, napkin: Change) -> str:
    """Revision 3's verdict on the serving model: the fleet the lost cancels need against the design's, and when it
    needs no more while the work grows, why that is the target's artefact and not a saving (its target is a
    percentile of each request's time per token, which a longer request averages over more gaps)."""
    if not lost.feasible:
        return f"the serving model finds no fleet at all: {design_answer.why_none(lost)}"
    c = Change(base, lost)
    if c.extra_gpus > 0:
        return change_words(c) + (". Without them the queue grows, the p95s break, and the dashboards show a capacity "
                                  "problem")
    n0, n1 = base.simulated.workload.output_tokens, lost.simulated.workload.output_tokens
    count = "stays" if c.extra_gpus == 0 else f"falls by {fmt.count(-c.extra_gpus)} GPUs"
    napkin_needs = ("needs no more" if napkin.extra_gpus == 0
                    else f"needs {_more_or_fewer(napkin.extra_gpus)}")
    return (f"the decode work grows by {fmt.pct(n1 / n0 - 1)}, yet the serving model's count {count} (the napkin, "
            f"which prices the work, {napkin_needs}). That is the target's artefact, not a saving: the "
            f"{base.simulated.binding.words} is a percentile of each request's own time per token, and a request of "
            f"{n1} tokens averages it over {n1 - 1} gaps, not {n0 - 1}, so the steps that carry another request's "
            f"prefill weigh less on it, and a replica takes {fmt.num(lost.simulated_requests_per_s_per_replica)} "
            f"requests a second at the target instead of {fmt.num(base.simulated_requests_per_s_per_replica)}. "
            "So the design's fleet still meets its targets with every cancel lost: no latency alarm fires, and the "
            "waste shows only in the tokens decoded per request")


def step_bytes_words(weight_bytes: float, kv_bytes: float) -> str:
    """What a decode step at the SLO batch reads most: the weights or the batch's KV, in words."""
    share = weight_bytes / (weight_bytes + kv_bytes)
    if share >= 0.5:
        return f"and the weight read is most of every step's bytes: {fmt.pct(share)}"
    return f"yet at these contexts the batch's KV, not the weights, is most of every step's bytes: {fmt.pct(1 - share)}"


def split_words(base: Answer, split: Answer, net_s: float, n: int, n95: int, total_s: float) -> str:
    """Section 9's split of the latency budget: another TTFT allowance (and the TPOT it leaves), on the serving
    model's answers: the GPUs, the mean completion against the product target, and what the p95 completion pays."""
    w = split.simulated.workload
    head = f"{fmt.ms(w.ttft_s)} to the first token leaves {fmt.ms(w.tpot_s)} a token"
    if not split.feasible:
        return head + f", and the serving model finds no fleet: {design_answer.why_none(split)}"

    def completion_s(a: Answer, tokens: int) -> float:  # on the answer's own p95s
        return f.end_to_end_s(net_s, a.ttft_p95_s, tokens, a.tpot_p95_s)

    c = Change(base, split)
    mean_s = completion_s(split, n)
    out = (f"{head}: {delta_words(c)}, the mean completion in "
           f"{fmt.ms(mean_s)} ({'within' if mean_s <= total_s else 'over'} the {fmt.ms(total_s)}) and the "
           f"{n95}-token one in {fmt.ms(completion_s(split, n95))}, against {fmt.ms(completion_s(base, n95))}")
    if c.extra_gpus < 0 and completion_s(split, n95) > completion_s(base, n95):
        return out + ": cost traded against the long completions, the first lever if cost binds"
    return out


def product_target_words(total_p95_s: float, mean_tokens: int, mean_s: float, p95_tokens: int, p95_s: float) -> str:
    """The summary's row for the one product target, end to end at p95: on the answer's p95s, the mean
    completion's time and the p95 completion's, each against it (the SLOs are derived for the mean)."""
    def against(seconds: float) -> str:
        gap = seconds - total_p95_s
        return "within it" if gap <= 0 else f"{fmt.ms(gap)} over"

    return (f"p95 end to end {fmt.ms(total_p95_s)}: on the answer's p95s the mean completion "
            f"({fmt.tokens(mean_tokens)}) takes {fmt.ms(mean_s)}, {against(mean_s)}; the p95 completion "
            f"({fmt.tokens(p95_tokens)}) takes {fmt.ms(p95_s)}, {against(p95_s)} (critique 1)")


def model() -> SimpleNamespace:
    d = design.model(SLUG)
    w, variants, raw = check_file(design.DESIGNS_DIR / f"{SLUG}.toml")
    i = SimpleNamespace(**{k: v for k, v in raw.items() if k != "variants"})
    p = d.plan
    t = derive({**raw, "ttft_s": w.ttft_s})

    # the budget, and what the plan delivers inside it. The mean completion's latency at the planned prefill
    # (no queueing) sets how many requests a later keystroke cancels; every check against the p95 budget
    # spends the budget's own TTFT allowance (queue wait included), as the budget's equation does.
    n, n95, net, ttft = i.completion_tokens, i.completion_tokens_p95, i.network_p95_s, w.ttft_s
    mean_total = f.end_to_end_s(net, p.planned_prefill_s, n, p.planned_step_s)
    p95_plain = f.end_to_end_s(net, ttft, n95, p.planned_step_s)

    # speculative decoding on the replica at its SLO batch: verification's cost and the tokens it yields
    spec = speculation(p.at_slo, i.draft_tokens)
    per_step = f.speculative_tokens_per_step(i.acceptance, i.draft_tokens)
    per_step_novel = f.speculative_tokens_per_step(i.acceptance_novel, i.draft_tokens)
    verify_s = p.planned_step_s * spec["spec_verify_step_ratio"]
    per_token_spec = verify_s / per_step
    per_token_novel = verify_s / per_step_novel
    p95_spec = f.end_to_end_s(net, ttft, n95, per_token_spec)
    p95_novel = f.end_to_end_s(net, ttft, n95, per_token_novel)
    mean_novel = f.end_to_end_s(net, ttft, n, per_token_novel)
    # the TTFT allowance that would let speculation alone meet the budget: what the later tokens leave
    spec_ttft_room = i.total_p95_s - net - (n95 - 1) * per_token_spec
    # the revision: the p95-sized replicas, with speculation on them as margin
    wide = d.variants["p95-output"]
    wide_verify_s = wide.planned_step_s * speculation(wide.at_slo, i.draft_tokens)["spec_verify_step_ratio"]
    p95_wide_spec = f.end_to_end_s(net, ttft, n95, wide_verify_s / per_step)
    p95_wide_novel = f.end_to_end_s(net, ttft, n95, wide_verify_s / per_step_novel)

    # work spent on requests a later keystroke cancels: all their prefill, a share of their decode
    decode_replicas = d.decode_replicas
    cancelled_decode_tokens = t.cancelled_share * i.cancel_done_share * n
    wasted_replicas = (t.cancelled_share * d.prefill_replicas
                       + decode_replicas * cancelled_decode_tokens / w.output_tokens)
    wasted_share = wasted_replicas / p.replica_seconds_per_s

    # the debounce, priced: no debounce (the variant) and the short one eager cancellation allows
    a = d.answer
    no_debounce = d.answers["no-debounce"]
    eager_share = f.debounce_sent_share(i.eager_debounce_s, i.mean_keystroke_gap_s)
    where = d.file
    eager = serving_answer(require(plan(dataclasses.replace(w, peak_requests_per_s=t.triggers_per_s * eager_share)),
                                   f"{where} (the eager debounce, {i.eager_debounce_s:g} s)"))
    # the p95 revision on the serving model: one request alone on the wider replica, its time per token
    wide_answer = d.answers["p95-output"]
    alone = wide_answer.simulated.evidence

    shape_answers = {1: d.answers["tp1"], p.gpus_per_replica: a, 4: d.answers["tp4"], 8: d.answers["tp8"]}
    shape_table, shapes = _shapes(w, shape_answers)
    feasible = [s for s in shapes.values() if isinstance(s, Plan)]
    best = require(cheapest(w, SHAPES[-1]), f"{where} (the cheapest replica of up to {SHAPES[-1]} GPUs)")

    # the prefix cache's room: the KV budget the SLO batch leaves, in whole prompts
    kv_per_token = p.kv_bytes_per_token
    spare_kv = p.spare_kv_bytes
    return SimpleNamespace(
        d=d, p=p, w=w, i=i, t=t, variants=d.variants,
        # the summary, with the product target the SLOs are derived from, on the answer's p95s (a sum of p95s:
        # section 2's approximation)
        summary=d.summarise(extra=(("The product's target", product_target_words(
            i.total_p95_s, n, f.end_to_end_s(net, d.answer.ttft_p95_s, n, d.answer.tpot_p95_s),
            n95, f.end_to_end_s(net, d.answer.ttft_p95_s, n95, d.answer.tpot_p95_s))),)),
        extra_gpus={name: c.extra_gpus for name, c in d.answer_changes.items() if c.after.feasible},
        extra_cost_per_day={name: c.extra_cost_per_day for name, c in d.answer_changes.items() if c.after.feasible},
        # traffic
        suppressed_share=1 - t.sent_share, wasted_requests_per_s=t.sent_per_s * t.cancelled_share,
        completed_share=1 - t.cancelled_share, cancelled_headline=cancelled_headline(t.cancelled_share),
        # budget
        budget_decode_s=(n - 1) * w.tpot_s, mean_total_s=mean_total, p95_plain_s=p95_plain,
        p95_over_budget_s=p95_plain - i.total_p95_s,
        # speculation
        spec_tokens_per_step=per_step, spec_tokens_per_step_novel=per_step_novel,
        spec_verify_ratio=spec["spec_verify_step_ratio"], spec_break_even=spec["spec_break_even"],
        spec_never_compute_bound=spec["spec_break_even"] == float("inf"),
        spec_idle=spec["spec_idle"], spec_verify_idle=spec["spec_verify_idle"],
        verify_words=verify_words(spec["spec_verify_step_ratio"]),
        per_token_spec_s=per_token_spec, per_token_novel_s=per_token_novel,
        p95_spec_s=p95_spec, p95_novel_s=p95_novel, mean_novel_s=mean_novel,
        p95_spec_over_s=p95_spec - i.total_p95_s, spec_ttft_room_s=spec_ttft_room,
        p95_wide_spec_s=p95_wide_spec, p95_wide_novel_s=p95_wide_novel,
        # cancellation's waste: a share of the napkin's replica time (first order: the work), and that share of
        # the answer's fleet (the failure-modes page prices it so)
        wasted_replica_share=wasted_share, wasted_gpus=wasted_share * a.gpus,
        wasted_cost_per_day=wasted_share * a.cost_per_day,
        # unit costs
        cost_per_thousand_completions=_money(a, t.completed_per_s, 1e3),
        # the debounce, priced on the serving model's answers
        no_debounce=no_debounce, debounce_gpus=d.answer_changes["no-debounce"].extra_gpus,
        debounce_words=change_words(d.answer_changes["no-debounce"]),
        debounce_saved_share=d.answer_changes["no-debounce"].extra_gpus / no_debounce.gpus,
        eager=eager, eager_sent_share=eager_share, eager_gpus=Change(a, eager).extra_gpus,
        eager_words=_more_or_fewer(Change(a, eager).extra_gpus, "GPUs"),
        eager_saved_s=i.debounce_s - i.eager_debounce_s,
        # the answer's own run, and the revisions the napkin and the serving model price differently
        busy_words=busy_words(a, p),
        cancel_lost_words=cancel_lost_words(a, d.answers["cancel-lost"], d.changes["cancel-lost"]),
        # shapes
        shape_table=shape_table, shapes=shapes, cheapest=best, one_gpu=one_gpu_words(w, shapes[1], feasible),
        serving_shape_words=serving_shape_words(shape_answers, p.gpus_per_replica),
        one_gpu_serving_words=one_gpu_serving_words(shape_answers[1], a),
        p95_replica=plan_report.replica(d.variants["p95-output"]),
        p95_change=change_words(d.answer_changes["p95-output"]),
        no_affinity_words=change_words(d.answer_changes["no-affinity"]),
        gpu_ratio={name: c.gpu_ratio for name, c in d.answer_changes.items() if c.after.feasible},
        p95_feasible=wide_answer.feasible,
        p95_alone_tpot_s=None if alone is None else alone.stats["tpot_s"]["mean"],
        p95_alone_total_s=None if alone is None else f.end_to_end_s(net, ttft, n95, alone.stats["tpot_s"]["mean"]),
        allreduce_share=(p.at_slo.tp_allreduce_s or 0.0) / p.planned_step_s,
        cheapest_allreduce_share=(best.at_slo.tp_allreduce_s or 0.0) / best.planned_step_s,
        cheapest_saving_share=(p.gpus - best.gpus) / p.gpus,
        # the prefix cache
        kv_per_token=kv_per_token, spare_kv_bytes=spare_kv, kv_used_share=p.slo_batch / p.max_batch,
        step_bytes_words=step_bytes_words(p.at_slo.weight_bytes_read, p.at_slo.kv_bytes_total),
        split_words=split_words(a, d.answers["ttft-50"], i.network_p95_s, i.completion_tokens,
                                i.completion_tokens_p95, i.total_p95_s),
        cached_prompts_per_replica=spare_kv / (w.prompt_tokens * kv_per_token),
        # a replica of the answer's fleet: the one that runs
        developers_per_replica=i.developers_at_peak / a.replicas,
        prefill_tokens_per_s=p.peak_requests_per_s * p.uncached_prompt_tokens,
        no_affinity_prefill_tokens_per_s=p.peak_requests_per_s * w.prompt_tokens,
    )
