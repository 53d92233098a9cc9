"""The worked designs' index (docs/designs/index.md): the eight fleets side by side, computed from their
workload files, what generalises across them in numbers (the prefix cache's worth, prefill's share of GPU
time, the cost per million output tokens, what binds), and the defect taxonomy counted from the critiques'
tags."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from types import SimpleNamespace

from ...engine.fleet.plan_levers import fleet_ratio, without_prefix_cache
from ...engine.fleet.planner import Plan
from ...engine.lookup import get_model
from ...text import fmt
from ..markdown import table
from . import design


def _fleet_row(slug: str) -> list[str]:
    d = design.model(slug, infeasible_ok=True)
    if not d.feasible:
        return [f"[{d.title}]({slug}.md)", f"{get_model(d.workload.model).name}, {d.workload.weights.upper()}",
                f"none: {d.reason}", "—", "—"]
    p, s = d.plan, d.plan.at_slo
    cost = "—" if p.cost_per_day is None else fmt.usd(p.cost_per_day)
    return [f"[{d.title}]({slug}.md)", f"{s.model_spec.name}, {p.weights_dtype.upper()}",
            f"{fmt.count(p.gpus)} × {s.gpu_spec.name} ({p.gpus_per_replica} per replica, {p.layout})", cost,
            d.binding]


def _levers(slug: str) -> SimpleNamespace | None:
    """The design's plan and the same workload without its prefix cache; None when the planner finds no fleet
    for the design, or for it without the cache."""
    d = design.model(slug, infeasible_ok=True)
    if not d.feasible:
        return None
    cold = without_prefix_cache(d.workload)
    return SimpleNamespace(d=d, p=d.plan, cold=cold if isinstance(cold, Plan) else None)


def _general_row(slug: str, lv: SimpleNamespace | None) -> list[str]:
    title = f"[{design.meta(slug).title}]({slug}.md)"
    if lv is None:
        return [title, "—", "—", "—", "—", "—", "no fleet on this data"]
    p = lv.p
    if p.prefix_hit_rate == 0:
        worth = "no prefix cache planned"
    elif lv.cold is None:
        worth = "no fleet without it"
    else:
        worth = f"{fmt.count(lv.cold.gpus)} GPUs, {fmt.times(fleet_ratio(p, lv.cold))}"
    cost = "—" if p.cost_per_million_output_tokens is None else fmt.usd(p.cost_per_million_output_tokens)
    return [title, fmt.pct(p.prefix_hit_rate), fmt.count(p.gpus), worth, fmt.pct(p.prefill_share), cost,
            design.binding(p)]


def _span(values: list[float], show: Callable[[float], str]) -> str:
    return show(min(values)) if min(values) == max(values) else f"{show(min(values))} to {show(max(values))}"


def generalises(slugs: list[str]) -> SimpleNamespace:
    """The cross-design table and the ranges its sentences quote, from the eight plans."""
    levers = {slug: _levers(slug) for slug in slugs}
    planned = [lv for lv in levers.values() if lv is not None]
    cached = [lv for lv in planned if lv.p.prefix_hit_rate > 0 and lv.cold is not None]
    tpot = sum(lv.p.binding == "tpot" for lv in planned)
    kv = sum(lv.p.binding == "kv" for lv in planned)
    header = ["Design", "Prefix hit", "Fleet at peak (GPUs)", "Without the prefix cache",
              "Prefill's share of GPU time", "Per million output tokens", "What caps the batch"]
    return SimpleNamespace(
        table=table(header, [_general_row(slug, lv) for slug, lv in levers.items()], align="lrrrrrl"),
        cache_worth=_span([fleet_ratio(lv.p, lv.cold) for lv in cached], fmt.times),
        cached_designs=len(cached),
        prefill_share=_span([lv.p.prefill_share for lv in planned], fmt.pct),
        decode_share=_span([1 - lv.p.prefill_share for lv in planned], fmt.pct),
        planned_designs=len(planned),
        tpot_binds=tpot,
        kv_binds=kv, binds_words=("the time-per-token target, not memory, caps the batch in most plans"
                                  if tpot > kv else "memory caps the batch in as many plans as the time-per-token "
                                  "target, or more"),
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
        fleets=table(["Design", "Model", "Fleet at peak", "Cost per day", "What caps the batch"],
                     [_fleet_row(slug) for slug in slugs], align="lllrl"),
        taxonomy=table(["Defect class", "Critiques", "Where"], taxonomy_rows, align="lrl"),
        counts=counts, general=generalises(slugs),
    )
