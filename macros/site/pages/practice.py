"""docs/practice/problems.md: the generated practice problems, grouped by kind, each with its question,
its worked answer (indented for a `??? answer` block) and, for a simulated answer, the command that checks it."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.problems import KINDS, Problem, problems
from ...engine.specs import catalog
from .. import practice as text

INDENT = "    "


def _answer_block(p: Problem) -> str:
    """The body of the problem's collapsible answer: the result, each step, the check, the chapter."""
    title, link = text.teaches(p)
    lines = [f"**{text.answer_text(p)}**", ""]
    lines += [f"- {what}: {how}" for what, how in text.steps(p)]
    check = text.command(p)
    lines += ["", (f"Check it: `{check}` (`ttft_s.p95`). " if check else "") + f"See [{title}](../{link})."]
    return "\n".join(INDENT + line if line else "" for line in lines)


def _title(p: Problem) -> str:
    """What the numbers were drawn from, for the heading: "Llama 3.1 70B on H100", or the kind's own words."""
    model, gpu = catalog().models.get(p.source.get("model", "")), catalog().gpus.get(p.source.get("gpu", ""))
    if model and gpu:
        return f"{model.name} on {gpu.name}"
    if model or gpu:
        return (model or gpu).name
    return {"littles-law": "A service under load", "scaling": "An autoscaler's decision"}.get(p.kind, p.kind)


def _entry(number: int, p: Problem) -> SimpleNamespace:
    return SimpleNamespace(number=number, id=p.id, kind=p.kind, title=_title(p), question=text.question(p),
                           answer_md=_answer_block(p))


def model() -> SimpleNamespace:
    numbered = [_entry(i + 1, p) for i, p in enumerate(problems())]
    kinds = []
    for kind in KINDS:
        mine = [e for e in numbered if e.kind == kind.name]
        if mine:
            heading, chapter, link = text.KIND_INFO[kind.name]
            kinds.append(SimpleNamespace(kind=kind.name, heading=heading, chapter=chapter, link=link, problems=mine))
    return SimpleNamespace(problems=numbered, kinds=kinds, count=len(numbered))
