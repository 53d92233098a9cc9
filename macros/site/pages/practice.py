"""docs/practice/problems.md: the generated practice problems, kind by kind, each with its question,
its worked answer (indented for a `??? answer` block) and the command that checks it."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.practice import KINDS, Problem, problems, settings
from .. import practice as text

INDENT = "    "


def _answer_block(p: Problem) -> str:
    """The body of the problem's collapsible answer: the result, each step, the check, the chapter."""
    title, link = text.KIND_INFO[p.kind][1:]
    lines = [f"**{text.answer_text(p)}**", ""]
    lines += [f"- {what}: {how}" for what, how in text.steps(p)]
    lines += ["", f"Check it: `{text.command(p)}` (`{p.json_key}`). See [{title}](../{link})."]
    return "\n".join(INDENT + line if line else "" for line in lines)


def _entry(number: int, p: Problem) -> SimpleNamespace:
    s = p.result
    if p.kind == "planner":
        title = f"{p.workload.name}: {s.at_slo.model_spec.name} on {s.at_slo.gpu_spec.name}"
    else:
        title = f"{s.model_spec.name} on {s.gpus} × {s.gpu_spec.name}"
    toml = text.workload_toml(p.inputs["workload"]) if "workload" in p.inputs else None
    return SimpleNamespace(number=number, id=p.id, kind=p.kind, title=title, question=text.question(p),
                           toml=toml, answer_md=_answer_block(p))


def model() -> SimpleNamespace:
    all_ = problems()
    numbered = [_entry(i + 1, p) for i, p in enumerate(all_)]
    kinds = []
    for kind in KINDS:
        mine = [e for e in numbered if e.kind == kind]
        if mine:
            heading, chapter, link = text.KIND_INFO[kind]
            kinds.append(SimpleNamespace(kind=kind, heading=heading, chapter=chapter, link=link, problems=mine))
    return SimpleNamespace(problems=numbered, kinds=kinds, count=len(numbered), seed=settings()["seed"],
                           data_file="macros/data/practice/problems.toml")
