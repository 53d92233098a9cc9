"""docs/practice/rubric.md: the rubric's dimensions and hire-bar table from data/practice/rubric.toml
(the mock round scores against the same file), how many of all the combinations of levels each verdict
covers, and the two scored example answers to the consumer-chat prompt with the figures they quote:
the strong one the design's plan, the weak one its classic mistake (one GPU's bandwidth for a replica)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

from ...engine.model.scenario import anchor
from ...engine.problems.rubric import Example, Rubric, rubric
from ..markdown import table
from . import design

EXAMPLE_DESIGN = "consumer-chat"  # both example answers answer this design's prompt


def _dimension_table(r: Rubric, index: int) -> str:
    d = r.dimensions[index]
    return table(["level", "what it sounds like"], [[lv, w] for lv, w in zip(r.levels, d.words)], align="ll")


def coverage(r: Rubric) -> dict[str, int]:
    """How many of the len(levels) ** len(dimensions) combinations of levels meet each verdict."""
    counts = {v.key: 0 for v in r.verdicts}
    for score in itertools.product(range(len(r.levels)), repeat=len(r.dimensions)):
        counts[r.verdict(score).key] += 1
    return counts


def _example(r: Rubric, e: Example) -> SimpleNamespace:
    score = r.score_of({k: level for k, (level, _) in e.scores.items()})
    rows = [[d.title, e.scores[d.key][0], e.scores[d.key][1]] for d in r.dimensions]
    return SimpleNamespace(key=e.key, verdict=r.verdict(score).title,
                           table=table(["dimension", "level", "why"], rows, align="lll"))


def model() -> SimpleNamespace:
    r = rubric()
    counts = coverage(r)
    total = len(r.levels) ** len(r.dimensions)
    hire_bar = table(["overall", "the pattern", "combinations"],
                     [[v.title, v.pattern, f"{counts[v.key]:,}"] for v in r.verdicts], align="llr")
    d = design.model(EXAMPLE_DESIGN)
    p = d.plan
    s = p.at_slo
    examples = {e.key: _example(r, e) for e in r.examples}
    return SimpleNamespace(
        levels=r.levels, dimensions=[SimpleNamespace(title=dim.title, table=_dimension_table(r, i))
                                     for i, dim in enumerate(r.dimensions)],
        hire_bar=hire_bar, combinations=total, dimension_count=len(r.dimensions), level_count=len(r.levels),
        examples=examples, design=d, plan=p, s=s,
        anchor=anchor(),  # the guide's anchor, whose max batch no criterion may name
        # the weak answer's mistake: the whole replica's weights over one GPU's bandwidth
        weak_step_s=s.weight_bytes / s.gpu_spec.bandwidth_bytes_per_s,
    )
