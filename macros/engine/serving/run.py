"""One simulated run of one replica under a workload, as `gpu_math.py simulate` asks for it: the replica
and the engine's profile from the catalog, the fitted parameters from calibration.toml, the requests from
the arrival process, and the statistics the command prints (its --json keys).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..lookup import InputError, get_gpu, get_model
from ..model.placement import check_layout
from .adapters import AdapterMix
from .arrivals import Arrivals, ClosedLoop, Gamma, Offline, Poisson, Trace
from .calibration import band_for, params_for
from .kv_blocks import pool_blocks
from .lengths import Fixed, RangeRatio
from .metrics import Summary, summarize
from .profiles import LAUNCH_FLAGS, EngineProfile, launched, profile
from .replica import Replica, build_replica
from .sim import RequestStream, SimResult, simulate
from .step import StepParams

MIN_CLOSED_LOOP_REQUESTS = 200  # a closed loop runs ten requests per unit of concurrency, and at least this
REQUESTS_PER_CONCURRENCY = 10
OPEN_LOOP_REQUESTS = 1000
STATS = ("ttft_s", "tpot_s", "itl_s", "e2e_s", "queue_s")
JSON_KEYS = (
    "model", "gpu", "gpus", "layout", "ep", "engine", "launch", "weights_dtype", "kv_dtype", "kv_dtype_source",
    "arrivals",
    "input_tokens", "output_tokens", "prefix_hit_rate", *STATS, "output_tokens_per_s_per_gpu",
    "input_tokens_per_s_per_gpu", "requests_per_s", "mean_batch", "kv_occupancy", "kv_blocks", "preemptions",
    "requests", "warmup_requests", "seed", "tpot_band", "band_basis",
)


@dataclass(frozen=True)
class RunRequest:
    model: str
    gpu: str
    gpus: int
    input_tokens: int
    output_tokens: int
    engine: str = "vllm"
    layout: str = "tp"
    ep: int = 1
    weights: str | None = None
    kv: str | None = None
    concurrency: int | None = None
    rate_per_s: float | None = None
    burstiness: float | None = None  # coefficient of variation of the gaps (1: Poisson)
    trace: Trace | None = None
    range_ratio: float = 1.0  # 1: fixed lengths; 0.8: as the InferenceMAX client drew them
    prefix_hit_rate: float = 0.0  # share of each prompt's tokens already in the prefix cache
    requests: int | None = None
    seed: int = 0
    offline: int | None = None  # every one of this many requests queued at time 0
    # The engine's launch, where the run sets it (None: the engine's default, or the benchmark's launch):
    max_batch: int | None = None  # running sequences
    token_budget: int | None = None  # tokens per step
    chunked_prefill: bool | None = None
    kv_memory_fraction: float | None = None  # share of each GPU's memory the engine takes
    graph_max_batch: int | None = None  # the largest decode batch replayed from a captured CUDA graph
    # Unmerged LoRA adapters (0: none): the catalogue each request draws its adapter from, by a Zipf law of this
    # exponent, each of this rank, and the HBM the replica reserves for resident ones (serving/adapters.py)
    adapters: int = 0
    adapter_popularity: float = 0.0
    adapter_rank: int = 0
    adapter_slice_bytes: float = 0.0


def _arrivals(q: RunRequest) -> tuple[Arrivals, int, int]:
    """The arrival process, how many requests to run, and how many lead in before the statistics."""
    if sum(x is not None for x in (q.concurrency, q.rate_per_s, q.trace, q.offline)) != 1:
        raise InputError("give one of --concurrency, --rate, --trace or --offline")
    if q.offline is not None:  # throughput over the whole run, as the benchmark counts it: no warm-up left out
        return Offline(q.offline), q.offline, 0
    if q.concurrency is not None:
        n = q.requests or max(REQUESTS_PER_CONCURRENCY * q.concurrency, MIN_CLOSED_LOOP_REQUESTS)
        # The first wave (one request per slot, all sent at once) is the warm-up a steady state never sees.
        return ClosedLoop(q.concurrency), n, min(q.concurrency, n - 1)
    if q.trace is not None:
        n = min(q.requests or len(q.trace.arrivals_s), len(q.trace.arrivals_s))
        return q.trace, n, 0
    n = q.requests or OPEN_LOOP_REQUESTS
    process = Poisson(q.rate_per_s) if q.burstiness in (None, 1.0) else Gamma(q.rate_per_s, q.burstiness)
    return process, n, n // 10  # the first tenth fills an empty replica


def _finite(x: Any) -> Any:
    """JSON has no NaN or infinity: a statistic with no samples is null."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    return x if not isinstance(x, float) or math.isfinite(x) else None


@dataclass(frozen=True)
class Prepared:
    """Everything a run reads, resolved from the request and the data before anything is simulated: the
    replica (the model, the GPU and the formats as plain numbers), the engine's launch, the fitted parameters
    and the error band on that GPU. The simulation cache keys a run by this and by the code it runs."""

    request: RunRequest
    replica: Replica
    profile: EngineProfile
    params: StepParams
    band: tuple[float, float, str]
    weights: str
    kv: str


@dataclass(frozen=True)
class Simulated:
    """A run before its statistics are keyed for --json: the simulator's result and its summary, for a
    caller that wants more than the keys (the records, the busy time)."""

    result: SimResult
    summary: Summary
    arrivals: Arrivals
    weights: str
    kv: str
    profile: EngineProfile


def prepare(q: RunRequest) -> Prepared:
    """The replica, the engine's profile and the fitted parameters for `q`, checked (one line on bad input)."""
    m, g = get_model(q.model), get_gpu(q.gpu)
    check_layout(q.layout)
    weights = m.native_weights if q.weights is None else q.weights
    _arrivals(q)
    prof = launched(profile(q.engine, g.key, m.key, weights, q.concurrency),
                    **{flag: getattr(q, flag) for flag in LAUNCH_FLAGS})
    kv = q.kv or prof.kv
    mix = AdapterMix(q.adapters, q.adapter_popularity, q.adapter_rank, q.adapter_slice_bytes) if q.adapters else None
    replica = build_replica(m, g, q.gpus, q.layout, q.ep, weights, kv, mix)
    if pool_blocks(replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens < q.input_tokens:
        share = q.gpus * replica.memory_bytes * prof.memory_fraction
        raise InputError(f"{m.name} in {weights} holds {replica.weight_bytes_held / 1e9:.0f} GB of weights, which "
                         f"leaves no room for one {q.input_tokens}-token prompt's KV in the {share / 1e9:.0f} GB "
                         f"{prof.name} takes of {q.gpus} x {g.name}: use more --gpus")
    params = params_for(g.key, q.engine, replica.attention)
    return Prepared(q, replica, prof, params, band_for(q.gpu), weights, kv)


def simulate_prepared(p: Prepared) -> Simulated:
    """The simulated run of a prepared request."""
    q = p.request
    arrivals, n, warmup = _arrivals(q)
    lengths = (Fixed(q.input_tokens), Fixed(q.output_tokens)) if q.range_ratio == 1 else (
        RangeRatio(q.input_tokens, q.range_ratio), RangeRatio(q.output_tokens, q.range_ratio))
    result = simulate(p.replica, p.params, p.profile, RequestStream(arrivals, *lengths, n, q.seed, q.prefix_hit_rate))
    return Simulated(result, summarize(result, warmup), arrivals, p.weights, p.kv, p.profile)


def simulate_run(q: RunRequest) -> Simulated:
    """The replica, the engine's profile and the fitted parameters for `q`, and the simulated run."""
    return simulate_prepared(prepare(q))


def run(q: RunRequest | Prepared) -> dict[str, Any]:
    """The run's statistics, keyed as JSON_KEYS (SI units)."""
    p = q if isinstance(q, Prepared) else prepare(q)
    q = p.request
    sim = simulate_prepared(p)
    s, result = sim.summary, sim.result
    low, high, basis = p.band
    out = {
        "model": q.model, "gpu": q.gpu, "gpus": q.gpus, "layout": q.layout, "ep": q.ep, "engine": q.engine,
        "launch": {flag: getattr(sim.profile, name) for flag, name in LAUNCH_FLAGS.items()},
        "weights_dtype": sim.weights, "kv_dtype": sim.kv,
        "kv_dtype_source": "given with --kv" if q.kv else sim.profile.sources["kv"],
        "arrivals": type(sim.arrivals).__name__, "input_tokens": q.input_tokens, "output_tokens": q.output_tokens,
        "prefix_hit_rate": q.prefix_hit_rate,
        **{k: getattr(s, k) for k in STATS},
        "output_tokens_per_s_per_gpu": s.output_tokens_per_s / q.gpus,
        "input_tokens_per_s_per_gpu": s.input_tokens_per_s / q.gpus, "requests_per_s": s.requests_per_s,
        "mean_batch": s.mean_batch, "kv_occupancy": s.kv_occupancy, "kv_blocks": result.kv_blocks,
        "preemptions": s.preemptions, "requests": s.requests, "warmup_requests": s.warmup_requests, "seed": q.seed,
        "tpot_band": {"low": s.tpot_s["p50"] / high, "high": s.tpot_s["p50"] / low}, "band_basis": basis,
    }
    return _finite({k: out[k] for k in JSON_KEYS})
