"""MLPerf Inference's dense Llama results (data/measured/mlperf-inference-llama.json), as runs the serving
model can simulate: one replica of the system's `tp` GPUs, its engine launched as the submitter's config
says (precision, KV dtype, the running cap), serving the benchmark's requests.

Offline rows: every sample queued at time 0 and counted until the last completion, over at least 600 s
(data/measured/README.md), so the measured rate is the engine's steady rate with its batch as full as its
cap and its KV pool allow; the drain at the end is a few seconds of ten minutes. The simulation queues
OFFLINE_WAVES times the running cap and takes the tokens generated between the first and last quarter of the
finishes (`steady_output_tokens_per_s`), not the run's ramp or drain.

Server and Interactive rows: Poisson arrivals at the submitter's target rate, valid only if the p99 TTFT
and p99 TPOT stay inside the benchmark's bounds; the model's figure is the highest rate per replica that
keeps both (`server_query`); the fit compares it with the submitter's rate, cross-validated by system
(server_fit.py).

No API server: LoadGen calls the harness in its own process and hands it each sample already tokenised (the
benchmarks' datasets carry the prompts' token ids), and the harness drives the engine's own runtime (TensorRT-LLM's
executor, vLLM's engine) and returns token ids; nothing parses HTTP, tokenises, detokenises or streams. So a row is
charged none of the API server's costs (`without_api_server`), which the InferenceMAX runs, served over HTTP, carry.

Launch: the running cap from the row; the token budget, chunking, memory share, CUDA graphs and KV dtype from
the submitter's own config where data/measured/mlperf-launches.toml has it, else the engine's defaults.

Lengths: output tokens per sample are the row's own performance run's (its output tokens per second over its
samples per second, completed samples for a Server row: 128-129 for Llama 3.1 8B, 270-302 for Llama 2 70B,
626-658 for Llama 3.1 405B), else its accuracy run's, else the reference mean. Input tokens per sample are not
in the results files, so each benchmark's mean prompt is fitted beside the model's parameters, inside the band
its dataset's filters allow (serving/calibration.py, prompt_tokens), and calibrate shows how far the comparison
moves when it is scaled.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..serving.calibration import BY_NAME, PROMPT_TOKENS
from ..serving.capacity import CapacityQuery
from ..serving.step import StepParams
from ..specs import DATA_DIR, read_toml
from .measured import Run

PATH = DATA_DIR / "measured" / "mlperf-inference-llama.json"
LAUNCHES = DATA_DIR / "measured" / "mlperf-launches.toml"  # what the rows' own configs set, with their paths
TOLERANCE = 1.2  # the targets for MLPerf: within +-20 % (Offline tokens/s, the Server scenario's rate)
ENGINES = {"TensorRT-LLM": "trt", "vLLM": "vllm"}
PRECISIONS = {"fp8": "fp8", "fp4": "nvfp4"}  # MLPerf's fp4 on Blackwell is NVFP4 (NVIDIA's ModelOpt checkpoints)
BENCHMARKS = {  # benchmark name prefix -> models.toml key
    "llama2-70b": "llama-2-70b",
    "llama3.1-405b": "llama-3.1-405b",
    "llama3_1-405b": "llama-3.1-405b",
    "llama3.1-8b": "llama-3.1-8b",
}


@dataclass(frozen=True)
class Lengths:
    input_tokens: int  # the dataset's mean prompt, tokenised for the model: the fit's prior (the row is read with it)
    output_tokens: int  # the reference's mean output (a row's accuracy run replaces it)
    source: str


def without_api_server(p: StepParams, loadgen: bool | np.ndarray) -> StepParams:
    """The step's parameters for rows run by LoadGen's in-process harness (`loadgen`: per row, or one for all):
    the API server's latency, its cost per prompt token and its serial work per request are zero there."""
    if np.ndim(loadgen) == 0:
        return dataclasses.replace(p, request_overhead_s=0.0, prompt_token_overhead_s=0.0, api_request_s=0.0) \
            if loadgen else p
    keep = np.where(loadgen, 0.0, 1.0)
    return dataclasses.replace(p, request_overhead_s=p.request_overhead_s * keep,
                               prompt_token_overhead_s=p.prompt_token_overhead_s * keep,
                               api_request_s=p.api_request_s * keep)


def _prior(model: str) -> int:
    return round(BY_NAME[PROMPT_TOKENS].band(model)[0])


# Each benchmark's mean lengths: the outputs as MLCommons' references give them; the inputs are not published, so
# each is a fitted parameter (serving/calibration.py, prompt_tokens) and the row carries its prior until the fit
# replaces it (fitting.as_fitted).
LENGTHS = {
    "llama-2-70b": Lengths(_prior("llama-2-70b"), 294, "output: language/llama2-70b/README.md, 294.45 tokens per "
                           "sample"),
    "llama-3.1-405b": Lengths(_prior("llama-3.1-405b"), 685, "output: the reference's 684.68 tokens per sample"),
    "llama-3.1-8b": Lengths(_prior("llama-3.1-8b"), 128, "output: the 128-token cap (max_tokens), which the rows' "
                            "own runs show the summaries reach"),
}


def _model(benchmark: str) -> str | None:
    return next((m for prefix, m in BENCHMARKS.items() if benchmark.startswith(prefix)), None)


def _excluded(p: dict, launch: dict) -> str:
    """Why the model cannot simulate this row as it ran, or ""."""
    if "excluded" in launch:
        return launch["excluded"]
    if p["engine"] not in ENGINES:
        return f"engine {p['engine']} has no profile"
    if p["tp"] is None or p["pp"] is None:
        return "the submitter's parallelism is not published"
    if p["pp"] > 1:
        return f"pipeline parallelism ({p['pp']} stages) is not modelled"
    if p["precision"] is None:
        return "the precision is not stated"
    if p["precision"] not in PRECISIONS:
        return "mixed precision (FP4 in selected layers only)"
    if _model(p["benchmark"]) is None:
        return f"benchmark {p['benchmark']}"
    return ""


def _launch(table: dict | None) -> tuple:
    """A launch table as simulate's flags: the token budget, chunking, memory share, and CUDA graphs off (a
    harness that runs eagerly captures no decode batch), unless the harness schedules several steps at once,
    which hides an eager decode step's launches behind the GPU's work as a graph would."""
    if not table:
        return ()
    flags = {k: table[k] for k in ("token_budget", "chunked_prefill") if k in table}
    if "memory_fraction" in table:
        flags["kv_memory_fraction"] = table["memory_fraction"]
    if table.get("graphs") is False and table.get("scheduler_steps", 1) == 1:
        flags["graph_max_batch"] = 0
    return tuple(flags.items())


def _run_tokens_per_sample(p: dict) -> float | None:
    """Output tokens per sample in the row's performance run: its tokens/s over its samples/s (completed samples, for
    a Server row, since its tokens/s counts the completed ones); None where the row lacks either."""
    samples = p.get("completed_samples_per_s") or p.get("samples_per_s")
    return p["result_tokens_per_s"] / samples if samples and p.get("result_tokens_per_s") else None


def _run(p: dict, launches: dict) -> Run:
    model = _model(p["benchmark"]) or p["benchmark"]
    lengths = LENGTHS.get(model, Lengths(0, 0, ""))
    output = round(_run_tokens_per_sample(p) or p.get("accuracy_run_tokens_per_sample") or lengths.output_tokens)
    excluded = _excluded(p, launches.get(p["id"], {}))
    engine = ENGINES.get(p["engine"], p["engine"])
    weights = PRECISIONS.get(p["precision"] or "", p["precision"] or "")
    tp = p["tp"] or 0
    scenario = p["scenario"].lower()
    # A series is one system serving one model: cross-validation leaves it out whole, every scenario of it.
    series = f"mlperf/{p['round']}/{p['submitter']}/{p['system_id']}/{model}"
    return Run(
        id=p["id"], series=series if not excluded else "", gpu=p["accelerator"], model=model, engine=engine,
        weights=weights, tp=tp, ep=1, layout="tp", isl=lengths.input_tokens, osl=output,
        concurrency=p["max_batch_per_engine"] or 0, median_tpot_s=float("nan"), p99_tpot_s=float("nan"),
        median_ttft_s=float("nan"), p99_ttft_s=float("nan"),
        output_tokens_per_s_per_gpu=p["result_tokens_per_s_per_gpu"], excluded=excluded, scenario=scenario,
        kv=launches.get(p["id"], {}).get("kv", p["kv_cache_dtype"]), source="mlperf",
        rate_per_replica=p["target_qps"] * tp / p["accelerators_per_system"],
        ttft_p99_bound_s=p.get("ttft_bound_p99_s") or 0.0, tpot_p99_bound_s=p.get("tpot_bound_p99_s") or 0.0,
        submitter=p["submitter"], launch=_launch(launches.get(p["id"])))


@functools.lru_cache(maxsize=2)
def mlperf_runs(path: Path = PATH) -> tuple[Run, ...]:
    """Every row, mapped; rows the model cannot simulate carry the reason."""
    launches = read_toml(LAUNCHES)
    return tuple(_run(p, launches) for p in json.loads(path.read_text())["points"])


def steady_output_tokens_per_s(records: list, low: float = 0.25, high: float = 0.75) -> float:
    """Output tokens per second while the batch is full: the tokens generated between the `low` and `high`
    quantiles of the finish times, over that stretch. (An offline benchmark of ten minutes or more barely sees
    its drain; a simulation of a few waves would.) A request's first token comes at its TTFT and the rest evenly
    until its finish. Generated tokens, not finished requests' tokens: requests of one length queued together
    finish in clumps a wave apart, and a window that opens at the end of one clump and closes at the start of
    another counts one clump fewer than it spans (three waves of four 10-token requests read 3 tokens/s for 4)."""
    ends = sorted(r.arrival_s + r.e2e_s for r in records)
    a, b = int(low * len(ends)), int(high * len(ends))
    if b <= a + 1 or ends[b] <= ends[a]:
        return float("nan")
    start, stop = ends[a], ends[b]
    tokens = 0.0
    for r in records:
        first, last = r.arrival_s + r.ttft_s, r.arrival_s + r.e2e_s
        tokens += start <= first < stop
        if r.output_tokens > 1 and last > first:
            tokens += (r.output_tokens - 1) * max(0.0, min(last, stop) - max(first, start)) / (last - first)
    return tokens / (stop - start)


SERVER_REQUESTS = 1500  # a Server check's run: enough for a p99 of 15 requests
# The bisection's bracket on a Server row's rate: the answer, its lower end, lies at most this share below the
# highest rate that meets the bounds (at 5 % the figures sat 2.5 % low on average, a bias the comparison does not need).
SERVER_TOLERANCE = 0.02


def server_query(r: Run) -> CapacityQuery:
    """A Server or Interactive row as a capacity query: the highest Poisson rate per replica at which the
    simulated p99 TTFT and p99 TPOT stay inside the benchmark's bounds, the engine launched with the row's
    running cap and, where mlperf-launches.toml has the submitter's config, its token budget and chunking."""
    launch = ((("max_batch", r.concurrency),) if r.concurrency else ()) + r.launch
    return CapacityQuery(model=r.model, gpu=r.gpu, gpus=r.tp, prompt_tokens=r.isl, output_tokens=r.osl,
                         ttft_target_s=r.ttft_p99_bound_s, tpot_target_s=r.tpot_p99_bound_s, percentile=99,
                         weights=r.weights, kv=r.kv, engine=r.engine, requests=SERVER_REQUESTS,
                         relative_tolerance=SERVER_TOLERANCE, launch=launch)
