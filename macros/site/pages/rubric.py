"""docs/practice/rubric.md: the rubric's dimensions and hire-bar table from data/practice/rubric.toml
(the mock round scores against the same file), how many of all the combinations of levels each verdict
covers, and the two scored example answers to the consumer-chat prompt with the figures they quote:
the strong one the design's plan, the weak one its classic mistake (one GPU's bandwidth for a replica)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

from ...engine.model.scenario import anchor
from ...engine.problems.rubric import Example, Rubric, Term, rubric
from ..markdown import table
from . import design

EXAMPLE_DESIGN = "consumer-chat"  # both example answers answer this design's prompt


def _dimension_table(r: Rubric, index: int) -> str:
    d = r.dimensions[index]
    return table(["level", "what it sounds like"], [[lv, w] for lv, w in zip(r.levels, d.words)], align="ll")


def _holds(term: Term, scores: Any) -> Any:
    """Term.holds on every row of `scores` at once: the count of its dimensions below (or at least) its level
    lies in [low, high]."""
    n = ((scores[:, list(term.dims)] < term.level) == term.below).sum(axis=1)
    return (term.low <= n) & (n <= term.high)


def coverage(r: Rubric) -> dict[str, int]:
    """How many of the len(levels) ** len(dimensions) combinations of levels meet each verdict: each verdict's
    rule (Verdict.holds: any clause, all of its terms) worked out on every combination at once, and each
    combination checked to meet exactly one, as Rubric.verdict requires."""
    import numpy as np

    scores = np.array(list(itertools.product(range(len(r.levels)), repeat=len(r.dimensions))))
    meets = np.zeros((len(r.verdicts), len(scores)), dtype=bool)
    for row, v in zip(meets, r.verdicts):
        for clause in v.when:
            every = np.ones(len(scores), dtype=bool)
            for term in clause:
                every &= _holds(term, scores)
            row |= every
    if (bad := np.flatnonzero(meets.sum(axis=0) != 1)).size:
        r.verdict(tuple(int(x) for x in scores[bad[0]]))  # raises, naming the scores and the verdicts they meet
    return {v.key: int(n) for v, n in zip(r.verdicts, meets.sum(axis=1))}


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
