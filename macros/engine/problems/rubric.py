"""The self-assessment rubric (data/practice/rubric.toml): its dimensions and levels, the hire-bar
table as rules over the levels, the verdict one set of scores gets, and the example answers' scores
held to the rubric's words. The browser's mock round evaluates the same rules from the exported data
(docs/assets/javascripts/practice/rubric.js).

A score is a tuple of level indices, one per dimension in the file's order (0 = the lowest level).

Each level's words carry needs: a phrase of those words and what an answer says that shows it. An
answer's text meets a level when it shows every need of that level and of the levels between it and
the lowest (`Dimension.level_met`); the lowest level's needs are the behaviours its words name, which an
answer scored there must show. `Rubric.check_example` holds an example's scores to its text.
"""

from __future__ import annotations

import re
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

    def clause_met(self, score: tuple[int, ...]) -> tuple[Term, ...] | None:
        """The first clause the score meets (the reason it gets this verdict), or None."""
        return next((c for c in self.when if all(t.holds(score) for t in c)), None)


def _one_line(text: str) -> str:
    """Text on one line, its spaces single, its apostrophes straight: what a quotation of it is checked against."""
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").split())


def _plain(text: str) -> str:
    """Text as the needs are matched against it: one line, lower case."""
    return _one_line(text).lower()


@dataclass(frozen=True)
class Need:
    """What a level's words require (`words`, a phrase of them) and what an answer says that shows it (`says`,
    any one, lower case)."""
    words: str
    says: tuple[str, ...]

    def said_in(self, text: str) -> str | None:
        """The first of `says` that `text` says, at the start of a word and in any case, or None."""
        plain = _plain(text)
        return next((s for s in self.says if re.search(r"(?<!\w)" + re.escape(s), plain)), None)


@dataclass(frozen=True)
class Dimension:
    key: str
    title: str
    words: tuple[str, ...]  # what each level sounds like, lowest first
    needs: tuple[tuple[Need, ...], ...] = ()  # per level, lowest first: what its words require

    def level_met(self, text: str) -> int:
        """The highest level whose needs, and those of every level above the lowest below it, `text` shows."""
        met = 0
        for level in range(1, len(self.needs)):
            if self.missing(level, text) is not None:
                break
            met = level
        return met

    def missing(self, level: int, text: str) -> Need | None:
        """The first need of `level` that `text` does not show, or None when it shows them all."""
        return next((n for n in self.needs[level] if n.said_in(text) is None), None)


@dataclass(frozen=True)
class Example:
    key: str
    design: str
    verdict: str  # the verdict's key the scores must come to
    scores: dict[str, tuple[str, str]]  # dimension key -> (level, evidence: words the answer says)


@dataclass(frozen=True)
class Rubric:
    levels: tuple[str, ...]
    dimensions: tuple[Dimension, ...]
    verdicts: tuple[Verdict, ...]
    examples: tuple[Example, ...]
    raw: dict[str, Any]  # the file as read, for the browser's export
    where: str = display_path(PATH)  # the file, as its errors name it

    def matching(self, score: tuple[int, ...]) -> list[Verdict]:
        """Every verdict whose rule the score meets (exactly one, for a well-formed table)."""
        return [v for v in self.verdicts if v.holds(score)]

    def verdict(self, score: tuple[int, ...]) -> Verdict:
        found = self.matching(score)
        if len(found) != 1:
            names = ", ".join(v.title for v in found) or "none"
            raise RubricError(f"{self.where}: the scores {score} meet {names}, not exactly one verdict")
        return found[0]

    def score_of(self, levels: dict[str, str]) -> tuple[int, ...]:
        """Level names by dimension key -> the score tuple."""
        return tuple(self.levels.index(levels[d.key]) for d in self.dimensions)

    def example(self, key: str) -> Example:
        for e in self.examples:
            if e.key == key:
                return e
        raise RubricError(f"{self.where}: no [[examples]] {key!r} (known: {', '.join(e.key for e in self.examples)})")

    def example_score(self, e: Example) -> tuple[int, ...]:
        return self.score_of({k: level for k, (level, _) in e.scores.items()})

    def check_example(self, e: Example, text: str) -> None:
        """Raise a one-line RubricError unless, on every dimension, the example's evidence is in `text` (the
        answer as the reader reads it) and shows its level's needs, and `text` meets exactly its level."""
        here = f"{self.where}: [[examples]] {e.key}: {{}}"
        for d in self.dimensions:
            level_name, evidence = e.scores[d.key]
            level = self.levels.index(level_name)
            if _one_line(evidence) not in _one_line(text):
                raise RubricError(here.format(f"{d.key}: the evidence {evidence!r} is not in the answer"))
            if not any(n.said_in(evidence) for n in d.needs[level]):
                raise RubricError(here.format(f"{d.key}: the evidence {evidence!r} says none of what {level_name}'s "
                                              "words need"))
            met = d.level_met(text)
            if met < level:
                lack = next(n for lv in range(1, level + 1) if (n := d.missing(lv, text)) is not None)
                raise RubricError(here.format(f"{d.key} is scored {level_name}, but the answer meets "
                                              f"{self.levels[met]}: it never says {lack.words!r} "
                                              f"({' or '.join(map(repr, lack.says))})"))
            if met > level:
                raise RubricError(here.format(f"{d.key} is scored {level_name}, but the answer meets "
                                              f"{self.levels[met]}: it says what every need of "
                                              f"{self.levels[level + 1]} asks for"))


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


def _needs(raw: Any, where: str, levels: list[str], words: list[str]) -> tuple[tuple[Need, ...], ...]:
    if not isinstance(raw, dict) or set(raw) != set(levels):
        raise RubricError(f"{where}: needs must list what each level needs ({', '.join(levels)})")
    out = []
    for level, said in zip(levels, words):
        entries = raw[level]
        if not isinstance(entries, list) or not entries:
            raise RubricError(f"{where}: {level!r} needs at least one need")
        for n in entries:
            if not (isinstance(n, dict) and isinstance(n.get("words"), str) and isinstance(n.get("says"), list)
                    and n["says"] and all(isinstance(s, str) and s.strip() for s in n["says"])):
                raise RubricError(f"{where}: a need of {level!r} must be {{words = a phrase, says = [phrases]}}")
            if n["words"] not in said:
                raise RubricError(f"{where}: {level!r} needs {n['words']!r}, which is not a phrase of its words")
        out.append(tuple(Need(n["words"], tuple(s.lower() for s in n["says"])) for n in entries))
    return tuple(out)


def _examples(raw: Any, where: str, levels: list[str], keys: list[str]) -> tuple[Example, ...]:
    out = []
    for entry in raw:
        here = f"{where}: [[examples]] {entry.get('key', '?')}"
        if not {"key", "design", "verdict", "scores"} <= set(entry):
            raise RubricError(f"{here}: needs a key, a design, a verdict and scores")
        scores = entry["scores"]
        if set(scores) != set(keys):
            raise RubricError(f"{here}: needs a score for every dimension ({', '.join(keys)})")
        for key, pair in scores.items():
            if not (isinstance(pair, list) and len(pair) == 2 and pair[0] in levels
                    and isinstance(pair[1], str) and pair[1].strip()):
                raise RubricError(f"{here}: {key} must be [a level, the words of the answer that show it]")
        out.append(Example(entry["key"], entry["design"], entry["verdict"],
                           {k: (v[0], v[1]) for k, v in scores.items()}))
    return tuple(out)


def read(path: Path = PATH) -> Rubric:
    where = display_path(path)
    raw = read_toml(path, RubricError)
    levels = raw.get("levels")
    if not isinstance(levels, list) or len(levels) < 2:
        raise RubricError(f"{where}: levels must list at least two levels, lowest first")
    dims = []
    for entry in raw.get("dimensions", []):
        if not {"key", "title", "words", "needs"} <= set(entry) or len(entry["words"]) != len(levels):
            raise RubricError(f"{where}: dimension {entry.get('key', '?')!r} needs a key, a title, "
                              f"{len(levels)} words (one per level) and their needs")
        needs = _needs(entry["needs"], f"{where}: dimension {entry['key']!r}", levels, entry["words"])
        dims.append(Dimension(entry["key"], entry["title"], tuple(entry["words"]), needs))
    keys = [d.key for d in dims]
    verdicts = []
    for entry in raw.get("verdicts", []):
        here = f"{where}: verdict {entry.get('key', '?')!r}"
        if not {"key", "title", "pattern", "when"} <= set(entry) or not entry["when"]:
            raise RubricError(f"{here} needs a key, a title, a pattern and at least one clause in when")
        when = tuple(tuple(_term(t, here, levels, keys) for t in clause) for clause in entry["when"])
        verdicts.append(Verdict(entry["key"], entry["title"], entry["pattern"], when))
    r = Rubric(tuple(levels), tuple(dims), tuple(verdicts), _examples(raw.get("examples", []), where, levels, keys),
               raw, where)
    titles = {v.key: v.title for v in r.verdicts}
    for e in r.examples:
        if e.verdict not in titles:
            raise RubricError(f"{where}: [[examples]] {e.key}: unknown verdict {e.verdict!r} "
                              f"(known: {', '.join(titles)})")
        got = r.verdict(r.example_score(e))
        if got.key != e.verdict:
            raise RubricError(f"{where}: [[examples]] {e.key}: its scores come to {got.title}, not {titles[e.verdict]}")
    return r


@cache
def rubric() -> Rubric:
    return read()
