"""The serving model's fitted parameters: what they are, their physical bounds, and the values
`make calibrate` wrote to data/calibration.toml (ARCHITECTURE.md, the serving model).

Each parameter has a scope. Per GPU family (Hopper, Blackwell, CDNA 3, CDNA 4): the achieved fractions of
bandwidth and of the peaks, the collective's latency and a layer's fixed cost, properties of the hardware
and its kernels; an MLA-and-MoE layer's fixed cost is a GQA one's times a ratio per family (it launches
more kernels), so a family measured on one kind of layer still prices the other. Per engine: the share of
those compute fractions its own kernels reach (a fraction in use is the family's times the engine's, so
still in (0, 1]), the fixed cost of a step, the extra per layer of a step no CUDA graph captures, the work
per sequence in a step, and the API server's latency per request and per prompt token: properties of the
software. A GPU with no measured runs takes its family's values, and its band says so.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..lookup import InputError
from ..specs import DATA_DIR, SpecError, display_path, read_toml
from .families import family_of
from .names import ENGINES, FAMILIES
from .step import StepParams

PATH = DATA_DIR / "calibration.toml"


@dataclass(frozen=True)
class Parameter:
    name: str
    scope: str  # "family", "engine" or "global"
    start: float  # the fit's starting value, and the prior it is held near where the data says little
    low: float
    high: float
    meaning: str


PARAMETERS = (
    Parameter("bw_fraction", "family", 0.7, 0.05, 1.0, "achieved share of the memory bandwidth"),
    Parameter("gemm_fraction", "family", 0.5, 0.02, 1.0, "achieved share of the dense peak in the GEMMs' format"),
    Parameter("moe_fraction", "family", 0.3, 0.02, 1.0, "achieved share of the peak in the experts' format"),
    Parameter("attn_fraction", "family", 0.3, 0.02, 1.0, "achieved share of the peak in the KV cache's dtype"),
    Parameter("link_latency_s", "family", 2e-6, 0.0, 50e-6,
              "latency of one hop of a collective: a ring all-reduce over g GPUs takes 2 (g - 1)"),
    Parameter("layer_overhead_s", "family", 30e-6, 0.0, 500e-6,
              "fixed cost of one GQA layer in a captured step: its kernels' minimum time"),
    Parameter("mla_layer_ratio", "family", 2.0, 0.2, 10.0, "an MLA-and-MoE layer's fixed cost over a GQA one's"),
    Parameter("kernel_fraction", "engine", 1.0, 0.05, 1.0,
              "share of the family's achieved compute fractions the engine's own kernels reach"),
    Parameter("step_overhead_s", "engine", 300e-6, 0.0, 20e-3, "fixed cost of one step: scheduling, launch"),
    Parameter("sequence_overhead_s", "engine", 10e-6, 0.0, 1e-3,
              "fixed cost per sequence in a step: its scheduling, sampling and output handling"),
    Parameter("eager_layer_overhead_s", "engine", 30e-6, 0.0, 1e-3,
              "extra cost per layer of a step no CUDA graph captures (prefill, or a batch past the limit)"),
    Parameter("request_overhead_s", "engine", 20e-3, 0.0, 0.5,
              "the API server's latency per request, before the scheduler sees it"),
    Parameter("prompt_token_overhead_s", "engine", 2e-6, 0.0, 50e-6,
              "the API server's time per prompt token before the scheduler sees the request (tokenising)"),
)
BY_NAME = {p.name: p for p in PARAMETERS}


def scopes(p: Parameter) -> tuple[str, ...]:
    return {"family": FAMILIES, "engine": ENGINES, "global": ("all",)}[p.scope]


def slots() -> list[tuple[str, str]]:
    """Every (parameter, scope key) the fit has a value for, in a fixed order."""
    return [(p.name, key) for p in PARAMETERS for key in scopes(p)]


def step_params(values: dict[tuple[str, str], Any], family: Any, engine: Any, attention: Any) -> StepParams:
    """The parameters one replica runs with, from per-scope values. `family`, `engine` and `attention`
    may be arrays (one per configuration), and then so is every field."""
    def pick(name: str, keys: Any) -> Any:
        if isinstance(keys, str):
            return values[(name, keys)]
        import numpy as np

        return np.array([values[(name, k)] for k in keys])

    layer = pick("layer_overhead_s", family)
    ratio = pick("mla_layer_ratio", family)
    if isinstance(attention, str):
        layer = layer * (ratio if attention == "mla" else 1.0)
    else:
        import numpy as np

        layer = layer * np.where(np.asarray(attention) == "mla", ratio, 1.0)
    kernels = pick("kernel_fraction", engine)  # the engine's kernels: a share of what the family achieves
    return StepParams(
        bw_fraction=pick("bw_fraction", family), gemm_fraction=pick("gemm_fraction", family) * kernels,
        moe_fraction=pick("moe_fraction", family) * kernels, attn_fraction=pick("attn_fraction", family) * kernels,
        link_latency_s=pick("link_latency_s", family), step_overhead_s=pick("step_overhead_s", engine),
        sequence_overhead_s=pick("sequence_overhead_s", engine),
        layer_overhead_s=layer, eager_layer_overhead_s=pick("eager_layer_overhead_s", engine),
        request_overhead_s=pick("request_overhead_s", engine),
        prompt_token_overhead_s=pick("prompt_token_overhead_s", engine))


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
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not p.low <= v <= p.high:
                raise SpecError(f"{where}: [parameters.{p.name}] {key}: {v!r} is not a number in "
                                f"[{p.low:g}, {p.high:g}]")
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
    rests on: the GPU's own runs, or its family's when it has none."""
    cal = cal or calibration()
    fam = family_of(gpu).key
    if gpu in cal.measured_gpus and gpu in cal.bands:
        return (*cal.bands[gpu], "its own measured runs")
    low, high = cal.bands.get(fam, (float("nan"), float("nan")))
    return low, high, f"its family's ({fam}): {gpu} has no measured runs"
