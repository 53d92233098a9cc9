"""The mock round in the browser, for chapter 7 and each worked design: the round's content as JSON,
exported at build time from the data the pages print (a design's [design] table, chapter 7's
data/practice/chapter7.toml, the rubric's data/practice/rubric.toml), and embedded in the page for
docs/assets/javascripts/practice/round.js to run. Nothing is typed twice: the page and the round read
the same prompt, time plan, follow-ups and rubric.

A page writes `{{ page_models.mock_round('consumer-chat').html }}` (or 'design-chatgpt' for chapter 7).
The follow-ups arrive at the time plan's checkpoints (the minutes where one item ends and the next
begins): the last n checkpoints for n follow-ups, or several to a checkpoint when there are fewer.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from ...engine.problems.rubric import Rubric, rubric
from . import design, design_chatgpt

CHAPTER = "design-chatgpt"  # chapter 7's round; every other slug is a worked design's
ROUND_MINUTES = design.ROUND_MINUTES
STORAGE_PREFIX = "ifg-practice"  # localStorage keys: <prefix>:round:<slug> and <prefix>:rounds:<slug>


def checkpoints(minutes: list[int]) -> list[int]:
    """The minutes at which one time-plan item ends and the next begins (the round's end excluded)."""
    out, at = [], 0
    for m in minutes[:-1]:
        at += m
        out.append(at)
    return out


def due_minutes(marks: list[int], n: int) -> list[int]:
    """The checkpoint at which each of n follow-ups falls due: the last n marks when there are enough,
    otherwise the marks shared out in order (mark i * len(marks) // n for follow-up i)."""
    if not marks:
        return [0] * n
    if len(marks) >= n:
        return marks[len(marks) - n:]
    return [marks[i * len(marks) // n] for i in range(n)]


def rubric_json(r: Rubric) -> dict[str, Any]:
    """The rubric's words and its hire-bar rules, with dimensions and levels as indices (rubric.js)."""
    def term(t: Any) -> dict[str, Any]:
        return {"dims": list(t.dims), "level": t.level, "below": t.below, "min": t.low, "max": t.high}

    return {
        "levels": list(r.levels),
        "dimensions": [{"key": d.key, "title": d.title, "words": list(d.words)} for d in r.dimensions],
        "verdicts": [{"key": v.key, "title": v.title, "pattern": v.pattern,
                      "when": [[term(t) for t in clause] for clause in v.when]} for v in r.verdicts],
    }


def _design_round(slug: str) -> dict[str, Any]:
    m = design.meta(slug)
    plan_items = [{"minutes": item["minutes"], "what": item["what"]} for item in m.time_plan]
    follow_ups = [{"question": c.critique, "answer": c.revision, "href": f"#revision-{c.number}"}
                  for c in m.critiques]
    return {"title": m.title, "prompt": m.prompt, "plan": plan_items, "follow_ups": follow_ups,
            "fold": "details.design-answer", "worked_href": "#1-clarifying-questions-and-scope",
            "critiques_href": "#critique-1"}


def _chapter_round() -> dict[str, Any]:
    q = design_chatgpt.model()
    data = design_chatgpt.ROUND_DATA
    plan_items = [{"minutes": beat["minutes"], "what": beat["what"]} for beat in data["beats"]]
    answers = "#74-the-follow-ups-with-answers"
    follow_ups = [{"question": text, "answer": "§7.4 The follow-ups, with answers", "href": answers}
                  for text in q.follow_ups]
    return {"title": "7. Design ChatGPT", "prompt": q.round_prompt, "plan": plan_items, "follow_ups": follow_ups,
            "fold": None, "worked_href": "#72-altitude-1-the-abstracted-answer", "critiques_href": answers}


def round_data(slug: str) -> dict[str, Any]:
    """Everything the browser needs to run the round for `slug`, as JSON-ready values (minutes in s)."""
    out = _chapter_round() if slug == CHAPTER else _design_round(slug)
    minutes = [item["minutes"] for item in out["plan"]]
    marks = checkpoints(minutes)
    for item, due in zip(out["follow_ups"], due_minutes(marks, len(out["follow_ups"]))):
        item["due_s"] = due * 60
    return {"slug": slug, "round_s": sum(minutes) * 60, "checkpoints_s": [m * 60 for m in marks],
            "storage": f"{STORAGE_PREFIX}:round:{slug}", "history": f"{STORAGE_PREFIX}:rounds:{slug}",
            **out, "rubric": rubric_json(rubric())}


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no "<", ">" or "&" that HTML could read as markup."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def model(slug: str) -> SimpleNamespace:
    data = round_data(slug)
    html = (f'<div class="mock-round" data-round="{slug}">\n'
            f'<script type="application/json" class="mock-round__data">{script_json(data)}</script>\n'
            '<p class="mock-round__fallback">The mock round runs in the browser with JavaScript on: a '
            f"{data['round_s'] // 60}-minute clock, your notes, the follow-ups one at a time, and a score.</p>\n"
            "</div>")
    return SimpleNamespace(data=data, html=html)


def all_rounds() -> dict[str, dict[str, Any]]:
    """Every round, chapter 7's first: practice/rounds.json in the built site."""
    return {slug: round_data(slug) for slug in [CHAPTER, *design.slugs()]}
