"""Writes tests/vectors/serving.json: the serving model's answers on fixed seeds, which the JavaScript twin
(docs/assets/javascripts/calculator/serving/) must reproduce. pytest (tests/engine/serving/test_vectors.py)
fails when this file and what the Python now computes drift apart; Node (tests/js/serving.test.mjs) checks
the JavaScript against it to 1e-9 relative (the generator's words and whole numbers exactly).

    python3 tools/serving_vectors.py      # rewrite the vectors after a change to the serving model

Three parts:
- prng: for a few seeds (as decimal strings: JSON numbers lose bits past 2^53), the generator's first
  words, then uniforms, integers, exponentials, normals, gammas (shape below and above 1) and lognormals;
- simulations: one replica under one workload through simulate() and summarize(), with every request's
  record, covering closed and open loops (Poisson, gamma, a trace), fixed, range-ratio and lognormal
  lengths, dense, MoE, MLA and sliding-window models, tp and dp-attention with EP, each engine (so each
  policy and both preemption modes), and runs that preempt;
- runs: run() as `gpu_math.py simulate --json` prints it;
- sweeps: the Load explorer's arrival-rate sweep (sweep.py): the capacity, every rate's point and the knee.
Request counts are small, so the file stays under about 300 kB and the drift test takes seconds.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vector_file import compact, write  # noqa: E402

from macros.engine.lookup import get_model  # noqa: E402
from macros.engine.serving.arrivals import ClosedLoop, Gamma, Poisson, Trace  # noqa: E402
from macros.engine.serving.calibration import params_for  # noqa: E402
from macros.engine.serving.lengths import Fixed, Lognormal, RangeRatio  # noqa: E402
from macros.engine.serving.metrics import summarize  # noqa: E402
from macros.engine.serving.prng import Rng  # noqa: E402
from macros.engine.serving.profiles import profile  # noqa: E402
from macros.engine.serving.replica import build_replica  # noqa: E402
from macros.engine.serving.run import RunRequest, run  # noqa: E402
from macros.engine.serving.sim import RequestStream, simulate  # noqa: E402
from macros.engine.serving.sweep import knee, sweep  # noqa: E402

OUT = ROOT / "tests" / "vectors" / "serving.json"
SEEDS = ("0", "1", "42", "4294967296", "18446744073709551615")

TRACE = {"arrivals_s": [0.0, 0.05, 0.05, 0.3, 0.31, 0.9, 1.4, 1.41],
         "prompts": [500, 1200, 80, 3000, 640, 64, 900, 2048], "outputs": [40, 12, 200, 30, 1, 64, 16, 50]}

# name, replica (model, gpu, gpus, layout, ep, weights, kv), engine, concurrency the profile sees, arrivals,
# prompt lengths, output lengths, requests, seed, warm-up
SIMULATIONS: list[tuple] = [
    ("dense closed loop, vLLM", ("llama-3.1-8b", "h100", 1, "tp", 1, None, "bf16"), "vllm", 8,
     {"kind": "closed", "concurrency": 8}, {"kind": "fixed", "tokens": 1024}, {"kind": "fixed", "tokens": 128}, 40,
     "0", 8),
    ("dense Poisson, lognormal lengths", ("llama-3.1-70b", "h200", 4, "tp", 1, None, "bf16"), "vllm", None,
     {"kind": "poisson", "rate_per_s": 4.0}, {"kind": "lognormal", "mean": 800, "cv": 1.0},
     {"kind": "lognormal", "mean": 150, "cv": 0.8}, 60, "7", 6),
    ("dense gamma bursts (cv 2), range ratio", ("llama-3.1-70b", "h100", 8, "tp", 1, "fp8", "fp8"), "trt", None,
     {"kind": "gamma", "rate_per_s": 6.0, "cv": 2.0}, {"kind": "range", "tokens": 2048, "ratio": 0.8},
     {"kind": "range", "tokens": 256, "ratio": 0.8}, 60, "42", 6),
    ("dense gamma smooth (cv 0.5), SGLang", ("qwen2.5-72b", "b200", 2, "tp", 1, None, "bf16"), "sglang", None,
     {"kind": "gamma", "rate_per_s": 3.0, "cv": 0.5}, {"kind": "fixed", "tokens": 1500},
     {"kind": "fixed", "tokens": 200}, 50, "3", 5),
    ("preempting: long outputs on a tight pool", ("llama-3.1-70b", "h100", 2, "tp", 1, None, "bf16"), "vllm", 64,
     {"kind": "closed", "concurrency": 64}, {"kind": "fixed", "tokens": 2048}, {"kind": "fixed", "tokens": 1024}, 80,
     "0", 64),
    ("preempting under SGLang", ("llama-3.1-70b", "h200", 2, "tp", 1, None, "bf16"), "sglang", 96,
     {"kind": "closed", "concurrency": 96}, {"kind": "fixed", "tokens": 4096}, {"kind": "fixed", "tokens": 1024}, 110,
     "5", 96),
    ("reserving: TensorRT-LLM on the tight pool", ("llama-3.1-70b", "h100", 2, "tp", 1, None, "bf16"), "trt", 64,
     {"kind": "closed", "concurrency": 64}, {"kind": "fixed", "tokens": 2048}, {"kind": "fixed", "tokens": 1024}, 80,
     "0", 64),
    ("sliding window in every layer", ("mistral-7b", "h100", 1, "tp", 1, None, "bf16"), "vllm", 16,
     {"kind": "closed", "concurrency": 16}, {"kind": "lognormal", "mean": 6000, "cv": 0.5},
     {"kind": "fixed", "tokens": 64}, 40, "11", 16),
    ("sliding window in some layers", ("gemma-2-27b", "h200", 1, "tp", 1, None, "fp8"), "vllm", None,
     {"kind": "poisson", "rate_per_s": 2.0}, {"kind": "fixed", "tokens": 6000}, {"kind": "fixed", "tokens": 100}, 40,
     "2", 4),
    ("GPT-OSS on B200, its launch", ("gpt-oss-120b", "b200", 2, "tp", 1, None, "fp8"), "vllm", 32,
     {"kind": "closed", "concurrency": 32}, {"kind": "range", "tokens": 1024, "ratio": 0.8},
     {"kind": "range", "tokens": 1024, "ratio": 0.8}, 64, "0", 32),
    ("GPT-OSS on H100, TensorRT-LLM", ("gpt-oss-120b", "h100", 4, "tp", 1, None, "bf16"), "trt", 16,
     {"kind": "closed", "concurrency": 16}, {"kind": "fixed", "tokens": 8192}, {"kind": "fixed", "tokens": 256}, 40,
     "9", 16),
    ("GPT-OSS on MI300X, Poisson", ("gpt-oss-120b", "mi300x", 1, "tp", 1, None, "bf16"), "vllm", None,
     {"kind": "poisson", "rate_per_s": 10.0}, {"kind": "lognormal", "mean": 1000, "cv": 1.5},
     {"kind": "lognormal", "mean": 300, "cv": 1.0}, 60, "13", 6),
    ("ATOM on MI355X", ("gpt-oss-120b", "mi355x", 1, "tp", 1, None, "bf16"), "atom", 16,
     {"kind": "closed", "concurrency": 16}, {"kind": "fixed", "tokens": 1024}, {"kind": "fixed", "tokens": 512}, 48,
     "0", 16),
    ("DeepSeek-V3 tp on H200, SGLang", ("deepseek-v3", "h200", 8, "tp", 1, None, "bf16"), "sglang", 32,
     {"kind": "closed", "concurrency": 32}, {"kind": "fixed", "tokens": 1024}, {"kind": "fixed", "tokens": 256}, 64,
     "0", 32),
    ("DeepSeek-V3 dp-attention with EP 8 on B200", ("deepseek-v3", "b200", 8, "dp-attention", 8, None, "fp8"),
     "sglang", 64, {"kind": "closed", "concurrency": 64}, {"kind": "fixed", "tokens": 1024},
     {"kind": "fixed", "tokens": 1024}, 96, "0", 64),
    ("DeepSeek-V3 dp-attention, experts by TP, gamma", ("deepseek-v3", "h200", 8, "dp-attention", 1, None, "bf16"),
     "sglang", None, {"kind": "gamma", "rate_per_s": 8.0, "cv": 3.0}, {"kind": "lognormal", "mean": 2000, "cv": 0.6},
     {"kind": "fixed", "tokens": 300}, 60, "21", 6),
    ("DeepSeek-V3 FP4 on MI355X, ATOM", ("deepseek-v3", "mi355x", 8, "tp", 1, "mxfp4", "fp8"), "atom", 32,
     {"kind": "closed", "concurrency": 32}, {"kind": "fixed", "tokens": 8192}, {"kind": "fixed", "tokens": 1024}, 48,
     "0", 32),
    ("Mixtral MoE, one-token outputs", ("mixtral-8x7b", "h100", 2, "tp", 1, None, "bf16"), "vllm", None,
     {"kind": "poisson", "rate_per_s": 20.0}, {"kind": "fixed", "tokens": 500}, {"kind": "fixed", "tokens": 1}, 40,
     "4", 4),
    ("Qwen3 MoE dp-attention EP 4", ("qwen3-235b-a22b", "h200", 4, "dp-attention", 4, None, "bf16"), "vllm", 24,
     {"kind": "closed", "concurrency": 24}, {"kind": "fixed", "tokens": 2000}, {"kind": "fixed", "tokens": 400}, 48,
     "8", 24),
    ("a trace", ("llama-3.1-8b", "b200", 1, "tp", 1, None, "bf16"), "vllm", None,
     {"kind": "trace", **TRACE}, None, None, 8, "0", 0),
    ("a trace, SGLang on MI300X", ("llama-3.1-70b", "mi300x", 2, "tp", 1, None, "bf16"), "sglang", None,
     {"kind": "trace", **TRACE}, None, None, 8, "0", 2),
    ("overloaded open loop: queues grow", ("llama-3.1-70b", "h100", 4, "tp", 1, None, "bf16"), "vllm", None,
     {"kind": "poisson", "rate_per_s": 60.0}, {"kind": "fixed", "tokens": 2000}, {"kind": "fixed", "tokens": 200}, 80,
     "17", 8),
]

RUNS: list[dict[str, Any]] = [
    {"model": "gpt-oss-120b", "gpu": "b200", "gpus": 2, "input_tokens": 1024, "output_tokens": 256, "concurrency": 8,
     "requests": 40},
    {"model": "gpt-oss-120b", "gpu": "h200", "gpus": 1, "input_tokens": 1024, "output_tokens": 1024,
     "concurrency": 16, "requests": 48, "range_ratio": 0.8, "seed": 3},
    {"model": "deepseek-v3", "gpu": "b200", "gpus": 8, "input_tokens": 1024, "output_tokens": 256, "engine": "sglang",
     "layout": "dp-attention", "ep": 8, "rate_per_s": 20.0, "requests": 60},
    {"model": "llama-3.1-70b", "gpu": "h100", "gpus": 4, "input_tokens": 2000, "output_tokens": 200, "engine": "trt",
     "rate_per_s": 3.0, "burstiness": 2.5, "requests": 50, "seed": 99},
    {"model": "llama-3.1-8b", "gpu": "mi355x", "gpus": 1, "input_tokens": 500, "output_tokens": 100, "engine": "atom",
     "kv": "fp8", "concurrency": 4, "requests": 30},
    {"model": "llama-3.1-8b", "gpu": "gb200", "gpus": 1, "input_tokens": 100, "output_tokens": 50,
     "trace": TRACE, "seed": 18446744073709551615},
    {"model": "mistral-7b", "gpu": "h100-pcie", "gpus": 2, "input_tokens": 3000, "output_tokens": 300,
     "weights": "fp8", "rate_per_s": 5.0, "burstiness": 1.0, "requests": 40},
    {"model": "mixtral-8x22b", "gpu": "mi325x", "gpus": 8, "input_tokens": 800, "output_tokens": 1, "concurrency": 32,
     "requests": 64},
    {"model": "llama-3.1-70b", "gpu": "h200", "gpus": 4, "input_tokens": 2000, "output_tokens": 200,
     "rate_per_s": 4.0, "prefix_hit_rate": 0.29, "range_ratio": 0.8, "requests": 40, "seed": 5},
    {"model": "llama-3.1-70b", "gpu": "h200", "gpus": 2, "input_tokens": 3000, "output_tokens": 100, "engine": "trt",
     "weights": "fp8", "offline": 60, "max_batch": 24, "token_budget": 4096, "chunked_prefill": True,
     "kv_memory_fraction": 0.85, "graph_max_batch": 16},
    {"model": "llama-3.1-8b", "gpu": "h100", "gpus": 1, "input_tokens": 1000, "output_tokens": 200, "rate_per_s": 30.0,
     "prefix_hit_rate": 0.3, "requests": 80, "adapters": 5000, "adapter_popularity": 1.0, "adapter_rank": 16,
     "adapter_slice_bytes": 10e9},
]


SWEEPS: list[dict[str, Any]] = [
    {"model": "llama-3.1-70b", "gpu": "h100", "gpus": 4, "input_tokens": 2000, "output_tokens": 200},
    {"model": "gpt-oss-120b", "gpu": "mi355x", "gpus": 1, "input_tokens": 1024, "output_tokens": 128,
     "engine": "atom", "seed": 5},
]


def lengths(spec: dict[str, Any] | None) -> Any:
    if spec is None:
        return Fixed(1)  # a trace gives its own lengths
    return {"fixed": lambda: Fixed(spec["tokens"]), "range": lambda: RangeRatio(spec["tokens"], spec["ratio"]),
            "lognormal": lambda: Lognormal(spec["mean"], spec["cv"])}[spec["kind"]]()


def arrivals(spec: dict[str, Any]) -> Any:
    kind = spec["kind"]
    if kind == "closed":
        return ClosedLoop(spec["concurrency"])
    if kind == "poisson":
        return Poisson(spec["rate_per_s"])
    if kind == "gamma":
        return Gamma(spec["rate_per_s"], spec["cv"])
    return Trace(tuple(spec["arrivals_s"]), tuple(spec["prompts"]), tuple(spec["outputs"]))


def finite(x: Any) -> Any:
    """JSON has no NaN or infinity: null stands for them (the twin reads null as NaN)."""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x if not isinstance(x, float) or math.isfinite(x) else None


def prng_case(seed: str) -> dict[str, Any]:
    rng = Rng(int(seed))
    words = [rng.next_u32() for _ in range(8)]
    return {"seed": seed, "u32": words, "uniform": [rng.uniform() for _ in range(4)],
            "integer_1_6": [rng.integer(1, 6) for _ in range(6)],
            "exponential_2": [rng.exponential(2.0) for _ in range(3)],
            "normal": [rng.normal() for _ in range(3)], "gamma_0.25_2": [rng.gamma(0.25, 2.0) for _ in range(3)],
            "gamma_3_0.5": [rng.gamma(3.0, 0.5) for _ in range(3)],
            "lognormal_100_0.7": [rng.lognormal(100.0, 0.7) for _ in range(3)]}


def simulation_case(case: tuple) -> dict[str, Any]:
    name, (model, gpu, gpus, layout, ep, weights, kv), engine, concurrency, arr, prompt, output, n, seed, warmup = case
    r = build_replica(model, gpu, gpus, layout, ep, weights, kv)
    prof = profile(engine, gpu, model, get_model(model).native_weights if weights is None else weights, concurrency)
    result = simulate(r, params_for(gpu, engine, r.attention), prof,
                      RequestStream(arrivals(arr), lengths(prompt), lengths(output), n, int(seed)))
    s = summarize(result, warmup)
    return {
        "name": name,
        "input": {"model": model, "gpu": gpu, "gpus": gpus, "layout": layout, "ep": ep, "weights": weights, "kv": kv,
                  "engine": engine, "concurrency": concurrency, "arrivals": arr, "prompt": prompt, "output": output,
                  "requests": n, "seed": seed, "warmup": warmup},
        "output": finite({
            "steps": result.steps, "duration_s": result.duration_s, "preemptions": result.preemptions,
            "kv_blocks": result.kv_blocks, "busy_s": result.busy_s, "batch_area": result.batch_area,
            "kv_area": result.kv_area, "in_system_area": result.in_system_area, "itl_points": len(result.itl),
            "timeline_points": len(result.timeline), "summary": dataclasses.asdict(s),
            # id, arrival_s, prompt_tokens, output_tokens, ttft_s, e2e_s, queue_s, preemptions
            "records": [[q.id, q.arrival_s, q.prompt_tokens, q.output_tokens, q.ttft_s, q.e2e_s, q.queue_s,
                         q.preemptions] for q in result.records],
        }),
    }


def run_case(args: dict[str, Any]) -> dict[str, Any]:
    given = dict(args)
    if "trace" in given:
        given["trace"] = arrivals({"kind": "trace", **given["trace"]})
    # A seed past 2^53 survives JSON only as text.
    return {"input": {**args, "seed": str(args.get("seed", 0))},
            "output": {**run(RunRequest(**given)), "seed": str(args.get("seed", 0))}}


def sweep_case(args: dict[str, Any]) -> dict[str, Any]:
    capacity, points = sweep(RunRequest(**args, concurrency=1))  # the sweep replaces the load
    k = knee(points)
    points_json = [dataclasses.asdict(p) for p in points]
    return {"input": args, "output": finite({"capacity_per_s": capacity, "points": points_json,
                                             "knee_rate_per_s": None if k is None else k.rate_per_s})}


def vectors() -> dict[str, Any]:
    return {"generated_by": "tools/serving_vectors.py", "prng": [prng_case(s) for s in SEEDS],
            "simulations": [simulation_case(c) for c in SIMULATIONS], "runs": [run_case(a) for a in RUNS],
            "sweeps": [sweep_case(a) for a in SWEEPS]}


def text() -> str:
    return compact(vectors())


def main() -> int:
    return write(OUT, text(), ROOT)


if __name__ == "__main__":
    sys.exit(main())
