"""The serving model's fitted parameters: what each means, its prior and plausible band from published
measurements, and the values `make calibrate` wrote to data/calibration.toml (ARCHITECTURE.md, the serving
model).

Per GPU family (Hopper, Blackwell, CDNA 3, CDNA 4), properties of the hardware and its libraries: the
achieved share of memory bandwidth, of the dense GEMM peak and of the attention peak; a collective's latency
per hop; a layer's fixed cost in a captured step. Shared by every family and engine: the grouped (MoE) GEMMs'
efficiency as a share of the dense GEMMs', an MLA-and-MoE layer's fixed cost over a GQA one's, the extra per
layer of a step no CUDA graph captures, the API server's time per prompt token. Per engine (vLLM, SGLang,
TensorRT-LLM, ATOM), properties of the software: the share of the family's compute its kernels reach, a
layer's fixed cost as a factor on the family's (how far it fuses the layer's small kernels), the fixed cost of a
step, its work per sequence in a step, and the API server's latency per request. A GPU with
no measured runs takes its family's values, and its band says so. Per MLPerf benchmark, one property of the
measurement rather than of the model: its dataset's mean prompt, which MLCommons does not publish (it sets no
step's time; the fit reads it from how much prefill the rows carry).

The fit moves each value inside its band, pulled towards its prior (fitting.PRIOR_WEIGHT); a value at
an edge of its band is reported as a finding, not a result.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..formulas._array import minimum
from ..lookup import InputError
from ..specs import DATA_DIR, SpecError, display_path, read_toml
from .families import family_of
from .names import BENCHMARKS, ENGINES, FAMILIES
from .step import StepParams

PATH = DATA_DIR / "calibration.toml"


@dataclass(frozen=True)
class Parameter:
    name: str
    scope: str  # "family", "engine", "benchmark" or "global"
    start: float  # the prior: the fit starts here, and is held near it where the data says little
    low: float  # the plausible band: published measurements put the value inside it
    high: float
    meaning: str
    prior: str = ""  # where the prior and the band come from
    fixed: tuple[str, ...] = ()  # scope keys held at the prior: a reference, or a value the data cannot pin
    why_fixed: str = ""
    per_key: tuple[tuple[str, float, float, float], ...] = ()  # (key, start, low, high) where each key has its own

    def band(self, key: str) -> tuple[float, float, float]:
        """The prior and plausible band of the value for scope key `key`: (start, low, high)."""
        return next(((s, lo, hi) for k, s, lo, hi in self.per_key if k == key), (self.start, self.low, self.high))


PARAMETERS = (
    Parameter("bw_fraction", "family", 0.85, 0.65, 0.96, "achieved share of the memory bandwidth",
              "copy kernels read 0.87-0.93 of GH200's HBM3 bandwidth; 4.2 of MI300X's 5.3 TB/s (0.79) is the best "
              "reported; B200's bus gives 7.67 of the 8 TB/s on its datasheet (pytorch/ao PR 4002)"),
    Parameter("gemm_fraction", "family", 0.7, 0.25, 0.85, "achieved share of the dense peak in the GEMMs' format",
              "measured large GEMMs: H100 0.80 of BF16 and 0.73 of FP8 (stas00/ml-engineering @744d01e1; DeepGEMM "
              "1,550 FP8 TFLOPS on H800), B200 0.75-0.77, MI300X 0.54 BF16 and 0.49 FP8 (ROCm blog, Feb 2025), "
              "MI355X 0.63 BF16 (HipKittens); serving shapes are smaller, so lower. The floor: MI300X's MLPerf Llama 2 "
              "70B Offline rows (vLLM, v4.1) deliver about 2,900 output tokens/s per GPU, about 0.25 of its FP8 peak "
              "over whole steps at 140 GFLOP a token and 1.5 tokens computed per token output; a higher floor could "
              "not reproduce a published result"),
    Parameter("attn_fraction", "family", 0.5, 0.15, 0.8, "achieved share of the peak in the KV cache's dtype",
              "FlashAttention-3 reaches 0.75 of H100's BF16 peak and 0.58 of its FP8 peak, FlashAttention-4 0.71 "
              "of B200's, AITER about 0.5 of MI355X's; decode kernels padded to tiles reach less"),
    Parameter("link_latency_s", "family", 0.6e-6, 0.15e-6, 5e-6,
              "latency of one hop of a collective: a ring all-reduce over g GPUs takes 2 (g - 1)",
              "a small all-reduce over 8 GPUs takes 5-8 us on NVLink (SGLang's custom all-reduce on H100; NCCL "
              "on GB200), about 12 us over xGMI: 14 hops of 0.4-0.9 us; with baseline RCCL on MI300X the "
              "all-reduce takes up to 30 % of an LLM's inference latency (Meta's RCCLX post, 2026-02), tens of us "
              "a decode all-reduce: up to about 5 us a hop"),
    Parameter("layer_overhead_s", "family", 30e-6, 5e-6, 150e-6,
              "fixed cost of one GQA layer in a captured step: its kernels' minimum time",
              "a decoder layer runs 8-15 kernels of at least 2-5 us each, about 1 us apart in a graph replay"),
    Parameter("grouped_gemm_ratio", "global", 0.75, 0.3, 1.0,
              "the experts' grouped GEMMs' efficiency over the dense GEMMs' (few rows per expert)",
              "DeepGEMM's grouped FP8 GEMMs on H800 reach about 0.65 of peak in prefill and 0.5 in decode, "
              "against 0.73 for its dense GEMMs"),
    Parameter("mla_layer_ratio", "global", 2.0, 1.0, 5.0, "an MLA-and-MoE layer's fixed cost over a GQA one's",
              "an MLA-and-MoE layer launches about twice the kernels of a GQA layer (routing, the latent "
              "projections, the expert dispatch)"),
    Parameter("eager_layer_overhead_s", "global", 40e-6, 5e-6, 200e-6,
              "extra cost per layer of a step no CUDA graph captures (prefill, or a batch past the limit)",
              "a kernel launch from Python costs 4-10 us of host time; a layer launches 8-15"),
    Parameter("prompt_token_overhead_s", "global", 1e-6, 0.05e-6, 20e-6,
              "the API server's time per prompt token before the scheduler sees the request (tokenising)",
              "Hugging Face's fast tokenizers process about 0.5-5 million tokens per second per core"),
    Parameter("kernel_fraction", "engine", 1.0, 0.5, 2.0,
              "the engine's kernels' compute relative to vLLM's, as a factor on its family's achieved fractions "
              "(their product is at most 1)",
              "engines ship different GEMM, attention and MoE kernels for the same GPU; their published "
              "comparisons differ by up to about 2x either way",
              fixed=("vllm",), why_fixed="the reference: a family's fractions are what vLLM's kernels reach, since "
              "scaling every engine up and every family down by one factor predicts the same"),
    Parameter("layer_factor", "engine", 1.0, 0.3, 3.0,
              "the engine's fixed cost per layer relative to vLLM's, as a factor on its family's",
              "engines fuse a layer's small kernels differently (TensorRT-LLM's fused attention and MLP epilogues, "
              "SGLang's and vLLM's torch.compile'd graphs); a decode layer runs 8-15 kernels in vLLM, fewer fused",
              fixed=("vllm",), why_fixed="the reference, as for the kernels' factor"),
    Parameter("step_overhead_s", "global", 0.3e-3, 0.05e-3, 3e-3, "the host's work per step: scheduling, launch",
              "vLLM's 2024 profile put scheduling at 29 % of a Llama 8B step on H100; with asynchronous or overlap "
              "scheduling (vLLM, SGLang) the exposed gap is about 0.2 ms, 1-2 ms without",
              fixed=("all",), why_fixed="no measured run shows it: the host's work overlaps the GPU's and is "
              "shorter in every run, so the predictions do not move with it"),
    Parameter("sequence_overhead_s", "global", 10e-6, 1e-6, 100e-6,
              "the host's work per sequence in a step: its scheduling, sampling and output handling",
              "a Python scheduler handles a sequence in 5-50 us per step",
              fixed=("all",), why_fixed="as the step's: hidden behind the GPU's work in every measured run"),
    Parameter("prompt_tokens", "benchmark", 0, 0, 0,
              "an MLPerf dataset's mean prompt, in the model's tokens: it sets how much of each row's work is prefill",
              "MLCommons publishes no mean input length for these datasets, only their filters and output means "
              "(language/*/README.md in mlcommons/inference). Llama 2 70B: OpenOrca's GPT-4 questions with their "
              "system prompts, kept under 1,024 tokens. Llama 3.1 8B: CNN/DailyMail articles, about 780 words on "
              "average (See et al., 2017), in a summarising prompt, at most 2,540 tokens in NVIDIA's engines. "
              "Llama 3.1 405B: long-context tasks up to 20,000 tokens. Fitted on every system's rows of the "
              "benchmark at once; a system left out is predicted with the value the others give",
              per_key=(("llama-2-70b", 600, 150, 1000), ("llama-3.1-8b", 1000, 700, 1600),
                       ("llama-3.1-405b", 9000, 4000, 16000))),
    Parameter("api_request_s", "global", 5e-3, 1e-3, 20e-3,
              "the API server's serial work per request (parsing, detokenising and streaming its output, HTTP): one "
              "process does it for the replica, so the replica takes at most 1 / this requests a second",
              "vLLM's one API-server process held back two data-parallel engines of Llama 3.2 1B at 120 requests/s "
              "of ShareGPT, the reason for --api-server-count (vllm-project/vllm PR 17546, May 2025): about 5-8 ms "
              "of a core per request; only a replica taking over 100 requests a second comes near it",
              fixed=("all",), why_fixed="no measured run is near its cap: MLPerf's harnesses, the only runs at over "
              "100 requests a second per GPU, have no API server (calibration/mlperf.py), and below its cap it "
              "adds to TTFT only what the engines' request latencies add, so the runs cannot tell the two apart"),
    Parameter("request_overhead_s", "engine", 20e-3, 1e-3, 200e-3,
              "the API server's latency per request, before the scheduler sees it",
              "an OpenAI-compatible HTTP front end adds 5-50 ms per request (vLLM's 2024 profile: the API "
              "server took a third of the time)"),
)
BY_NAME = {p.name: p for p in PARAMETERS}
PROMPT_TOKENS = "prompt_tokens"  # a property of MLPerf's datasets, not of a step: calibration/fitting.py applies it


def scopes(p: Parameter) -> tuple[str, ...]:
    return {"family": FAMILIES, "engine": ENGINES, "benchmark": BENCHMARKS, "global": ("all",)}[p.scope]


def slots() -> list[tuple[str, str]]:
    """Every (parameter, scope key) the fit has a value for, in a fixed order."""
    return [(p.name, key) for p in PARAMETERS for key in scopes(p)]


def fitted_slots() -> list[tuple[str, str]]:
    """The slots the fit moves: every one but those held at their prior."""
    return [(name, key) for name, key in slots() if key not in BY_NAME[name].fixed]


def step_params(values: dict[tuple[str, str], Any], family: Any, engine: Any, attention: Any) -> StepParams:
    """The parameters one replica runs with, from per-scope values. `family`, `engine` and `attention`
    may be arrays (one per configuration), and then so is every field."""
    def pick(name: str, keys: Any) -> Any:
        if BY_NAME[name].scope == "global":  # one value for every family and engine
            return values[(name, "all")]
        if isinstance(keys, str):
            return values[(name, keys)]
        import numpy as np

        return np.array([values[(name, k)] for k in keys])

    layer = pick("layer_overhead_s", family) * pick("layer_factor", engine)
    ratio = values[("mla_layer_ratio", "all")]
    if isinstance(attention, str):
        layer = layer * (ratio if attention == "mla" else 1.0)
    else:
        import numpy as np

        layer = layer * np.where(np.asarray(attention) == "mla", ratio, 1.0)
    kernels = pick("kernel_fraction", engine)  # the engine's kernels: a share of what the family achieves
    gemm = minimum(pick("gemm_fraction", family) * kernels, 1.0)
    return StepParams(
        bw_fraction=pick("bw_fraction", family), gemm_fraction=gemm,
        moe_fraction=gemm * pick("grouped_gemm_ratio", family),
        attn_fraction=minimum(pick("attn_fraction", family) * kernels, 1.0),
        link_latency_s=pick("link_latency_s", family), step_overhead_s=pick("step_overhead_s", engine),
        sequence_overhead_s=pick("sequence_overhead_s", engine),
        layer_overhead_s=layer, eager_layer_overhead_s=values[("eager_layer_overhead_s", "all")],
        request_overhead_s=pick("request_overhead_s", engine),
        prompt_token_overhead_s=values[("prompt_token_overhead_s", "all")],
        api_request_s=values[("api_request_s", "all")])


@dataclass(frozen=True)
class Calibration:
    values: dict[tuple[str, str], float]
    data_sha256: str
    date: str
    measured_gpus: tuple[str, ...]  # GPUs with runs in the fitted file
    bands: dict[str, tuple[float, float]]  # family or GPU -> (p10, p90) of the cross-validated TPOT ratio,
    # predicted / measured
    raw: dict[str, Any]

    @property
    def measured_models(self) -> tuple[str, ...]:
        """The models with runs in the fitted file (the cross-validation's by-model keys), sorted."""
        return tuple(sorted(self.raw.get("cross_validation", {}).get("by_model", {})))

    @functools.cached_property
    def models_by_gpu(self) -> dict[str, frozenset[str]]:
        """The models of the fitted runs (series "gpu/model/...") on each GPU: read once, since every run a build
        names asks for its GPU's (a scan of every run each time was a tenth of naming a run)."""
        by: dict[str, set[str]] = {}
        for run in self.raw.get("run", []):
            gpu, model = run["series"].split("/")[:2]
            by.setdefault(gpu, set()).add(model)
        return {gpu: frozenset(models) for gpu, models in by.items()}

    def models_on(self, gpus: set[str]) -> tuple[str, ...]:
        """The models whose fitted runs are on one of `gpus`, sorted."""
        return tuple(sorted(set().union(*(self.models_by_gpu.get(g, ()) for g in gpus))))


@functools.lru_cache(maxsize=2)
def calibration(path: Path = PATH) -> Calibration:
    """data/calibration.toml, checked: every parameter in every scope, inside its bounds."""
    where, raw = display_path(path), read_toml(path)
    values: dict[tuple[str, str], float] = {}
    for p in PARAMETERS:
        table = raw.get("parameters", {}).get(p.name)
        if not isinstance(table, dict):
            raise SpecError(f"{where}: [parameters.{p.name}] missing: run `make calibrate`")
        for key in scopes(p):
            v = table.get(key)
            start, low, high = p.band(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
                raise SpecError(f"{where}: [parameters.{p.name}] {key}: {v!r} is not a number in "
                                f"[{low:g}, {high:g}]")
            if key in p.fixed and v != start:
                raise SpecError(f"{where}: [parameters.{p.name}] {key}: {v!r} should be held at its prior "
                                f"{start:g}: run `make calibrate`")
            values[(p.name, key)] = float(v)
    meta = raw.get("data", {})
    bands = {key: tuple(t["tpot_ratio_p10_p90"]) for key, t in raw.get("band", {}).items()}
    return Calibration(values, meta.get("sha256", ""), meta.get("date", ""), tuple(meta.get("gpus", ())), bands, raw)


def params_for(gpu: str, engine: str, attention: str, cal: Calibration | None = None) -> StepParams:
    """The fitted parameters for `engine` serving a model with `attention` ("mla" or "gqa") on `gpu`."""
    cal = cal or calibration()
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}. Valid: {', '.join(ENGINES)}")
    return step_params(cal.values, family_of(gpu).key, engine, attention)


def band_for(gpu: str, cal: Calibration | None = None) -> tuple[float, float, str]:
    """(p10, p90) of the cross-validated ratio predicted / measured median TPOT on this GPU, and what it
    rests on: the GPU's own runs, or its family's when it has none, and of which models."""
    cal = cal or calibration()
    family = family_of(gpu)
    if gpu in cal.measured_gpus and gpu in cal.bands:
        return (*cal.bands[gpu], f"its own runs of {' and '.join(cal.models_on({gpu}))}")
    low, high = cal.bands.get(family.key, (float("nan"), float("nan")))
    models = " and ".join(cal.models_on(set(family.gpus)))
    return low, high, f"its family's ({family.key}) runs of {models}: {gpu} has none"
