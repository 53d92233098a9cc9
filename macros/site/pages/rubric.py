"""docs/practice/rubric.md: the rubric's dimensions and hire-bar table from data/practice/rubric.toml
(the mock round scores against the same file), how many of all the combinations of levels each verdict
covers, and four scored answers to the consumer-chat prompt, one per verdict, with the figures they quote:
the strong ones the design's plan (the strong one also the same replica on another GPU), the weak one its
classic mistake (one GPU's bandwidth for a replica).

Each answer is written on the page inside `{% call q.answer(key) %}`: `answer` checks the text as the reader
will read it against the example's scores in the data (Rubric.check_example: its evidence is in the text,
and the text meets exactly the scored level's words) and prints it with its scores, what it lacks for the
next level, and its verdict with the reason the hire-bar table gives."""

from __future__ import annotations

import dataclasses
import itertools
from types import SimpleNamespace
from typing import Any

from ...engine.fleet.planner import planned_prefill_s
from ...engine.model.scenario import anchor, scenario
from ...engine.problems.rubric import Example, Rubric, Term, rubric
from ...engine.specs import catalog
from ..assumptions import assume, words_of
from ..markdown import listed, table
from . import design

EXAMPLE_DESIGN = "consumer-chat"  # every example answers this design's prompt
OTHER_GPU = "h200"  # the GPU the strong answer is asked to derive the replica again for
MEASURED_UTILISATION = "decode-bandwidth-utilisation"  # the claim the strong answer checks its efficiency against


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


def _title(r: Rubric, i: int) -> str:
    return r.dimensions[i].title[0].lower() + r.dimensions[i].title[1:]


def _said(r: Rubric, term: Term, score: tuple[int, ...]) -> tuple[bool, int, list[int], str]:
    """One term of a verdict's rule, said of this score: (whether it bounds dimensions below or at least its
    level, the level, the dimensions it names, the words)."""
    top = len(r.levels) - 1
    below = r.levels[0] if term.level == 1 else f"below {r.levels[term.level]}"
    at_least = r.levels[term.level] + ("" if term.level == top else " or better")
    counted = [i for i in term.dims if (score[i] < term.level) == term.below]
    if term.high == 0:  # none of its dimensions may be below (or at least) the level: all are the other side
        if len(term.dims) == len(r.dimensions):
            return not term.below, term.level, list(term.dims), f"nothing {below if term.below else at_least}"
        named = listed([_title(r, i) for i in term.dims])
        return not term.below, term.level, list(term.dims), f"{named} {at_least if term.below else below}"
    side = below if term.below else at_least
    if not counted:
        return term.below, term.level, counted, f"{side} on no dimension"
    only = "" if term.low >= 1 else "only "
    return term.below, term.level, counted, f"{side} on {only}{listed([_title(r, i) for i in counted])}"


def why(r: Rubric, score: tuple[int, ...]) -> str:
    """The reason the hire-bar table gives this score its verdict: the first clause of the verdict's rule it
    meets, each term said of the dimensions it counts ("Below bar on scoping and the numbers."); a term whose
    dimensions an earlier term already names on the same side of the same level says "among them"."""
    clause = r.verdict(score).clause_met(score) or ()
    parts: list[str] = []
    seen: list[tuple[bool, int, set[int]]] = []
    for term in clause:
        below, level, dims, words = _said(r, term, score)
        if len(term.dims) < len(r.dimensions) and dims and any(
                (b, lv) == (below, level) and set(dims) <= named for b, lv, named in seen):
            parts[-1] += f", {listed([_title(r, i) for i in dims])} among them"
            continue
        seen.append((below, level, set(dims)))
        parts.append(words)
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def _scored(r: Rubric, e: Example, text: str) -> str:
    """The answer's scores table (each dimension's level, its evidence, and the first need of the next level
    that the text never says), then its verdict and why. Three columns, so that it fits a phone's width."""
    rows = []
    for d in r.dimensions:
        level, evidence = e.scores[d.key]
        i = r.levels.index(level)
        lack = d.missing(i + 1, text) if i + 1 < len(r.levels) else None
        first = lack.words.split()[0] if lack else ""
        lacks = lack and (lack.words[0].lower() + lack.words[1:] if first == first.capitalize() else lack.words)
        rows.append([f"{d.title}: **{level}**", f"\u201c{evidence}\u201d",
                     f"{lacks} ({r.levels[i + 1]})" if lack else "(the top level)"])
    score = r.example_score(e)
    scores = table(["dimension: level", "the answer says", "what it lacks for the next level"], rows, align="lll")
    return f"{scores}\n\n**Verdict: {r.verdict(score).title}.** {why(r, score)}\n"


def answer(key: str, caller: Any) -> str:
    """`{% call q.answer(key) %}the answer's text{% endcall %}`: the text as a quotation, checked against the
    example's scores (a score its words do not give is one RubricError line naming the file, the example and
    the dimension), with its scores table and verdict."""
    r = rubric()
    e = r.example(key)
    body = caller().strip()
    read = words_of(body)  # the text as the reader reads it: tags (and a claim's tooltip) dropped
    r.check_example(e, read)
    quote = "\n".join(f"> {line}".rstrip() for line in body.splitlines())
    return f'<div class="rubric-answer" id="answer-{key}" markdown>\n\n{quote}\n\n</div>\n\n{_scored(r, e, read)}'


def model() -> SimpleNamespace:
    r = rubric()
    counts = coverage(r)
    total = len(r.levels) ** len(r.dimensions)
    hire_bar = table(["overall", "the pattern", "combinations"],
                     [[v.title, v.pattern, f"{counts[v.key]:,}"] for v in r.verdicts], align="llr")
    d = design.model(EXAMPLE_DESIGN)
    p = d.plan
    s = p.at_slo
    # The strong answer, asked about another GPU: the same replica, context and batch on it (scenario's
    # reserve_bytes is per GPU; the scenario's own is the replica's).
    other = scenario(s.model_spec.key, OTHER_GPU, gpus=s.gpus, seq_len=s.seq_len, batch=s.batch,
                     weights=s.weights_dtype, kv=s.kv_dtype, reserve_bytes=s.reserve_bytes / s.gpus, layout=s.layout)
    measured = catalog().claims[MEASURED_UTILISATION]
    # the strong answer's reason the other GPU's floor is lower: both steps bandwidth-bound, and it is lower
    faster = s.bound == other.bound == "memory" and other.decode_step_s < s.decode_step_s
    shown = [r.verdict(r.example_score(e)).key for e in r.examples]
    return SimpleNamespace(
        levels=r.levels, dimensions=[SimpleNamespace(title=dim.title, table=_dimension_table(r, i))
                                     for i, dim in enumerate(r.dimensions)],
        hire_bar=hire_bar, combinations=total, dimension_count=len(r.dimensions), level_count=len(r.levels),
        verdict_count=len(r.verdicts), answer=answer,
        verdict_of={e.key: r.verdict(r.example_score(e)).title for e in r.examples},  # for each answer's heading
        design=d, plan=p, s=s, other=other,
        price=catalog().prices[s.gpu],
        anchor=anchor(),  # the guide's anchor, whose max batch no criterion may name
        # the weak answer's mistake: the whole replica's weights over one GPU's bandwidth
        weak_step_s=s.weight_bytes / s.gpu_spec.bandwidth_bytes_per_s,
        # what it should have said: each GPU reads its share at once (the floor at batch one)
        batch_one_step_s=s.weight_bytes / (s.gpus * s.gpu_spec.bandwidth_bytes_per_s),
        bandwidth_ratio=other.gpu_spec.bandwidth_bytes_per_s / s.gpu_spec.bandwidth_bytes_per_s,
        # a dead replica's streams prefilled again elsewhere, their prefix cache gone with it
        re_prefill_s=s.batch * planned_prefill_s(dataclasses.replace(p.workload, prefix_hit_rate=0.0), s.gpus),
        faster_on_other=assume(faster, f"the step on {s.gpu_spec.name} is {s.bound}-bound ({s.decode_step_s:.4g} s), "
                               f"on {other.gpu_spec.name} {other.bound}-bound ({other.decode_step_s:.4g} s)",
                               "the other GPU's floor is no longer lower for its bandwidth: say what limits it"),
        one_per_verdict=assume(shown == [v.key for v in reversed(r.verdicts)], f"the answers' verdicts in order: "
                               f"{', '.join(shown)}", "the answers no longer give each verdict once, lowest first"),
        efficiency_below_measured=assume(p.efficiency <= measured.low, f"planned efficiency {p.efficiency:.0%}, "
                                         f"measured {measured.low:.0%}-{measured.high:.0%}",
                                         "the plan's efficiency is no longer below what measured systems reach"),
    )
