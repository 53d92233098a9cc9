"""Chapter 11's data and its two kinds of practice problem.

The data: macros/data/topics/long_context.toml, the tiers below HBM (per GPU, one direction), the hybrid
architectures the chapter compares and what the eviction papers report, read and checked here once (a bad
value is one SpecError line naming the file, the entry and the field); the page model and the drawing read
it through tiers(), hybrids() and reported_figures().

The kinds: "kv-reload", the prompt length past which reloading a cached prefix from a tier beats
recomputing it (formulas.kv_tiers.reload_crossover_tokens), set either by the tier's latency (a tier faster
than the break-even bandwidth) or by attention's quadratic term (a slower one); and "long-prefill", a long
prompt's prefill on a context-parallel group, its time on g GPUs or the GPUs a time-to-first-token target
needs, with which term, the weights' or attention's, dominates.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import formulas as f
from ..formulas import kv_tiers as kt
from ..lookup import dtype_bytes, get_gpu, get_model, peak_flops
from ..model.scenario import scenario
from ..specs import DATA_DIR, SpecError, catalog, display_path, read_toml
from .base import Draw, Given, Solution, Value

PATH = DATA_DIR / "topics" / "long_context.toml"
NETWORK_CLAIM = "nic-bandwidth"  # claims.toml: the network tier's bandwidth, one 400 Gb/s port per GPU


@dataclass(frozen=True)
class Tier:
    key: str
    name: str
    bandwidth_bytes_per_s: float  # what one GPU pulls from it, one direction
    capacity_bytes: float | None  # one GPU's share; None for a pooled remote store
    latency_s: float
    source: str
    date: str


@dataclass(frozen=True)
class Hybrid:
    """A model whose attention changes the KV arithmetic: sliding-window layers with a global one every
    `global_every`, or attention every `attention_every` layers and Mamba layers between them."""
    key: str
    name: str
    layers: int
    query_heads: int
    kv_heads: int
    head_dim: int
    max_context: int
    source: str
    date: str
    sliding_window: int | None = None
    global_every: int | None = None
    attention_every: int | None = None
    hidden_size: int | None = None
    mamba_expand: int | None = None
    mamba_d_state: int | None = None
    mamba_d_conv: int | None = None
    reported_kv_bytes: float | None = None

    @property
    def window_layers(self) -> int:
        """Layers that keep only the last `sliding_window` tokens: all but every global_every-th."""
        return self.layers - self.layers // self.global_every if self.global_every else 0

    @property
    def attention_layers(self) -> int:
        return self.layers // self.attention_every if self.attention_every else self.layers


@dataclass(frozen=True)
class Reported:
    key: str
    value: float
    unit: str
    source: str
    date: str


# (field, low, high): the plausible band of each number; a count is a whole number too.
TIER_FIELDS = (("bandwidth_bytes_per_s", 1e8, 5e12), ("capacity_bytes", 1e9, 1e15), ("latency_s", 0.0, 1.0))
HYBRID_COUNTS = (("layers", 1, 1000), ("query_heads", 1, 1024), ("kv_heads", 1, 1024), ("head_dim", 8, 1024),
                 ("max_context", 1024, 100_000_000), ("sliding_window", 1, 1_000_000), ("global_every", 2, 64),
                 ("attention_every", 2, 64), ("hidden_size", 64, 100_000), ("mamba_expand", 1, 8),
                 ("mamba_d_state", 1, 1024), ("mamba_d_conv", 2, 16))
REPORTED_UNITS = {"tokens": (1, 1e9), "fraction": (0.0, 1.0), "times": (1.0, 1e4)}


def _number(where: str, field: str, value: Any, low: float, high: float, whole: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SpecError(f"{where} {field}: must be a finite number, got {value!r}")
    if whole and not isinstance(value, int):
        raise SpecError(f"{where} {field}: must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise SpecError(f"{where} {field}: {value!r} is outside the plausible {low:g} to {high:g}")
    return value


def _text(where: str, raw: dict[str, Any], field: str) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"{where} {field}: must be non-empty text, got {value!r}")
    return value


def _table(raw: dict[str, Any], name: str, file: str) -> dict[str, dict[str, Any]]:
    table = raw.get(name)
    if not isinstance(table, dict) or not table or not all(isinstance(v, dict) for v in table.values()):
        raise SpecError(f"{file}: [{name}] must hold one table per entry")
    return table


def _tier(key: str, raw: dict[str, Any], file: str) -> Tier:
    where = f"{file}: [tiers.{key}]"
    known = {"name", "source", "date"} | {field for field, _, _ in TIER_FIELDS}
    if unknown := sorted(set(raw) - known):
        raise SpecError(f"{where} {unknown[0]}: not a field of a tier")
    values = {field: _number(where, field, raw[field], low, high) for field, low, high in TIER_FIELDS if field in raw}
    if "latency_s" not in values:
        raise SpecError(f"{where} latency_s: missing")
    if "bandwidth_bytes_per_s" not in values:  # the network tier: one NIC per GPU, from claims.toml
        if key != "network":
            raise SpecError(f"{where} bandwidth_bytes_per_s: missing")
        values["bandwidth_bytes_per_s"] = catalog().claims[NETWORK_CLAIM].low
    return Tier(key, _text(where, raw, "name"), values["bandwidth_bytes_per_s"], values.get("capacity_bytes"),
                values["latency_s"], _text(where, raw, "source"), _text(where, raw, "date"))


def _hybrid(key: str, raw: dict[str, Any], file: str) -> Hybrid:
    where = f"{file}: [hybrids.{key}]"
    counts = {field: (low, high) for field, low, high in HYBRID_COUNTS}
    known = {"name", "source", "date", "reported_kv_bytes", *counts}
    if unknown := sorted(set(raw) - known):
        raise SpecError(f"{where} {unknown[0]}: not a field of a hybrid architecture")
    values = {field: _number(where, field, raw[field], *counts[field], whole=True) for field in counts if field in raw}
    for field in ("layers", "query_heads", "kv_heads", "head_dim", "max_context"):
        if field not in values:
            raise SpecError(f"{where} {field}: missing")
    if ("sliding_window" in values) != ("global_every" in values):
        raise SpecError(f"{where} sliding_window: a window needs global_every, and global_every a window")
    if values.get("sliding_window", 0) >= values["max_context"]:
        raise SpecError(f"{where} sliding_window: must be shorter than max_context")
    mamba = ("hidden_size", "mamba_expand", "mamba_d_state", "mamba_d_conv")
    if "attention_every" in values and not all(field in values for field in mamba):
        raise SpecError(f"{where} attention_every: Mamba layers need {', '.join(mamba)}")
    if "reported_kv_bytes" in raw:
        values["reported_kv_bytes"] = _number(where, "reported_kv_bytes", raw["reported_kv_bytes"], 1e6, 1e13)
    return Hybrid(key, _text(where, raw, "name"), source=_text(where, raw, "source"),
                  date=_text(where, raw, "date"), **values)


def _reported(key: str, raw: dict[str, Any], file: str) -> Reported:
    where = f"{file}: [reported.{key}]"
    unit = _text(where, raw, "unit")
    if unit not in REPORTED_UNITS:
        raise SpecError(f"{where} unit: {unit!r} is not one of {', '.join(REPORTED_UNITS)}")
    value = _number(where, "value", raw.get("value"), *REPORTED_UNITS[unit])
    return Reported(key, value, unit, _text(where, raw, "source"), _text(where, raw, "date"))


@functools.cache
def chapter_data(path: Path = PATH) -> tuple[dict[str, Tier], dict[str, Hybrid], dict[str, Reported]]:
    """The file read and checked: (tiers, hybrids, reported), each by key in the file's order."""
    raw, file = read_toml(path), display_path(path)
    return ({k: _tier(k, v, file) for k, v in _table(raw, "tiers", file).items()},
            {k: _hybrid(k, v, file) for k, v in _table(raw, "hybrids", file).items()},
            {k: _reported(k, v, file) for k, v in _table(raw, "reported", file).items()})


def tiers() -> dict[str, Tier]:
    return chapter_data()[0]


def hybrids() -> dict[str, Hybrid]:
    return chapter_data()[1]


def reported_figures() -> dict[str, Reported]:
    return chapter_data()[2]


# --- reload or recompute -------------------------------------------------------------------------------


def solve_reload(g: dict[str, Value]) -> Solution:
    """The prefix length past which reloading it from the tier is faster than recomputing it (a length in
    tokens, to three figures: a whole count would turn on the inputs' last digits).
    Each of the g GPUs pulls its 1/g of the KV (g <= H_kv: a rank holds whole KV heads) over its own link;
    recomputing runs 2 N_a FLOPs a token and 4 H_q d_h a causal pair and layer at η of the peak on g GPUs."""
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    achieved = g["efficiency"] * g["peak_flops"]
    reload_s = kv_token / g["gpus"] / g["bandwidth"]
    linear_s = 2 * g["active_params"] / (g["gpus"] * achieved)
    pair_flops = 4 * g["query_heads"] * g["head_dim"]  # per layer: Q.K and the weighted sum of V, 2 FLOPs a MAC
    pair_s = pair_flops * g["layers"] / (g["gpus"] * achieved)
    crossover = kt.reload_crossover_tokens(reload_s, g["latency"], linear_s, pair_s)
    break_even = kt.reload_break_even_bandwidth(kv_token / g["gpus"], 2 * g["active_params"] / g["gpus"], achieved)
    return dict(answer=crossover, unit="tokens",
                verdict="latency" if g["bandwidth"] > break_even else "attention",
                kv_per_token=kv_token, reload_s_per_token=reload_s, linear_s_per_token=linear_s, pair_s=pair_s,
                pair_flops=pair_flops, achieved=achieved, break_even=break_even, crossover=crossover)


RELOAD_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "qwen3-235b-a22b")  # GQA, no window
RELOAD_GPUS = ("h100", "h200", "b200", "gb200", "mi300x")
EFFICIENCIES = (0.4, 0.5, 0.6, 0.7)  # the achieved share of the dense peak, GEMMs and attention alike
WEIGHTS = ("bf16", "fp8")
MIN_CROSSOVER = 2  # tokens: a crossover below it asks nothing


def draw_reload(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights = get_model(rng.choice(RELOAD_MODELS)), get_gpu(rng.choice(RELOAD_GPUS)), rng.choice(WEIGHTS)
    tier = tiers()[rng.choice(sorted(tiers()))]
    gpus = scenario(m.key, gpu.key, weights=weights).gpus  # the fewest GPUs that hold the model
    if gpus > m.kv_heads:
        return None  # past H_kv ranks the KV heads replicate: the question keeps one copy
    exact = (Given("active_params", float(m.active), "params"), Given("layers", m.layers, "count"),
             Given("query_heads", m.query_heads, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", dtype_bytes(rng.choice(WEIGHTS)), "bytes"),
             Given("gpus", gpus, "count"), Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"),
             Given("efficiency", rng.choice(EFFICIENCIES), "fraction"),
             Given("bandwidth", tier.bandwidth_bytes_per_s, "B/s"), Given("latency", tier.latency_s, "s"))
    s = solve_reload({x.name: x.value for x in exact})
    if not MIN_CROSSOVER <= s["crossover"] <= m.max_context:
        return None  # under two tokens there is nothing to find; past the context, recomputing always wins
    want = ("latency", "attention")[n % 2]  # alternate what sets the crossover
    return Draw(want, exact, {"model": m.key, "gpu": gpu.key, "tier": tier.name},
                {"peak_flops": 4}) if s["verdict"] == want else None


# --- a long prompt's prefill ------------------------------------------------------------------------------


def solve_long_prefill(g: dict[str, Value]) -> Solution:
    """Prefill FLOPs 2 N_a s + 2 L H_q d_h s (s + 1) at η of the peak, split evenly over a context-parallel
    group: the time on g GPUs ("ttft"), or the fewest GPUs that meet a target ("gpus")."""
    linear = f.prefill_flops(g["active_params"], g["prompt"])
    attention = f.attention_flops_causal(g["layers"], g["query_heads"], g["head_dim"], g["prompt"])
    flops = f.prefill_flops(g["active_params"], g["prompt"], attention)
    achieved = g["efficiency"] * g["peak_flops"]
    overtakes = kt.attention_overtakes_tokens(g["active_params"], g["layers"], 4 * g["query_heads"] * g["head_dim"])
    out = dict(verdict="attention" if attention > linear else "weights", linear=linear, attention=attention,
               flops=flops, achieved=achieved, overtakes=overtakes, attention_share=attention / flops)
    if "target" in g:
        return dict(out, answer=kt.gpus_for_prefill(flops, g["target"], achieved), unit="GPUs")
    return dict(out, answer=f.compute_time_s(flops, g["gpus"], achieved), unit="s")


PREFILL_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b", "mixtral-8x22b")
PREFILL_GPUS = ("h100", "h200", "b200", "gb200", "mi300x")
PROMPTS = (32_768, 131_072, 262_144, 524_288, 1_048_576)  # past the trained context: the same geometry, extended
CP_GPUS = (8, 16, 32, 64)
TARGETS = (10.0, 30.0, 60.0, 120.0)


def draw_long_prefill(n: int, rng: random.Random) -> Draw | None:
    m, gpu, weights = get_model(rng.choice(PREFILL_MODELS)), get_gpu(rng.choice(PREFILL_GPUS)), rng.choice(WEIGHTS)
    variant = ("ttft", "gpus")[n % 2]
    last = (Given("gpus", rng.choice(CP_GPUS), "count") if variant == "ttft" else
            Given("target", rng.choice(TARGETS), "s"))
    exact = (Given("active_params", float(m.active), "params"), Given("layers", m.layers, "count"),
             Given("query_heads", m.query_heads, "count"), Given("head_dim", m.head_dim, "count"),
             Given("prompt", rng.choice(PROMPTS), "tokens"), Given("peak_flops", peak_flops(gpu, weights), "FLOP/s"),
             Given("efficiency", rng.choice(EFFICIENCIES), "fraction"), last)
    if variant == "gpus" and not 2 <= solve_long_prefill({x.name: x.value for x in exact})["answer"] <= 4096:
        return None  # one GPU asks nothing; past 4,096 no one gives a single prompt a group
    return Draw(variant, exact, {"model": m.key, "gpu": gpu.key}, {"peak_flops": 4})
