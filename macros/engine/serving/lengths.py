"""Prompt and output lengths: fixed, jittered within a range ratio, lognormal, or replayed.

Each distribution is a small frozen record with one `draw(rng)`, so the arrivals generator can take
any of them and the JavaScript twin can mirror them one for one. Every draw is a whole number >= 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from .prng import Rng


@dataclass(frozen=True)
class Fixed:
    tokens: int

    def draw(self, rng: Rng) -> int:
        return self.tokens

    @property
    def mean(self) -> float:
        return float(self.tokens)


@dataclass(frozen=True)
class RangeRatio:
    """Uniform whole numbers from floor(tokens * ratio) to tokens, both included: the random dataset of
    the benchmark client InferenceMAX ran (kimbochen/bench_serving benchmark_serving.py
    sample_random_requests: np.random.randint(int(input_len * range_ratio), input_len + 1)), with
    ratio 0.8 in its runs."""

    tokens: int
    ratio: float

    @property
    def low(self) -> int:
        return max(1, int(self.tokens * self.ratio))

    def draw(self, rng: Rng) -> int:
        return rng.integer(self.low, self.tokens)

    @property
    def mean(self) -> float:
        return (self.low + self.tokens) / 2


@dataclass(frozen=True)
class Lognormal:
    """Lognormal with this mean and coefficient of variation, rounded to the nearest whole number (at
    least 1; halves round to even, as Python's round and the twin's own rounding both must)."""

    mean_tokens: float
    cv: float

    def draw(self, rng: Rng) -> int:
        return max(1, round(rng.lognormal(self.mean_tokens, self.cv)))

    @property
    def mean(self) -> float:
        return self.mean_tokens


@dataclass(frozen=True)
class Replayed:
    """The lengths of a trace, in order; they repeat if more are drawn than the trace holds."""

    tokens: tuple[int, ...]

    def draw(self, rng: Rng) -> int:
        raise TypeError("a replayed length is read with at(i), not drawn")

    def at(self, i: int) -> int:
        return self.tokens[i % len(self.tokens)]

    @property
    def mean(self) -> float:
        return sum(self.tokens) / len(self.tokens)


Lengths = Fixed | RangeRatio | Lognormal
