"""The self-assessment rubric (data/practice/rubric.toml): its dimensions and levels, the hire-bar
table as rules over the levels, and the verdict one set of scores gets. The browser's mock round
evaluates the same rules from the exported data (docs/assets/javascripts/practice/rubric.js).

A score is a tuple of level indices, one per dimension in the file's order (0 = the lowest level).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..lookup import InputError
from ..specs import DATA_DIR, display_path, read_toml

PATH = DATA_DIR / "practice" / "rubric.toml"


class RubricError(InputError):
    """A malformed rubric file: one line naming the file and the entry."""


@dataclass(frozen=True)
class Term:
    """Count the dimensions in `dims` whose level is below `level` (or at least `level`); the count
    must lie in [low, high]."""
    dims: tuple[int, ...]
    level: int
    below: bool
    low: int
    high: int

    def holds(self, score: tuple[int, ...]) -> bool:
        n = sum(1 for d in self.dims if (score[d] < self.level) == self.below)
        return self.low <= n <= self.high


@dataclass(frozen=True)
class Verdict:
    key: str
    title: str
    pattern: str  # the table's wording of `when`
    when: tuple[tuple[Term, ...], ...]  # any clause, all of its terms

    def holds(self, score: tuple[int, ...]) -> bool:
        return any(all(t.holds(score) for t in clause) for clause in self.when)


@dataclass(frozen=True)
class Dimension:
    key: str
    title: str
    words: tuple[str, ...]  # what each level sounds like, lowest first


@dataclass(frozen=True)
class Example:
    key: str
    design: str
    scores: dict[str, tuple[str, str]]  # dimension key -> (level, why)


@dataclass(frozen=True)
class Rubric:
    levels: tuple[str, ...]
    dimensions: tuple[Dimension, ...]
    verdicts: tuple[Verdict, ...]
    examples: tuple[Example, ...]
    raw: dict[str, Any]  # the file as read, for the browser's export

    def matching(self, score: tuple[int, ...]) -> list[Verdict]:
        """Every verdict whose rule the score meets (exactly one, for a well-formed table)."""
        return [v for v in self.verdicts if v.holds(score)]

    def verdict(self, score: tuple[int, ...]) -> Verdict:
        found = self.matching(score)
        if len(found) != 1:
            names = ", ".join(v.title for v in found) or "none"
            raise RubricError(f"{display_path(PATH)}: the scores {score} meet {names}, not exactly one verdict")
        return found[0]

    def score_of(self, levels: dict[str, str]) -> tuple[int, ...]:
        """Level names by dimension key -> the score tuple."""
        return tuple(self.levels.index(levels[d.key]) for d in self.dimensions)


def _term(raw: Any, where: str, levels: list[str], keys: list[str]) -> Term:
    if not isinstance(raw, dict) or ("below" in raw) == ("at_least" in raw):
        raise RubricError(f"{where}: a term needs exactly one of below or at_least")
    level = raw.get("below", raw.get("at_least"))
    if level not in levels:
        raise RubricError(f"{where}: unknown level {level!r} (known: {', '.join(levels)})")
    dims = raw.get("dims", keys)
    unknown = [d for d in dims if d not in keys]
    if unknown:
        raise RubricError(f"{where}: unknown dimension {unknown[0]!r} (known: {', '.join(keys)})")
    low, high = raw.get("min", 0), raw.get("max", len(dims))
    if not (isinstance(low, int) and isinstance(high, int) and 0 <= low <= high <= len(dims)):
        raise RubricError(f"{where}: min and max must be whole counts with 0 <= min <= max <= {len(dims)}")
    return Term(tuple(keys.index(d) for d in dims), levels.index(level), "below" in raw, low, high)


def _examples(raw: Any, where: str, levels: list[str], keys: list[str]) -> tuple[Example, ...]:
    out = []
    for entry in raw:
        here = f"{where}: [[examples]] {entry.get('key', '?')}"
        scores = entry.get("scores", {})
        if set(scores) != set(keys):
            raise RubricError(f"{here}: needs a score for every dimension ({', '.join(keys)})")
        for key, pair in scores.items():
            if not (isinstance(pair, list) and len(pair) == 2 and pair[0] in levels):
                raise RubricError(f"{here}: {key} must be [a level, why]")
        out.append(Example(entry["key"], entry["design"], {k: (v[0], v[1]) for k, v in scores.items()}))
    return tuple(out)


def read(path: Path = PATH) -> Rubric:
    where = display_path(path)
    raw = read_toml(path, RubricError)
    levels = raw.get("levels")
    if not isinstance(levels, list) or len(levels) < 2:
        raise RubricError(f"{where}: levels must list at least two levels, lowest first")
    dims = []
    for entry in raw.get("dimensions", []):
        if not {"key", "title", "words"} <= set(entry) or len(entry["words"]) != len(levels):
            raise RubricError(f"{where}: dimension {entry.get('key', '?')!r} needs a key, a title and "
                              f"{len(levels)} words, one per level")
        dims.append(Dimension(entry["key"], entry["title"], tuple(entry["words"])))
    keys = [d.key for d in dims]
    verdicts = []
    for entry in raw.get("verdicts", []):
        here = f"{where}: verdict {entry.get('key', '?')!r}"
        if not {"key", "title", "pattern", "when"} <= set(entry) or not entry["when"]:
            raise RubricError(f"{here} needs a key, a title, a pattern and at least one clause in when")
        when = tuple(tuple(_term(t, here, levels, keys) for t in clause) for clause in entry["when"])
        verdicts.append(Verdict(entry["key"], entry["title"], entry["pattern"], when))
    return Rubric(tuple(levels), tuple(dims), tuple(verdicts), _examples(raw.get("examples", []), where, levels, keys),
                  raw)


@cache
def rubric() -> Rubric:
    return read()
