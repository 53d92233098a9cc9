"""Spec data: frozen dataclasses loaded from data/*.toml and validated on load.

A data error raises SpecError with one line naming the file, the entry and the field,
so the calculator and the site build can show it without a traceback.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
_REPO = Path(__file__).resolve().parent.parent.parent


class SpecError(ValueError):
    """Bad spec data. The message names the file, the entry and the field."""


@dataclass(frozen=True)
class Gpu:
    key: str
    name: str
    memory: str  # as marketed, for display: "80 GB HBM3"
    memory_bytes: float
    bandwidth_bytes_per_s: float
    bf16_flops: float  # dense
    interconnect: str
    interconnect_bytes_per_s: float
    checked: str
    memory_visible_bytes: float | None = None
    fp8_flops: float | None = None  # dense; None where the hardware has no FP8
    bf16_sparse_flops: float | None = None  # the datasheet's "with sparsity" figure, for the trap
    tdp_w: float | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    unverified: tuple[str, ...] = ()

    @property
    def has_fp8(self) -> bool:
        return self.fp8_flops is not None


@dataclass(frozen=True)
class Model:
    key: str
    name: str
    params: float
    layers: int
    query_heads: int
    kv_heads: int
    head_dim: int
    max_context: int
    source: str
    checked: str
    active_params: float | None = None  # None: dense, every parameter is active
    kv_lora_rank: int | None = None  # MLA
    qk_rope_head_dim: int | None = None  # MLA
    sliding_window: int | None = None
    sliding_window_layers: int = 0
    experts: int | None = None  # routed experts (MoE)
    experts_per_token: int | None = None
    hidden_size: int | None = None  # the model width d
    ffn_size: int | None = None  # feed-forward inner width (per routed expert for MoE)
    note: str = ""

    @property
    def ffn_ratio(self) -> float | None:
        """How many times the model width the feed-forward layer widens to."""
        return self.ffn_size / self.hidden_size if self.ffn_size and self.hidden_size else None

    @property
    def active(self) -> float:
        return self.params if self.active_params is None else self.active_params

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def is_moe(self) -> bool:
        return self.experts is not None

    @property
    def attention(self) -> str:
        """MHA, GQA, MQA or MLA, derived from the head counts."""
        if self.is_mla:
            return "MLA"
        if self.kv_heads == self.query_heads:
            return "MHA"
        return "MQA" if self.kv_heads == 1 else "GQA"


@dataclass(frozen=True)
class Precision:
    key: str
    name: str
    bytes: float


@dataclass(frozen=True)
class Price:
    key: str  # the GPU's key
    low: float
    high: float
    typical: float
    as_of: str
    source: str


@dataclass(frozen=True)
class Claim:
    """A figure the site reports rather than computes: a range from the literature, a vendor
    default, a rule of thumb. Fractions are stored as fractions (0.45, shown as 45%)."""

    key: str
    unit: str  # "×", "%", "s", or a word such as "tokens"
    source: str
    status: str  # "reported", "unverified", "rule of thumb", "measured", "vendor default"
    low: float | None = None
    high: float | None = None
    text: str = ""  # for a claim that is not a number: shown as written


@dataclass(frozen=True)
class Catalog:
    gpus: Mapping[str, Gpu]
    models: Mapping[str, Model]
    precisions: Mapping[str, Precision]
    prices: Mapping[str, Price]
    claims: Mapping[str, Claim]


# --- validation ----------------------------------------------------------------------

# Field kinds: "num" (int or float, > 0), "count" (int, > 0), "str", "strs" (list of str),
# "table" (str -> str). Required fields are those without a default on the dataclass.
_KINDS: dict[type, dict[str, str]] = {
    Gpu: {
        "name": "str", "memory": "str", "memory_bytes": "num", "memory_visible_bytes": "num",
        "bandwidth_bytes_per_s": "num", "bf16_flops": "num", "fp8_flops": "num",
        "bf16_sparse_flops": "num", "interconnect": "str", "interconnect_bytes_per_s": "num",
        "tdp_w": "num", "checked": "str", "sources": "table", "unverified": "strs",
    },
    Model: {
        "name": "str", "params": "num", "active_params": "num", "layers": "count",
        "query_heads": "count", "kv_heads": "count", "head_dim": "count", "max_context": "count",
        "kv_lora_rank": "count", "qk_rope_head_dim": "count", "sliding_window": "count",
        "sliding_window_layers": "count", "experts": "count", "experts_per_token": "count",
        "hidden_size": "count", "ffn_size": "count",
        "source": "str", "checked": "str", "note": "str",
    },
    Precision: {"name": "str", "bytes": "num"},
    Price: {"low": "num", "high": "num", "typical": "num", "as_of": "str", "source": "str"},
    Claim: {"unit": "str", "source": "str", "status": "str", "low": "num", "high": "num", "text": "str"},
}


def _check_value(kind: str, value: Any) -> str | None:
    """Return what is wrong with the value, or None."""
    if kind in ("num", "count"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number, got {type(value).__name__} {value!r}"
        if kind == "count" and not isinstance(value, int):
            return f"must be a whole number, got {value!r}"
        if not value > 0:  # also rejects NaN
            return f"must be positive, got {value!r}"
    elif kind == "str" and not isinstance(value, str):
        return f"must be a string, got {type(value).__name__} {value!r}"
    elif kind == "strs" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return f"must be a list of strings, got {value!r}"
    elif kind == "table" and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
        return f"must be a table of strings, got {value!r}"
    return None


def _build(cls: type, kinds: dict[str, str], where: str, key: str, raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: [{key}] must be a table, got {raw!r}")
    for name in raw:
        if name not in kinds:
            hint = " (a key with a dot must be quoted: [\"a.b\"])" if isinstance(raw[name], dict) else ""
            raise SpecError(f"{where}: [{key}] {name}: unknown field{hint} (known: {', '.join(sorted(kinds))})")
    required = [f.name for f in dataclasses.fields(cls)
                if f.name in kinds and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    for name in required:
        if name not in raw:
            raise SpecError(f"{where}: [{key}] {name}: missing field")
    for name, value in raw.items():
        problem = _check_value(kinds[name], value)
        if problem:
            raise SpecError(f"{where}: [{key}] {name}: {problem}")
    values = dict(raw)
    if "unverified" in values:
        values["unverified"] = tuple(values["unverified"])
    return cls(key=key, **values)


def _check_gpu(gpu: Gpu, fail: Any) -> None:
    fields = set(_KINDS[Gpu])
    for name in (*gpu.sources, *gpu.unverified):
        if name not in fields:
            fail("sources/unverified", f"names unknown field {name!r}")
    for name in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_flops"):
        if name not in gpu.sources:
            fail("sources", f"no source for {name}")


def _check_model(m: Model, fail: Any) -> None:
    if m.active_params is not None and m.active_params > m.params:
        fail("active_params", f"{m.active_params:g} exceeds params {m.params:g}")
    if m.kv_heads > m.query_heads:
        fail("kv_heads", f"{m.kv_heads} exceeds query_heads {m.query_heads}")
    for a, b in (("kv_lora_rank", "qk_rope_head_dim"), ("sliding_window", "sliding_window_layers"),
                 ("experts", "experts_per_token")):
        if (getattr(m, a) is None) != (getattr(m, b) in (None, 0)):
            fail(a, f"{a} and {b} must be given together")
    if m.sliding_window_layers > m.layers:
        fail("sliding_window_layers", f"{m.sliding_window_layers} exceeds layers {m.layers}")
    if m.experts is not None:
        if m.experts_per_token >= m.experts:
            fail("experts_per_token", f"{m.experts_per_token} must be below experts {m.experts}")
        if m.active_params is None or m.active_params >= m.params:
            fail("active_params", "a mixture of experts needs active_params below params")


def _check_claim(c: Claim, fail: Any) -> None:
    if c.low is None and not c.text:
        fail("low", "a claim needs a value (low, optionally high) or a text")
    if c.low is not None and c.high is not None and c.high < c.low:
        fail("high", f"{c.high:g} is below low {c.low:g}")


def _check_price(p: Price, fail: Any) -> None:
    if not p.low <= p.typical <= p.high:
        fail("typical", f"must lie within low..high, got {p.low:g} <= {p.typical:g} <= {p.high:g}")


def load_table(path: Path, cls: type, check: Any = None, kinds: dict[str, str] | None = None) -> dict[str, Any]:
    """Load one TOML file of entries of `cls`, validating every field against `kinds` (field ->
    "num", "count", "str", "strs" or "table"; the built-in data classes have theirs in _KINDS)."""
    kinds = _KINDS[cls] if kinds is None else kinds
    where = display_path(path)
    try:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    except FileNotFoundError:
        raise SpecError(f"{where}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{where}: not valid TOML: {exc}") from None
    if not raw:
        raise SpecError(f"{where}: no entries")
    entries = {}
    for key, value in raw.items():
        entry = _build(cls, kinds, where, key, value)
        if check:
            def fail(field_name: str, problem: str, key: str = key) -> None:
                raise SpecError(f"{where}: [{key}] {field_name}: {problem}")
            check(entry, fail)
        entries[key] = entry
    return entries


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(_REPO.resolve()))
    except ValueError:
        return str(path)


def load_catalog(data_dir: Path = DATA_DIR) -> Catalog:
    gpus = load_table(data_dir / "gpus.toml", Gpu, _check_gpu)
    prices = load_table(data_dir / "prices.toml", Price, _check_price)
    for key in prices:
        if key not in gpus:
            raise SpecError(f"{display_path(data_dir / 'prices.toml')}: [{key}]: no GPU with that key in gpus.toml")
    return Catalog(
        gpus=gpus,
        models=load_table(data_dir / "models.toml", Model, _check_model),
        precisions=load_table(data_dir / "precisions.toml", Precision),
        prices=prices,
        claims=load_table(data_dir / "claims.toml", Claim, _check_claim),
    )


@functools.lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The project's data, loaded once per process."""
    return load_catalog()
