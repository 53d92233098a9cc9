"""The anchor replica swept across arrival rates by the serving model, once per build: the Load explorer page,
chapter 4.5's latency-against-load curve and chapter 6.4's utilisation knee read the same sweep
(engine/serving/sweep.py), so the three show one set of figures and the build simulates it once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ...engine.serving import sweep as s
from ...engine.serving.run import RunRequest
from ...engine.workloads import workloads


@dataclass(frozen=True)
class AnchorSweep:
    start: dict[str, Any]  # the replica and workload, as the Load explorer's form takes them
    capacity_per_s: float
    points: tuple[s.LoadPoint, ...]  # lightest rate first
    knee: s.LoadPoint | None


@cache
def anchor_sweep() -> AnchorSweep:
    """data/workloads.toml's load_* replica with the worked prompt, swept by sweep.sweep (fixed seed)."""
    w = workloads()
    start = {"model": w["load_model"], "gpu": w["load_gpu"], "gpus": w["load_gpus"], "engine": w["load_engine"],
             "input_tokens": w["prompt_tokens"], "output_tokens": w["load_output_tokens"]}
    capacity, points = s.sweep(RunRequest(**start, concurrency=1))  # the sweep sets the load itself
    return AnchorSweep(start, capacity, tuple(points), s.knee(points))


@dataclass(frozen=True)
class Knee:
    """Chapter 6.4's utilisation knee on the anchor sweep, by sweep.knee's definition: the last rate before the
    first whose p99 TTFT passes KNEE_FACTOR times the lightest rate's."""

    sweep: AnchorSweep
    light: s.LoadPoint
    heavy: s.LoadPoint
    knee: s.LoadPoint | None
    past_knee: s.LoadPoint | None  # the first rate whose p99 TTFT passes the limit
    limit_s: float  # KNEE_FACTOR x the lightest rate's p99 TTFT
    factor: float


def first_past(points: tuple[s.LoadPoint, ...], value: Callable[[s.LoadPoint], float], limit: float) -> int | None:
    """The index of the first point whose value(point) passes limit, or None."""
    return next((i for i, p in enumerate(points) if value(p) > limit), None)


def knee_figures(swept: AnchorSweep | None = None) -> Knee:
    """The knee on `swept` (the anchor sweep unless a test passes its own points)."""
    swept = swept or anchor_sweep()
    points = swept.points
    limit = s.KNEE_FACTOR * points[0].ttft_p99_s
    past = first_past(points, lambda p: p.ttft_p99_s, limit)
    return Knee(sweep=swept, light=points[0], heavy=points[-1], knee=swept.knee,
                past_knee=None if past is None else points[past], limit_s=limit, factor=s.KNEE_FACTOR)


@dataclass(frozen=True)
class LoadFigures:
    """What chapter 4.5 says about the sweep, against a design's TPOT target."""

    sweep: AnchorSweep
    gpus: int
    light: s.LoadPoint
    heavy: s.LoadPoint
    knee: s.LoadPoint | None
    tpot_target_s: float
    within_tpot: s.LoadPoint | None  # the heaviest rate before p99 TPOT first passes the target
    over_tpot: s.LoadPoint | None  # the first rate whose p99 TPOT passes it


def replica_tokens_per_s(p: s.LoadPoint, gpus: int) -> float:
    """Output tokens/s of the whole replica: the sweep reports them per GPU."""
    return p.output_tokens_per_s_per_gpu * gpus


def load_figures(tpot_target_s: float, swept: AnchorSweep | None = None) -> LoadFigures:
    """4.5's figures on `swept` (the anchor sweep unless a test passes its own points)."""
    swept = swept or anchor_sweep()
    points = swept.points
    over = first_past(points, lambda p: p.tpot_p99_s, tpot_target_s)
    return LoadFigures(
        sweep=swept, gpus=swept.start["gpus"], light=points[0], heavy=points[-1], knee=swept.knee,
        tpot_target_s=tpot_target_s,
        within_tpot=points[-1] if over is None else (points[over - 1] if over > 0 else None),
        over_tpot=None if over is None else points[over])
