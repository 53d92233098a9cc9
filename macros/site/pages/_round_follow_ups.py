"""The mock round's pool of follow-ups (data/practice/follow_ups.toml), read and checked: general
questions and interruptions every round shares, and each worked design's own entries (its critiques
asked of the reader's design). A bad entry is one FollowUpError line naming the file, the entry and what
is wrong. mock_round.py fills in each answer's {figures} from the round's page model and exports the
pool; the browser draws from it (docs/assets/javascripts/practice/draw.js).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ...engine.lookup import InputError
from ...engine.specs import DATA_DIR, display_path, read_toml
from . import design

PATH = DATA_DIR / "practice" / "follow_ups.toml"
QUESTION, INTERRUPTION = "question", "interruption"  # a follow-up's kind: asked about the design, or changing it
SHARED = {"general": QUESTION, "interruptions": INTERRUPTION}  # the file's shared arrays and their entries' kind
KEYS = {"id", "question", "answer", "critique", "section"}
# The figures an answer may name, each filled in by _round_figures.figures from the round's page model.
FIGURES = ("model", "gpu", "replica", "answer_replica", "fleet", "gpus", "napkin_gpus", "gpus_doubled",
           "gpus_after_cut", "kv_per_token", "kv_per_seq", "kv_budget", "weights", "max_batch", "slo_batch",
           "binding", "prefill", "ttft_p95", "ttft_target", "tpot_target", "cost_per_day", "cost_per_million",
           "price", "headroom", "efficiency", "hit_rate", "node_gpus", "node_share", "bigger_model", "long_context")
ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class FollowUpError(InputError):
    """A malformed follow_ups.toml: one line naming the file, the entry and what is wrong."""


@dataclass(frozen=True)
class FollowUp:
    id: str
    kind: str  # QUESTION or INTERRUPTION
    question: str
    answer: str | None  # a short model answer with its {figures} unfilled, or None where a section answers it
    critique: int | None  # a design's critique this rewords: the page's revision of that number answers it
    section: str | None  # an anchor on the design's page that answers it


@dataclass(frozen=True)
class Pool:
    general: tuple[FollowUp, ...]
    interruptions: tuple[FollowUp, ...]
    designs: dict[str, tuple[FollowUp, ...]]  # slug -> its own entries


def figures_named(text: str, fail: Any) -> list[str]:
    """The {names} in `text`, in order; a brace that is not a plain {name} fails."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        fail(f"a brace that names no figure ({exc})")
    names = []
    for _, name, spec, conv in parsed:
        if name is None:
            continue
        if spec or conv or not name.isidentifier():
            written = name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
            fail(f"{{{written}}} must be a plain {{name}}, a figure's name with no format")
        names.append(name)
    return names


def _entry(raw: Any, kind: str, where: str, for_design: bool, critiques: int) -> FollowUp:
    def fail(problem: str) -> None:
        raise FollowUpError(f"{where}: {problem}")

    if not isinstance(raw, dict):
        fail(f"must be a table, got {raw!r}")
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        fail(f"unknown key {unknown[0]} (known: {', '.join(sorted(KEYS))})")
    if not isinstance(raw.get("id"), str) or not ID.fullmatch(raw["id"]):
        fail(f"id must be lower-case words joined by hyphens, got {raw.get('id')!r}")
    question = raw.get("question")
    if not isinstance(question, str) or not question.strip():
        fail("question is missing or empty")
    if not question.rstrip().endswith("?"):
        fail("question must end with a question mark: it is asked of the reader")
    if "{" in question or "}" in question:
        fail("question must name no figure: the figures go in the answer")
    answer, critique, section = raw.get("answer"), raw.get("critique"), raw.get("section")
    if answer is not None:
        if not isinstance(answer, str) or not answer.strip():
            fail("answer must be a non-empty string")
        unknown_figures = [name for name in figures_named(answer, fail) if name not in FIGURES]
        if unknown_figures:
            fail(f"answer names an unknown figure {{{unknown_figures[0]}}} (known: {', '.join(FIGURES)})")
    if not for_design:
        if critique is not None or section is not None:
            fail("critique and section belong to a design's entries: a shared follow-up needs its own answer")
        if answer is None:
            fail("answer is missing: a shared follow-up needs a short model answer")
    else:
        if critique is not None and (isinstance(critique, bool) or critique not in range(1, critiques + 1)):
            fail(f"critique must be a critique's number, 1 to {critiques}, got {critique!r}")
        if section is not None and (not isinstance(section, str) or not re.fullmatch(r"#[\w-]+", section)):
            fail(f"section must be an anchor on the page such as \"#revision-2\", got {section!r}")
        if answer is None and critique is None and section is None:
            fail("needs an answer, the critique it rewords or the section that answers it")
    return FollowUp(raw["id"], kind, question.strip(), answer, critique, section)


def read_pool(path: Path = PATH, slugs: Sequence[str] | None = None, critiques: int = design.CRITIQUES) -> Pool:
    """The pool at `path`, every entry checked; `slugs` the worked designs an entry may belong to."""
    file = display_path(path)
    raw = read_toml(path, FollowUpError)
    known = list(design.slugs() if slugs is None else slugs)
    unknown = sorted(set(raw) - {*SHARED, "designs"})
    if unknown:
        raise FollowUpError(f"{file}: unknown table {unknown[0]} (known: general, interruptions, designs)")
    seen: dict[str, str] = {}

    def entries(items: Any, table: str, kind: str, for_design: bool) -> tuple[FollowUp, ...]:
        if not isinstance(items, list) or not items:
            raise FollowUpError(f"{file}: [[{table}]] must list at least one entry")
        out = []
        for n, item in enumerate(items, 1):
            name = item.get("id") if isinstance(item, dict) else None
            where = f"{file}: [[{table}]] entry {n}" + (f" ({name})" if isinstance(name, str) else "")
            entry = _entry(item, kind, where, for_design, critiques)
            if entry.id in seen:
                raise FollowUpError(f"{where}: id {entry.id} is already used by [[{seen[entry.id]}]]")
            seen[entry.id] = table
            out.append(entry)
        return tuple(out)

    general, interruptions = (entries(raw.get(t), t, kind, False) for t, kind in SHARED.items())
    designs = raw.get("designs", {})
    if not isinstance(designs, dict):
        raise FollowUpError(f"{file}: designs must be tables of entries, [[designs.<slug>]]")
    for slug in designs:
        if slug not in known:
            raise FollowUpError(f"{file}: [[designs.{slug}]]: no worked design {slug} (known: {', '.join(known)})")
    return Pool(general, interruptions,
                {slug: entries(items, f"designs.{slug}", QUESTION, True) for slug, items in designs.items()})


@cache
def pool() -> Pool:
    """The project's pool (data/practice/follow_ups.toml), read once per build."""
    return read_pool()
