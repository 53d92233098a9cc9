"""Where requests come from: a closed loop at a concurrency, or open-loop arrivals (Poisson, gamma
with a coefficient of variation, a replayed trace), and the lengths each request asks for.

Order of draws from the one generator, request by request (the JavaScript twin draws the same):
prompt length, then output length, then (open loop) the gap to the next request. A closed loop draws no
gaps: its next request arrives the moment one finishes, as a benchmark client's semaphore releases it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .lengths import Lengths, Replayed
from .prng import Rng
from .types import Request


@dataclass(frozen=True)
class ClosedLoop:
    """`concurrency` requests in flight: all start at time 0, and each finish sends the next one."""

    concurrency: int


@dataclass(frozen=True)
class Offline(ClosedLoop):
    """Every request queued at time 0, as MLPerf's Offline scenario and the engines' own throughput
    benchmarks issue them: a closed loop whose concurrency is the whole run, so none is ever sent later."""


@dataclass(frozen=True)
class Poisson:
    rate_per_s: float

    def gap(self, rng: Rng) -> float:
        return rng.exponential(1 / self.rate_per_s)


@dataclass(frozen=True)
class Gamma:
    """Gamma interarrival gaps with mean 1 / rate and coefficient of variation cv (cv = 1 is Poisson;
    above 1 bursty). Shape 1 / cv^2, scale cv^2 / rate: vLLM's benchmark calls 1 / cv^2 'burstiness'."""

    rate_per_s: float
    cv: float

    def gap(self, rng: Rng) -> float:
        shape = 1 / (self.cv * self.cv)
        return rng.gamma(shape, 1 / (self.rate_per_s * shape))


@dataclass(frozen=True)
class Trace:
    """Requests replayed as recorded: arrival times (s, non-decreasing) and lengths."""

    arrivals_s: tuple[float, ...]
    prompts: tuple[int, ...]
    outputs: tuple[int, ...]


Arrivals = ClosedLoop | Offline | Poisson | Gamma | Trace


def cached_tokens(prompt_tokens: int, prefix_hit_rate: float) -> int:
    """Prompt tokens served from the prefix cache: the share, rounded down (rounded to 1e-6 first, so that
    0.29 x 100 is 29, not 28), and never the whole prompt: the engine recomputes the last token to sample
    the first output token from it."""
    return min(math.floor(round(prompt_tokens * prefix_hit_rate, 6)), prompt_tokens - 1)


def requests(arrivals: Arrivals, prompt: Lengths, output: Lengths, count: int, rng: Rng,
             prefix_hit_rate: float = 0.0) -> list[Request]:
    """The first `count` requests, each with `prefix_hit_rate` of its prompt already cached (no draw: the
    same requests as without it). A closed loop's arrival times are placeholders (0): the simulator sets
    each when a slot frees. A trace gives its own lengths; `prompt` and `output` are then not used."""
    if isinstance(arrivals, Trace):
        n = len(arrivals.arrivals_s)
        prompts = [Replayed(arrivals.prompts).at(i) for i in range(min(count, n))]
        return [Request(i, arrivals.arrivals_s[i], p, Replayed(arrivals.outputs).at(i),
                        cached_tokens(p, prefix_hit_rate)) for i, p in enumerate(prompts)]
    out, t = [], 0.0
    for i in range(count):
        p, o = prompt.draw(rng), output.draw(rng)
        out.append(Request(i, t, p, o, cached_tokens(p, prefix_hit_rate)))
        if not isinstance(arrivals, ClosedLoop):
            t += arrivals.gap(rng)
    return out


def read_trace(path: str) -> Trace:
    """A trace file: one request per line, `arrival_s,input_tokens,output_tokens` (a header line naming
    them is skipped; arrival times in seconds, non-decreasing). Any other line is one InputError naming the
    file and the line."""
    from ..lookup import InputError

    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the trace: {exc.strerror}") from None
    times: list[float] = []
    prompts: list[int] = []
    outputs: list[int] = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or (n == 1 and line.replace(" ", "") == "arrival_s,input_tokens,output_tokens"):
            continue
        parts = [p.strip() for p in line.split(",")]
        try:
            t, p, o = float(parts[0]), int(parts[1]), int(parts[2])
            if len(parts) != 3 or not (t >= 0 and p > 0 and o > 0) or t != t or t == float("inf"):
                raise ValueError
        except (ValueError, IndexError):
            raise InputError(f"{path}: line {n}: expected arrival_s,input_tokens,output_tokens (a time >= 0 "
                             f"and two whole numbers > 0), got {line!r}") from None
        if times and t < times[-1]:
            raise InputError(f"{path}: line {n}: arrival {t:g} s is before the previous line's {times[-1]:g} s")
        times.append(t)
        prompts.append(p)
        outputs.append(o)
    if not times:
        raise InputError(f"{path}: no requests in the trace")
    return Trace(tuple(times), tuple(prompts), tuple(outputs))
