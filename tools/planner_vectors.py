"""Writes tests/vectors/planner.json: the planner's and the day of traffic's answers on fixed inputs, which the
JavaScript twin (shapes.js, disaggregated.js, serving/speculative.js, serving/capacity.js, autoscale/*.js) must
reproduce. pytest (tests/engine/test_planner_vectors.py) fails when this file and what the Python now computes
drift apart; Node (tests/js/planner.test.mjs) checks the JavaScript against it to 1e-9 relative (whole numbers
and words exactly). The whole plan is compared through the command lines in tests/js/test_twin.py.

    python3 tools/planner_vectors.py      # rewrite the vectors after a change to the planner

Parts:
- shapes: the shape search (search_json) for dense and MoE models, a mixed-step and a prefill-first engine
  (both branches of the closed loop's equilibrium), a sliding-window and an MLA model, a shape too small to hold
  the weights;
- disaggregated: both pools, the KV transfer (between nodes and inside one), the TTFT and the colocated fleet;
- speculative: verify steps at a few batches, dense and MoE, an acceptance of 1, and the break-even batch;
- capacity: one replica's capacity at an SLO (a bracket and a bisection of simulated runs), and a refusal;
- days: the drawn day's bursts and forecast error, and the fluid model's day under each policy and some signals.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vector_file import compact, write  # noqa: E402

from macros.engine.autoscale.day import drawn_day, lifts  # noqa: E402
from macros.engine.autoscale.fluid import Controls, simulate_day  # noqa: E402
from macros.engine.autoscale.inputs import day_inputs  # noqa: E402
from macros.engine.autoscale.run import forecast_error  # noqa: E402
from macros.engine.autoscale.signals import Mix  # noqa: E402
from macros.engine.fleet.disaggregated import disaggregate  # noqa: E402
from macros.engine.fleet.shapes import search, search_json  # noqa: E402
from macros.engine.lookup import InputError  # noqa: E402
from macros.engine.serving.calibration import params_for  # noqa: E402
from macros.engine.serving.capacity import CapacityQuery, capacity_at_slo  # noqa: E402
from macros.engine.serving.replica import build_replica  # noqa: E402
from macros.engine.serving.speculative import break_even_batch, speculative_step  # noqa: E402
from macros.engine.serving.step import costs  # noqa: E402

OUT = ROOT / "tests" / "vectors" / "planner.json"

# model, gpu, weights, kv, engine, prompt, output, ttft_s, tpot_s
SHAPES = [
    ("llama-3.1-70b", "h100", "bf16", "bf16", "vllm", 1000, 400, 0.5, 0.05),
    ("llama-3.1-70b", "h100", "bf16", "bf16", "sglang", 2000, 200, 1.0, 0.04),
    ("deepseek-v3", "h200", "fp8", "bf16", "sglang", 2000, 400, 1.0, 0.05),
    ("qwen3-235b-a22b", "b200", "bf16", "fp8", "trt", 4000, 500, 2.0, 0.04),
    ("gemma-2-27b", "mi300x", "bf16", "bf16", "vllm", 6000, 300, 2.0, 0.03),
    ("gpt-oss-120b", "b200", "mxfp4", "fp8", "atom", 1024, 1024, 1.0, 0.02),
]
# model, gpu, weights, kv, engine, prompt, cached, output, peak, ttft_s, tpot_s, headroom, same_node
DISAGGREGATED = [
    ("llama-3.1-70b", "h200", "fp8", "bf16", "vllm", 4000, 0, 500, 20.0, 2.0, 0.05, 0.2, False),
    ("llama-3.1-70b", "h100", "bf16", "bf16", "vllm", 8000, 4000, 300, 50.0, 1.5, 0.04, 0.1, True),
    ("deepseek-v3", "h200", "fp8", "bf16", "sglang", 3000, 1000, 400, 30.0, 2.0, 0.06, 0.2, False),
]
# model, gpu, gpus, layout, weights, kv, engine, batches, context, draft tokens, acceptance
SPECULATIVE = [
    ("llama-3.1-70b", "h200", 4, "tp", "fp8", "bf16", "vllm", (1, 8, 64, 512), 4250.0, 3, 0.7),
    ("deepseek-v3", "h200", 8, "dp-attention", "fp8", "bf16", "sglang", (1, 4, 32, 256), 2200.0, 2, 0.6),
    ("llama-3.1-8b", "h100", 1, "tp", "bf16", "bf16", "vllm", (1, 16), 1000.0, 4, 1.0),
]
CAPACITY = [
    dict(model="llama-3.1-8b", gpu="h100", gpus=1, prompt_tokens=1000, output_tokens=100, ttft_target_s=0.5,
         tpot_target_s=0.03, requests=120),
    dict(model="llama-3.1-70b", gpu="h100", gpus=4, prompt_tokens=8000, output_tokens=50, ttft_target_s=0.1,
         tpot_target_s=0.05, requests=60),  # misses the TTFT even unloaded: the refusal's line
]
# policy, signal
DAYS = [("reactive", "queue"), ("predictive", "queue"), ("warm-pool", "queue"), ("reactive", "kv"),
        ("reactive", "utilisation"), ("predictive", "tokens")]
PLANNED = Mix(capacity_per_s=3.0, tokens_per_request=2400, kv_occupancy=0.6, e2e_s=12.0)
SHIFTED = Mix(capacity_per_s=2.2, tokens_per_request=3400, kv_occupancy=0.8, e2e_s=15.0)


def shapes_case(args: tuple) -> dict[str, Any]:
    return {"input": list(args), "output": search_json(search(*args))}


def disaggregated_case(args: tuple) -> dict[str, Any]:
    d = disaggregate(*args)
    out = dataclasses.asdict(d)
    out.update(gpus=d.gpus, wins=d.wins)
    return {"input": list(args), "output": out}


def speculative_case(args: tuple) -> dict[str, Any]:
    model, gpu, gpus, layout, weights, kv, engine, batches, context, k, a = args
    r = build_replica(model, gpu, gpus, layout, gpus if layout == "dp-attention" else 1, weights, kv)
    c = costs(r, params_for(gpu, engine, r.attention))
    steps = []
    for b in batches:
        s = speculative_step(c, b, context, k, a)
        steps.append({**dataclasses.asdict(s), "tpot_s": s.tpot_s, "speedup": s.speedup})
    return {"input": [model, gpu, gpus, layout, weights, kv, engine, list(batches), context, k, a],
            "output": {"steps": steps, "break_even_batch": break_even_batch(c, context, k, a)}}


def capacity_case(args: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"input": args, "output": dataclasses.asdict(capacity_at_slo(CapacityQuery(**args)))}
    except InputError as exc:
        return {"input": args, "error": str(exc)}


def day_case(policy: str, signal: str) -> dict[str, Any]:
    x = day_inputs()
    day = drawn_day(400.0, 250.0, x)
    controls = Controls(policy=policy, signal=signal, set_point=1 / 1.2, cold_minutes=4, warm_minutes=1,
                        hold_minutes=x.scale_down_hold_minutes, min_replicas=1, max_replicas=300, slo_percentile=95,
                        forecast_error=0.15, gpus_per_replica=2)
    run = simulate_day(day, controls, PLANNED, SHIFTED)
    return {"input": {"controls": dataclasses.asdict(controls), "peak": 400.0, "mean": 250.0},
            "output": {"gpu_hours": run.gpu_hours, "cold_starts": run.cold_starts, "warm_starts": run.warm_starts,
                       "offered_requests": run.offered_requests, "served_requests": run.served_requests,
                       "shed_requests": run.shed_requests, "slo_violation_minutes": run.slo_violation_minutes,
                       "replicas": [m.replicas for m in run.minutes], "shed": [m.shed for m in run.minutes],
                       "warm_pool": [m.warm_pool for m in run.minutes]}}


def vectors() -> dict[str, Any]:
    x = day_inputs()
    backtest = drawn_day(400.0, 250.0, x, x.seed + 1)
    return {"generated_by": "tools/planner_vectors.py", "shapes": [shapes_case(a) for a in SHAPES],
            "disaggregated": [disaggregated_case(a) for a in DISAGGREGATED],
            "speculative": [speculative_case(a) for a in SPECULATIVE],
            "capacity": [capacity_case(a) for a in CAPACITY],
            "mixes": {"planned": dataclasses.asdict(PLANNED), "shifted": dataclasses.asdict(SHIFTED)},
            "bursts": {"seed": x.seed, "lifts": lifts(x, x.seed)},
            "forecast_error": {"peak": 400.0, "mean": 250.0, "p95": forecast_error(backtest, 95)},
            "days": [day_case(p, s) for p, s in DAYS]}


def text() -> str:
    return compact(vectors())


def main() -> int:
    return write(OUT, text(), ROOT)


if __name__ == "__main__":
    sys.exit(main())
