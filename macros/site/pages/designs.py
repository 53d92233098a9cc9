"""The worked designs' index (docs/designs/index.md): the eight fleets side by side, computed from their
workload files, and the defect taxonomy counted from the critiques' tags."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

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
        counts=counts,
    )
