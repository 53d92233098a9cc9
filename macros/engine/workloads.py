"""Worked inputs shared by pages, tables and drawings (data/workloads.toml), loaded once."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

from .rules import shown
from .specs import DATA_DIR, SpecError, catalog, display_path, read_toml

PATH = DATA_DIR / "workloads.toml"


def _check(where: str, value: Any) -> None:
    """A worked input is a key (a string), a positive number, or a non-empty list of positive numbers
    or of keys."""
    if isinstance(value, str) or (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        return
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf for v in items):
        raise SpecError(f"{where}: must be a key, a finite positive number or a list of them, got {shown(value)}")


def load_workloads(path: Path = PATH) -> dict[str, Any]:
    """Load and check the worked inputs: numbers positive, keys that name models and GPUs known."""
    raw = read_toml(path)
    for key, value in raw.items():
        _check(f"{display_path(path)}: {key}", value)
    cat = catalog()
    for key in ("model", "mla_model", "moe_model", "load_model"):
        if raw.get(key) not in cat.models:
            raise SpecError(f"{display_path(path)}: {key}: unknown model {raw.get(key)!r}")
    for key in ("gpu", "headline_gpu", "decode_gpu", "compared_gpu", "load_gpu"):
        if raw.get(key) not in cat.gpus:
            raise SpecError(f"{display_path(path)}: {key}: unknown GPU {raw.get(key)!r}")
    for gpu in raw.get("planner_gpus", []):
        if gpu not in cat.gpus:
            raise SpecError(f"{display_path(path)}: planner_gpus: unknown GPU {gpu!r}")
    design = raw.get("planner_design")
    if design is not None and not (DATA_DIR / "designs" / f"{design}.toml").is_file():
        raise SpecError(f"{display_path(path)}: planner_design: no macros/data/designs/{design}.toml")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}


@functools.lru_cache(maxsize=1)
def workloads() -> dict[str, Any]:
    """The worked inputs, loaded on first use (a data error then surfaces as a SpecError where
    the build reports it, not at import time)."""
    return load_workloads()
