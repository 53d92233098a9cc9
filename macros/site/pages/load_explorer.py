"""The Load explorer page: one replica (data/workloads.toml's load_* inputs) swept across open-loop Poisson
arrival rates by the serving model (engine/serving/sweep.py), the figures its prose quotes, and the inputs
its interactive form starts from (the browser's twin recomputes the same sweep)."""

from __future__ import annotations

import html
import json
from types import SimpleNamespace

from ...engine.lookup import get_gpu, get_model
from ...engine.serving import sweep as s
from ...engine.serving.profiles import engines
from ._sweep import anchor_sweep


def model() -> SimpleNamespace:
    swept = anchor_sweep()
    start, capacity, points, knee = swept.start, swept.capacity_per_s, list(swept.points), swept.knee
    light, heavy = points[0], points[-1]
    return SimpleNamespace(
        start=start, model_name=get_model(start["model"]).name, gpu_name=get_gpu(start["gpu"]).name,
        engine_name=engines()[start["engine"]]["name"], capacity_per_s=capacity, points=points, knee=knee,
        light=light, heavy=heavy, example_rate_per_s=(knee or light).rate_per_s,  # the command line's example
        # How much worse the tail gets from the lightest rate to the heaviest, and the knee's distance below
        # the capacity (the prose quotes both; None when there is no knee).
        heavy_over_light_p99=heavy.ttft_p99_s / light.ttft_p99_s,
        knee_share_of_capacity=None if knee is None else knee.rate_per_s / capacity,
        lightest_fraction=s.SWEEP_FRACTIONS[0], heaviest_fraction=s.SWEEP_FRACTIONS[-1],
        fractions=len(s.SWEEP_FRACTIONS), sweep_requests=s.SWEEP_REQUESTS, knee_factor=s.KNEE_FACTOR,
        capacity_concurrency=s.CAPACITY_CONCURRENCY, capacity_requests=s.CAPACITY_REQUESTS,
        start_json=html.escape(json.dumps(start), quote=True),  # the interactive form's first inputs
    )
