"""A worked answer against noise: the further draws it was not chosen on (the margin, the fewest replicas that meet
every target on all of them) and the calibrated band on its GPU (two fleets inside the answer's span are a tie). The
ladder's last rung and the summary's fleet to build (design_answer.py) both read them.
"""

from __future__ import annotations

import math
from functools import cache

from ...engine.fleet import planner_simulated as ps
from ...engine.fleet.answer import Answer
from ...engine.fleet.planner_simulated import slack, value
from ...engine.fleet.workload_file import Workload
from ...engine.serving.calibration import band_for
from ...text import fmt

NONE = "—"

MOST_MARGIN = 1.25  # the margin is looked for up to a quarter above the answer; past that, the rung says none


def margin(a: Answer) -> int | None:
    """The fewest replicas, the answer's count or more, that meet every target on every further draw
    (planner_simulated.FRESH_SEEDS), or None up to MOST_MARGIN times the answer. The answer holds on the search's
    seeds; a percentile read off one finite run is itself a draw, and this is what holds against that noise."""
    return margin_scan(a)[0]


def margin_scan(a: Answer) -> tuple[int | None, dict[int, int]]:
    """margin(a), and for each count below it the seed of a draw it misses on."""
    return _scan(a.simulated.workload, a.gpus_per_replica, a.replicas)


@cache  # the ladder's rung, the router's knife-edge and its test ask for the same answer's scan
def _scan(w: Workload, g: int, replicas: int) -> tuple[int | None, dict[int, int]]:
    """The scan stops a count at its first missed draw, asking first the draw that sank the count before (the
    likeliest to sink this one too)."""
    order, sunk = list(ps.FRESH_SEEDS), {}
    for n in range(replicas, math.ceil(replicas * MOST_MARGIN) + 1):
        missed = next((seed for seed in order if not ps.meets_on_draw(w, g, n, seed)), None)
        if missed is None:
            return n, sunk
        sunk[n] = missed
        order.remove(missed)
        order.insert(0, missed)
    return None, sunk


def margin_rung(a: Answer) -> tuple[str, str, int | None]:
    """The ladder's last rung, beyond the answer: the margin against the draw, and whether the calibrated band
    makes it a tie with the answer (a hedge on the noise, not a second answer) or not."""
    n, g, draws = margin(a), a.gpus_per_replica, len(ps.FRESH_SEEDS)
    seeds = f"seeds {ps.FRESH_SEEDS[0]} to {ps.FRESH_SEEDS[-1]}"
    if n is None:
        return (f"Beyond the answer: no count up to {fmt.times(MOST_MARGIN)} meets every target on all {draws} "
                f"further draws ({seeds})", NONE, None)
    if n == a.replicas:
        return (f"The answer meets every target on all {draws} further draws ({seeds}) as well",
                f"{fmt.count(n)} × {g}", n * g)
    verdict = ("inside the calibrated band's span, the model's own error" if tie(a, gpus=n * g)
               else "past the calibrated band's span: the draw's noise needs more than the model's error")
    verdict += f". {built_words(a)}"
    return (f"Beyond the answer, the margin: the fewest that meet every target on all {draws} further draws "
            f"({seeds}), {fmt.times(n / a.replicas, 3)} the answer, {verdict}", f"{fmt.count(n)} × {g}", n * g)


def met_draws(a: Answer) -> tuple[int, int]:
    """On how many of the further draws a's fleet meets every target, and how many draws there are."""
    draws = ps.fresh_draws(a.simulated.workload, a.gpus_per_replica, a.replicas)
    return sum(c.meets for c in draws), len(draws)


def holds_pooled(met: int, draws: int) -> bool:
    """Whether a fleet past the band holds anyway: while most further draws meet, since a fleet's p95 pools every
    replica's requests and so sits nearer the median draw than one run's do."""
    return met > draws / 2


def built_words(a: Answer) -> str:
    """Which fleet to build when the margin is past the band: the answer while it holds pooled, else the margin."""
    (met, draws), requests = met_draws(a), a.simulated.chosen.stats["requests"]
    if holds_pooled(met, draws):
        return (f"Against the draws' noise the answer holds: a fleet's p95 pools every replica's requests, nearer the "
                f"median draw than one run's {fmt.count(requests)}, and {met} of {draws} draws meet; the margin "
                "holds a p95 on each replica alone")
    return f"Against the draws' noise the margin is the fleet: the answer meets on {met} of {draws} draws only"


def holds_words(built: Answer) -> str:
    """The margin rung's test for the fleet to build: the same further draws the answer faces, so the summary names
    no fleet the answer's own check has not been run on (its replica count before any rounding per region)."""
    n = margin(built)
    if n == built.replicas:
        return f"It meets every target on all {len(ps.FRESH_SEEDS)} further draws too."
    met, draws = met_draws(built)
    if n is None:
        return (f"It meets every target on {met} of {draws} further draws, and no count up to "
                f"{fmt.times(MOST_MARGIN)} meets on all.")
    if tie(built, gpus=n * built.gpus_per_replica):
        verdict = "inside the calibrated band's span: a tie"
    else:
        verdict = ("past the calibrated band's span; with most draws met, it holds" if holds_pooled(met, draws)
                   else "past the calibrated band's span, and that is the fleet to build")
    return f"It meets every target on {met} of {draws} further draws, on all at {fmt.count(n)} replicas, {verdict}."


def span(a: Answer) -> tuple[int, int]:
    """The replica counts the answer spans inside the calibrated band on its GPU: the model's step at `ratio` of
    the measured one's speed scales the load, and so the count, as 1 / ratio. Two fleets inside are a tie."""
    gpu = a.simulated.workload.gpu
    low, high, _ = band_for(gpu)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{gpu}: the calibration has no band for this GPU or its family; run make calibrate")
    return math.ceil(a.replicas / high), math.ceil(a.replicas / low)


def tie(a: Answer, other: Answer | None = None, gpus: int | None = None) -> bool:
    """Whether another fleet on a's replica shape (`other`, or `gpus` GPUs of it) differs from a but lies inside the
    span the calibrated band gives a: on this model the two are a tie."""
    if not a.feasible or (other is not None and not (other.feasible and other.gpus_per_replica == a.gpus_per_replica)):
        return False
    gpus = other.gpus if other is not None else gpus
    fewest, most = span(a)
    return gpus != a.gpus and fewest * a.gpus_per_replica <= gpus <= most * a.gpus_per_replica


def fresh_words(a: Answer) -> str:
    """How the answer fares on draws no search looked at (planner_simulated.FRESH_SEEDS): on how many it meets every
    target, and its worst miss, to four figures."""
    draws = ps.fresh_draws(a.simulated.workload, a.gpus_per_replica, a.replicas)
    seeds = f"{ps.FRESH_SEEDS[0]} to {ps.FRESH_SEEDS[-1]}"
    out = f"on {sum(c.meets for c in draws)} of {len(draws)} further draws ({seeds})"
    misses = [(slack(c.stats, t), t, value(c.stats, t)) for c in draws for t in c.misses]
    if not misses:
        return out
    _, t, v = max(misses, key=lambda m: m[0])
    return out + f", missing by at most {fmt.pct(v / t.seconds - 1)} ({t.words} {fmt.seconds(v, 4)})"
