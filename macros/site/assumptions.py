"""Sentences whose truth depends on the data: each is checked against the figures it rests on.

A page's prose makes qualitative claims about the data ("the same compute", "fits on one GPU",
"exactly the bandwidth ratio"). Where the words can follow the data, the page model generates
them (`phrase`). Where the argument itself rests on a fact, the page model declares that fact as
an `Assumption` beside the figures it uses, and the page wraps the sentence that relies on it:

    {% call assumed(q.same_compute) %}The H200 has the same compute as the H100{% endcall %}

When the data changes so that the assumption no longer holds, the build logs one line per
sentence at ERROR (shown under `mkdocs build -q`, and `--strict` then fails): the page, the
words, the figures that now contradict them and what to rewrite. `mkdocs serve` still renders
the page, with the sentence marked for the reader.
"""

from __future__ import annotations

import html
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

# Under "mkdocs." so that MkDocs counts these records: --strict aborts on them.
LOG = logging.getLogger("mkdocs.plugins.assumptions")
PREFIX = "broken assumption"  # every message starts with it: tests and writers grep for it


@dataclass(frozen=True)
class Assumption:
    """A fact about the data that some sentences rely on.

    holds: whether it is true for today's data; evidence: the figures it rests on, formatted
    ("H100 SXM 989.4 TFLOP/s, H200 SXM 989.4 TFLOP/s"); rewrite: what a writer changes when it
    breaks."""

    holds: bool
    evidence: str
    rewrite: str


def assume(holds: bool, evidence: str, rewrite: str) -> Assumption:
    return Assumption(bool(holds), evidence, rewrite)


def close(a: float, b: float, rel: float = 1e-6) -> bool:
    """Equal for a sentence's purposes: within `rel` of each other (specs are typed to 4-5 figures)."""
    return math.isclose(a, b, rel_tol=rel)


def same(what: str, a: tuple[str, float], b: tuple[str, float], show: Callable[[float], str], rewrite: str,
         rel: float = 1e-6) -> Assumption:
    """The assumption that two named figures are equal: `same("dense BF16", ("H100", 989e12), ...)`."""
    evidence = f"{what}: {a[0]} {show(a[1])}, {b[0]} {show(b[1])}"
    return assume(close(a[1], b[1], rel), evidence, rewrite)


def phrase(value: float, reference: float, equal: str, more: str, less: str, rel: float = 1e-6) -> str:
    """Words that follow a comparison: `equal` when value matches reference, else `more` or `less`.
    Each may hold {ratio}, the value over the reference ("2x the compute")."""
    words = equal if close(value, reference, rel) else more if value > reference else less
    return words.format(ratio=value / reference if reference else math.inf)


_TAG = re.compile(r"<[^>]+>")


def words_of(text: str) -> str:
    """The sentence as a writer would search for it: tags and Markdown emphasis dropped, one line."""
    plain = html.unescape(_TAG.sub("", text)).replace("*", "").replace("`", "")
    return " ".join(plain.split())


def message(page: str, words: str, a: Assumption) -> str:
    return (f"{PREFIX}: {page}: \u201c{words}\u201d: {a.evidence}. Rewrite: {a.rewrite}")


def check(a: Assumption, text: str, page: str) -> str:
    """The sentence `text` (already rendered) as it goes on the page: unchanged when `a` holds;
    otherwise reported on one line and marked for the reader."""
    if not isinstance(a, Assumption):
        raise TypeError(f"{page}: assumed() takes an Assumption from a page model, got {type(a).__name__}")
    if a.holds:
        return text
    LOG.error(message(page, words_of(text), a))
    title = html.escape(f"This sentence no longer matches the data: {a.evidence}", quote=True)
    return f'<mark class="broken-assumption" title="{title}">{text}</mark>'
