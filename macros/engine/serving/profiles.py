"""Engine profiles: what vLLM, SGLang, TensorRT-LLM and ATOM do differently, read from data/engines.toml.

An engine's defaults, overridden by the first of its [[launch]] tables that matches the GPU, the model
and the weights (the settings the measured runs were launched with), give one `EngineProfile`: the
scheduling policy, token budget, running cap, KV block size, CUDA-graph limit, admission interval,
preemption mode, default KV dtype and memory share, each with its source.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..lookup import InputError
from ..specs import DATA_DIR, SpecError, catalog, display_path, read_toml

PATH = DATA_DIR / "engines.toml"
POLICIES = ("mixed", "prefill-first")
PREEMPTIONS = ("recompute", "reserve")
DP_LIMITS = ("per-rank", "divided")
CONCURRENCY = "concurrency"  # a launch that sets a limit to the benchmark's concurrency
CHECKPOINT = "checkpoint"  # a KV dtype taken from the checkpoint's own quantisation (TensorRT-LLM's "auto")
QUANTISED_KV_CHECKPOINTS = ("fp8", "nvfp4")  # ModelOpt's FP8 and NVFP4 checkpoints also quantise the KV cache to FP8
_COUNTS = ("token_budget", "block_tokens")
_CAPS = ("max_running", "graph_max_batch")  # a count or "concurrency"
_SETTINGS = (*_COUNTS, *_CAPS, "policy", "chunked_prefill", "admission_interval_steps", "preemption", "kv",
             "memory_fraction", "prefix_caching", "dp_limits")
_ENGINE_FIELDS = {"name", "versions", "sources", "launch", *_SETTINGS}
_LAUNCH_FIELDS = {"gpus", "models", "weights", "source", *_SETTINGS} - {"policy", "dp_limits"}


@dataclass(frozen=True)
class EngineProfile:
    engine: str
    name: str
    policy: str
    chunked_prefill: bool
    token_budget: int
    max_running: int
    block_tokens: int
    graph_max_batch: int
    admission_interval_steps: int
    preemption: str
    kv: str
    memory_fraction: float
    prefix_caching: bool  # freed blocks stay in the cache until reused (a preempted sequence recomputes less)
    dp_limits: str  # under attention data parallelism: each rank's own budget and cap, or the replica's divided
    sources: Mapping[str, str]  # setting -> where its value comes from


def _problem(name: str, value: Any) -> str | None:
    """What is wrong with one setting's value, or None."""
    def count(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v > 0

    if name in _COUNTS and not count(value):
        return f"must be a positive whole number, got {value!r}"
    if name in _CAPS and not (count(value) or value == CONCURRENCY):
        return f"must be a positive whole number or {CONCURRENCY!r}, got {value!r}"
    if name == "policy" and value not in POLICIES:
        return f"must be one of {', '.join(POLICIES)}, got {value!r}"
    if name == "preemption" and value not in PREEMPTIONS:
        return f"must be one of {', '.join(PREEMPTIONS)}, got {value!r}"
    if name == "dp_limits" and value not in DP_LIMITS:
        return f"must be one of {', '.join(DP_LIMITS)}, got {value!r}"
    if name in ("chunked_prefill", "prefix_caching") and not isinstance(value, bool):
        return f"must be true or false, got {value!r}"
    if name == "kv" and value not in catalog().precisions and value != CHECKPOINT:
        return f"{value!r} is not a precisions.toml key or {CHECKPOINT!r}"
    if name == "memory_fraction" and not (isinstance(value, float) and 0 < value <= 1):
        return f"must be a number in (0, 1], got {value!r}"
    if name == "admission_interval_steps" and not (count(value) or (
            isinstance(value, list) and value and all(isinstance(p, list) and len(p) == 2 and count(p[0])
                                                      and count(p[1]) for p in value))):
        return f"must be a positive whole number or a list of [from_concurrency, steps] pairs, got {value!r}"
    return None


def _check(where: str, entry: str, table: dict[str, Any], known: set[str]) -> None:
    for name, value in table.items():
        if name not in known:
            raise SpecError(f"{where}: [{entry}] {name}: unknown field (known: {', '.join(sorted(known))})")
        problem = _problem(name, value)
        if problem:
            raise SpecError(f"{where}: [{entry}] {name}: {problem}")


@functools.lru_cache(maxsize=4)
def engines(path: Path = PATH) -> dict[str, dict[str, Any]]:
    """engines.toml, checked: every engine has every setting with a source, every launch a source."""
    where, raw = display_path(path), read_toml(path)
    for key, table in raw.items():
        if not isinstance(table, dict):
            raise SpecError(f"{where}: [{key}] must be a table")
        _check(where, key, table, _ENGINE_FIELDS)
        for name in _SETTINGS:
            if name not in table:
                raise SpecError(f"{where}: [{key}] {name}: missing field")
            if name not in table.get("sources", {}):
                raise SpecError(f"{where}: [{key}] sources: no source for {name}")
        for i, launch in enumerate(table.get("launch", [])):
            _check(where, f"{key}.launch #{i + 1}", launch, _LAUNCH_FIELDS)
            if "source" not in launch:
                raise SpecError(f"{where}: [{key}.launch #{i + 1}] source: missing field")
    return raw


def _matches(launch: dict[str, Any], gpu: str, model: str, weights: str) -> bool:
    return all(value in launch.get(key, [value]) for key, value in (("gpus", gpu), ("models", model),
                                                                     ("weights", weights)))


def _resolve(value: Any, concurrency: int | None, default: Any) -> int:
    """A cap of "concurrency" is the run's concurrency (the engine's default for an open-loop run);
    an interval list takes the last pair whose concurrency the run reaches."""
    if value == CONCURRENCY:
        return concurrency if concurrency is not None else _resolve(default, None, default)
    if isinstance(value, list):
        steps = value[0][1]
        for start, n in value:
            if concurrency is not None and concurrency >= start:
                steps = n
        return steps
    return value


def profile(engine: str, gpu: str, model: str, weights: str, concurrency: int | None = None) -> EngineProfile:
    """The engine as it runs `model` in `weights` on `gpu` (with the benchmark's launch settings where
    engines.toml has them), at `concurrency` for settings a launch ties to it."""
    table = engines()
    if engine not in table:
        raise InputError(f"unknown engine {engine!r}. Valid: {', '.join(table)}")
    base = table[engine]
    settings = {name: base[name] for name in _SETTINGS}
    sources = {name: f"{base['name']} default: {base['sources'][name]}" for name in _SETTINGS}
    launch = next((t for t in base.get("launch", []) if _matches(t, gpu, model, weights)), None)
    if launch is not None:
        for name in _SETTINGS:
            if name in launch:
                settings[name], sources[name] = launch[name], f"InferenceMAX launch: {launch['source']}"
    for name in (*_CAPS, "admission_interval_steps"):
        settings[name] = _resolve(settings[name], concurrency, base[name])
    if settings["kv"] == CHECKPOINT:
        settings["kv"] = "fp8" if weights in QUANTISED_KV_CHECKPOINTS else "bf16"
    return EngineProfile(engine=engine, name=base["name"], sources=sources, **settings)


def rank_limits(p: EngineProfile, ranks: int) -> tuple[int, int]:
    """(one rank's token budget, the replica's running cap) with `ranks` attention data-parallel ranks (1: the
    settings as they are). Each rank of vLLM or TensorRT-LLM schedules under its own budget and cap; SGLang
    divides its settings among them (engines.toml dp_limits), each rank keeping at least one."""
    if p.dp_limits == "divided":
        return max(p.token_budget // ranks, 1), max(p.max_running // ranks, 1) * ranks
    return p.token_budget, p.max_running * ranks


# The launch settings a command line may set, as `simulate`'s flags name them, and the profile's field each sets.
LAUNCH_FLAGS = {"max_batch": "max_running", "token_budget": "token_budget", "chunked_prefill": "chunked_prefill",
                "kv_memory_fraction": "memory_fraction", "graph_max_batch": "graph_max_batch"}


def launched(p: EngineProfile, **given: Any) -> EngineProfile:
    """The profile with the launch settings given (None: the engine's), each one's source saying so."""
    chosen = {LAUNCH_FLAGS[k]: v for k, v in given.items() if v is not None}
    if not chosen:
        return p
    sources = {**p.sources, **{name: "given on the command line" for name in chosen}}
    return dataclasses.replace(p, sources=sources, **chosen)
