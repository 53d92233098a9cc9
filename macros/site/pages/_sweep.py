"""The anchor replica swept across arrival rates by the serving model, once per build: the Load explorer page,
chapter 4.5's latency-against-load curve and chapter 6.4's utilisation knee read the same sweep
(engine/serving/sweep.py), so the three show one set of figures and the build simulates it once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ...engine.serving import sweep as s
from ...engine.serving.run import RunRequest
from ...engine.workloads import workloads


@dataclass(frozen=True)
class AnchorSweep:
    start: dict  # the replica and workload, as the Load explorer's form takes them
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
