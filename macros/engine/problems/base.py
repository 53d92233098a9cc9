"""What every kind of practice problem shares: the stated inputs, the problem, and the knife-edge check.

A problem is posed on numbers drawn from the spec data (a model's parameter count, a GPU's bandwidth),
but a reader sees them rounded. So each kind has a `solve(given)` that works from the numbers alone, and
a draw is kept only when solving from the numbers as stated (rounded) gives the answer solving from the
exact numbers gives; otherwise the kind draws again, deterministically from its seed. The answer kept is
the one from the stated numbers, so a reader working from the text gets exactly it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..specs import SpecError

MAX_DRAWS = 4000  # a kind that finds no usable draw in this many tries is a data error
SIG = 3  # significant figures a stated input keeps (and an answer is compared at)

Value = float | int | str
Solution = dict[str, Any]  # named results, "answer" among them, in SI units
Solver = Callable[[dict[str, Value]], Solution]


@dataclass(frozen=True)
class Given:
    """One input as the problem states it: its name in the solver, its value (SI units, already rounded to
    what the text prints) and its unit, which tells the text how to print it."""
    name: str
    value: Value
    # "params", "bytes" (a few, exactly), "B" (GB and up), "B/s", "FLOP/s", "s", "tokens", "count", "1/s",
    # "tokens/s", "USD/h", "fraction", or "text" (a word: a layout, an engine, a model's key)
    unit: str


@dataclass(frozen=True)
class Problem:
    id: str  # "<kind>-<n>", n from 1 within its kind: stable when other kinds change
    kind: str
    variant: str  # which question of the kind it asks (a kind may ask two)
    given: tuple[Given, ...]
    answer: Any  # SI units: a count, seconds, USD, a word
    unit: str  # the answer's unit, as Given.unit
    solution: Solution = field(repr=False)  # every intermediate, from the stated inputs
    source: dict[str, str] = field(default_factory=dict)  # the spec keys the numbers were read from

    @property
    def inputs(self) -> dict[str, Value]:
        return {g.name: g.value for g in self.given}


def stated(x: Value, sig: int = SIG) -> Value:
    """The value a problem states: a float to `sig` significant figures (a count, a word, stays as it is).
    This picks the problem's round numbers; the site prints them in full (macros/text/fmt.py)."""
    if isinstance(x, float):
        return float(f"{x:.{sig}g}")
    return x


def same_answer(a: Any, b: Any) -> bool:
    """Whether two answers read the same: equal counts and words, floats equal to SIG significant figures."""
    if isinstance(a, float) or isinstance(b, float):
        return f"{float(a):.{SIG}g}" == f"{float(b):.{SIG}g}"
    return a == b


@dataclass(frozen=True)
class Draw:
    """One candidate: the exact inputs in the order the text states them, with their units."""
    variant: str
    exact: tuple[Given, ...]
    source: dict[str, str] = field(default_factory=dict)
    sig: dict[str, int] = field(default_factory=dict)  # an input that keeps more significant figures


def pose(kind: str, number: int, d: Draw, solve: Solver) -> Problem | None:
    """The problem from a draw, or None when rounding its inputs would change its answer (a knife edge)."""
    given = tuple(Given(g.name, stated(g.value, d.sig.get(g.name, SIG)), g.unit) for g in d.exact)
    from_stated = solve({g.name: g.value for g in given})
    if given != d.exact:
        from_exact = solve({g.name: g.value for g in d.exact})
        if not same_answer(from_exact["answer"], from_stated["answer"]) or \
                from_exact.get("verdict") != from_stated.get("verdict"):  # a word beside the answer must hold too
            return None
    return Problem(f"{kind}-{number}", kind, d.variant, given, from_stated["answer"], from_stated["unit"],
                   from_stated, d.source)


Drawer = Callable[[int, random.Random], Draw | None]  # problem n (from 0), or None: this draw is unusable


def generate(kind: str, count: int, seed: Any, draw: Drawer, solve: Solver) -> list[Problem]:
    """`count` problems of one kind, each from its own stream random.Random("<seed>:<kind>:<n>"), so adding
    problems to a kind, or changing another kind, leaves the others as they were."""
    out: list[Problem] = []
    asked: list[tuple[Given, ...]] = []
    for n in range(count):
        rng = random.Random(f"{seed}:{kind}:{n}")
        for _ in range(MAX_DRAWS):
            d = draw(n, rng)
            if d is None or d.exact in asked:
                continue  # unusable, or the same question as an earlier one
            p = pose(kind, n + 1, d, solve)
            if p is not None:
                out.append(p)
                asked.append(d.exact)
                break
        else:
            raise SpecError(f"practice problems: no usable draw for {kind}-{n + 1} in {MAX_DRAWS} tries: "
                            "widen its pools")
    return out
