"""The mock round in the browser, for chapter 7 and each worked design: the round's content as JSON,
exported at build time from the data the pages print (a design's [design] table and plan, chapter 7's
data/practice/chapter7.toml and fleet, the rubric's data/practice/rubric.toml, the follow-ups' pool in
data/practice/follow_ups.toml), and embedded in the page for docs/assets/javascripts/practice/round.js
to run. Nothing is typed twice: the page and the round read the same prompt, time plan and rubric.

A page writes `{{ page_models.mock_round('consumer-chat').html }}` (or 'design-chatgpt' for chapter 7).

- The follow-ups: each round exports its pool (the shared general questions and interruptions, then
  the page's own: a design's critiques asked of the reader's design, chapter 7's follow-ups of §7.4),
  each answer's figures filled in from the page model. The browser draws FOLLOW_UPS_PER_ROUND of them
  with a seed it keeps (draw.js), one of them an interruption, due at the time plan's checkpoints (the
  minutes where one item ends and the next begins): the last n checkpoints for n follow-ups, or several
  to a checkpoint when there are fewer.
- The key numbers: what the reader enters (the KV cache per sequence, the max batch, the time to first
  token, the fleet, its cost), each with the page's value, the band it accepts and the derivation
  (_round_figures.py).
- What hides while the clock runs: `hide`, the selectors of the page's worked answers (a design's fold and
  its references, whose first paragraph states the design's KV cache and batch, wrapped in `.worked-answer`;
  chapter 7's sections 7.2 to 7.5, wrapped the same way, and its problems' answers).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from ...engine.problems.rubric import Rubric, rubric
from ...engine.specs import display_path
from . import design, design_chatgpt
from ._round_figures import figures, key_numbers
from ._round_follow_ups import INTERRUPTION, PATH, QUESTION, FollowUp, FollowUpError, pool

CHAPTER = "design-chatgpt"  # chapter 7's round; every other slug is a worked design's
ROUND_MINUTES = design.ROUND_MINUTES
STORAGE_PREFIX = "ifg-practice"  # localStorage keys: <prefix>:round:<slug> and <prefix>:rounds:<slug>
FOLLOW_UPS_PER_ROUND = 6  # drawn each round: five questions and one interruption
MIN_POOL = 12  # a round's pool at least: two rounds then rarely ask the same follow-ups
DESIGN_FOLD = "details.design-answer"  # a design's worked answer, critiques and revisions
WORKED = ".worked-answer"  # a page's other worked sections (a design's references, which state its figures)
CHAPTER_ANSWERS = (WORKED, "details.answer")  # chapter 7's sections 7.2 to 7.5, its problems' answers
CHAPTER_FOLLOW_UPS = "#74-the-follow-ups-with-answers"


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


def follow_up_json(f: FollowUp, figs: dict[str, str] | None, unfilled: str, revisions: dict[int, str]) -> dict:
    """One entry of a round's pool: its answer's figures filled in (`unfilled` where the page has none), a
    critique's answer the page's revision of it."""
    if f.critique is not None:
        answer, href = f"Revision {f.critique}: {revisions[f.critique]}", f"#revision-{f.critique}"
    else:
        answer, href = f.answer, f.section
        if answer is None:
            answer = "The worked answer's section on it"
        elif figs is not None:
            answer = answer.format(**figs)
        elif "{" in answer:
            answer = unfilled
    return {"id": f.id, "kind": f.kind, "question": f.question, "answer": " ".join(answer.split()), "href": href}


def shared_pool(figs: dict[str, str] | None, unfilled: str) -> list[dict[str, Any]]:
    """The general questions and interruptions every round draws from."""
    p = pool()
    return [follow_up_json(f, figs, unfilled, {}) for f in (*p.general, *p.interruptions)]


def _design_round(slug: str) -> dict[str, Any]:
    m = design.meta(slug)
    d = design.model(slug, infeasible_ok=True)
    figs = figures(d.plan, d.answer) if d.feasible else None
    unfilled = "" if d.feasible else d.infeasible_words
    revisions = {c.number: c.revision for c in m.critiques}
    own = [follow_up_json(f, figs, unfilled, revisions) for f in pool().designs.get(slug, ())]
    return {"title": m.title, "prompt": m.prompt,
            "plan": [{"minutes": item["minutes"], "what": item["what"]} for item in m.time_plan],
            "pool": shared_pool(figs, unfilled) + own,
            "numbers": key_numbers(d.plan, d.answer) if d.feasible else [],
            "hide": [DESIGN_FOLD, WORKED], "fold": DESIGN_FOLD,
            "worked_href": "#1-clarifying-questions-and-scope", "critiques_href": "#critique-1"}


def _chapter_round() -> dict[str, Any]:
    q = design_chatgpt.model()
    own = [{"id": f"chapter-7-{n}", "kind": QUESTION, "question": text,
            "answer": "§7.4 The follow-ups, with answers", "href": CHAPTER_FOLLOW_UPS}
           for n, text in enumerate(q.follow_ups, 1)]
    return {"title": "7. Design ChatGPT", "prompt": q.round_prompt,
            "plan": [{"minutes": beat["minutes"], "what": beat["what"]} for beat in design_chatgpt.ROUND_DATA["beats"]],
            "pool": shared_pool(figures(q.fleet, q.answer), "") + own,
            "numbers": key_numbers(q.fleet, q.answer),
            "hide": list(CHAPTER_ANSWERS), "fold": None,
            "worked_href": "#72-altitude-1-the-abstracted-answer", "critiques_href": CHAPTER_FOLLOW_UPS}


def check_pool(slug: str, entries: list[dict[str, Any]]) -> None:
    """A round must have enough to draw from: MIN_POOL entries, of them at least one interruption and enough
    questions for the rest of the draw."""
    questions = sum(1 for f in entries if f["kind"] == QUESTION)
    interruptions = sum(1 for f in entries if f["kind"] == INTERRUPTION)
    where = f"{display_path(PATH)}: the round of {slug}"
    if len(entries) < MIN_POOL:
        raise FollowUpError(f"{where} has {len(entries)} follow-ups to draw from; it needs at least {MIN_POOL}")
    if not interruptions or questions < FOLLOW_UPS_PER_ROUND - 1:
        raise FollowUpError(f"{where} needs at least one interruption and {FOLLOW_UPS_PER_ROUND - 1} questions, "
                            f"has {interruptions} and {questions}")


def round_data(slug: str) -> dict[str, Any]:
    """Everything the browser needs to run the round for `slug`, as JSON-ready values (minutes in s)."""
    out = _chapter_round() if slug == CHAPTER else _design_round(slug)
    check_pool(slug, out["pool"])
    marks = checkpoints([item["minutes"] for item in out["plan"]])
    due = [m * 60 for m in due_minutes(marks, FOLLOW_UPS_PER_ROUND)]
    return {"slug": slug, "round_s": sum(item["minutes"] for item in out["plan"]) * 60,
            "checkpoints_s": [m * 60 for m in marks], "due_s": due,
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
