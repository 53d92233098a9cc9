"""The worked designs' index (docs/designs/index.md): the eight answers side by side (the serving model's fleets
at each design's targets), what generalises across them in numbers (the prefix cache's worth on the answers,
prefill's share of GPU time on the napkin, the cost per million output tokens, the target that sets each count),
and the defect taxonomy counted from the critiques' tags."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from types import SimpleNamespace

from ...engine.fleet.answer import answer
from ...engine.fleet.plan_levers import without_prefix_cache
from ...engine.fleet.planner import Plan
from ...engine.lookup import get_model
from ...text import fmt
from ..assumptions import assume
from ..markdown import table
from . import design, design_answer


def _fleet_row(slug: str) -> list[str]:
    d = design.model(slug, infeasible_ok=True)
    if not d.feasible or not d.answer.feasible:
        why = d.reason if not d.feasible else design_answer.why_none(d.answer)
        return [f"[{d.title}]({slug}.md)", f"{get_model(d.workload.model).name}, {d.workload.weights.upper()}",
                f"none: {why}", "—", "—"]
    a, s = d.answer, d.plan.at_slo
    cost = "—" if a.cost_per_day is None else fmt.usd(a.cost_per_day)
    return [f"[{d.title}]({slug}.md)", f"{s.model_spec.name}, {d.plan.weights_dtype.upper()}",
            f"{fmt.count(a.gpus)} × {s.gpu_spec.name} ({a.gpus_per_replica} per replica, {d.plan.layout})", cost,
            a.simulated.binding.words]


def _levers(slug: str) -> SimpleNamespace | None:
    """The design's answer and the answer for the same workload without its prefix cache; None when the serving
    model finds no fleet for the design (cold None when it finds none without the cache)."""
    d = design.model(slug, infeasible_ok=True)
    if not d.feasible or not d.answer.feasible:
        return None
    cold = without_prefix_cache(d.workload)
    cold_answer = answer(cold) if isinstance(cold, Plan) and d.workload.prefix_hit_rate > 0 else None
    return SimpleNamespace(d=d, p=d.plan, a=d.answer,
                           cold=cold_answer if cold_answer is not None and cold_answer.feasible else None)


def _general_row(slug: str, lv: SimpleNamespace | None) -> list[str]:
    title = f"[{design.meta(slug).title}]({slug}.md)"
    if lv is None:
        return [title, "—", "—", "—", "—", "—", "no fleet on this data"]
    p, a = lv.p, lv.a
    if p.prefix_hit_rate == 0:
        worth = "no prefix cache planned"
    elif lv.cold is None:
        worth = "no fleet without it"
    else:
        worth = f"{fmt.count(lv.cold.gpus)} GPUs, {fmt.times(lv.cold.gpus / a.gpus)}"
    cost = "—" if a.cost_per_million_output_tokens is None else fmt.usd(a.cost_per_million_output_tokens)
    return [title, fmt.pct(p.prefix_hit_rate), fmt.count(a.gpus), worth, fmt.pct(p.prefill_share), cost,
            a.simulated.binding.words]


def _span(values: list[float], show: Callable[[float], str]) -> str:
    return show(min(values)) if min(values) == max(values) else f"{show(min(values))} to {show(max(values))}"


def _counted(bindings: list[str]) -> str:
    """How many answers each target sets the count of, most first: "the p95 TPOT in 4, the p95 TTFT in 3"."""
    return ", ".join(f"the {words} in {n}" for words, n in Counter(bindings).most_common())


def generalises(slugs: list[str]) -> SimpleNamespace:
    """The cross-design table and the ranges its sentences quote, from the eight answers (prefill's share is the
    napkin's: the serving model does not split its steps' time that way)."""
    levers = {slug: _levers(slug) for slug in slugs}
    answered = [lv for lv in levers.values() if lv is not None]
    cached = [lv for lv in answered if lv.p.prefix_hit_rate > 0 and lv.cold is not None]
    binds = _counted([lv.a.simulated.binding.words for lv in answered])
    header = ["Design", "Prefix hit", "Fleet at peak (GPUs)", "Without the prefix cache",
              "Prefill's share of GPU time (napkin)", "Per million output tokens at peak", "What sets the count"]
    return SimpleNamespace(
        table=table(header, [_general_row(slug, lv) for slug, lv in levers.items()], align="lrrrrrl"),
        cache_worth=_span([lv.cold.gpus / lv.a.gpus for lv in cached], fmt.times),
        cached_designs=len(cached),
        prefill_share=_span([lv.p.prefill_share for lv in answered], fmt.pct),
        decode_share=_span([1 - lv.p.prefill_share for lv in answered], fmt.pct),
        planned_designs=len(answered),
        binds_words=binds,
        all_tail=assume(all(lv.a.simulated.binding.percentile is not None for lv in answered),
                        f"the targets that set the counts: {binds}", "say which count a mean target sets"),
    )


def model() -> SimpleNamespace:
    slugs = design.slugs()
    tags = [(slug, c) for slug in slugs for c in design.meta(slug).critiques]
    counts = Counter(c.defect for _, c in tags)
    taxonomy_rows = []
    for key, entry in design.defects().items():
        where = ", ".join(f"[{design.meta(slug).short} {c.number}]({slug}.md#critique-{c.number})"
                          for slug, c in tags if c.defect == key)
        taxonomy_rows.append([f"**{entry['title']}**: {entry['means']}", str(counts[key]), where or "—"])
    taxonomy_rows.append(["**All critiques**", str(len(tags)), ""])
    return SimpleNamespace(
        designs=len(slugs), critiques=len(tags),
        fleets=table(["Design", "Model", "Fleet at peak", "Cost per day", "What sets the count"],
                     [_fleet_row(slug) for slug in slugs], align="lllrl"),
        taxonomy=table(["Defect class", "Critiques", "Where"], taxonomy_rows, align="lrl"),
        counts=counts, general=generalises(slugs),
    )
