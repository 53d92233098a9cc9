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

from .spec_checks import check_claim, check_gpu, check_model, check_precision, check_price

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
    interconnect: str  # as printed, for display
    interconnect_bytes_per_s: float  # GPU-to-GPU, ONE direction, summed over the GPU's links
    checked: str
    memory_visible_bytes: float | None = None
    fp8_flops: float | None = None  # dense; None where the hardware has no FP8
    fp4_flops: float | None = None  # dense FP4 (MXFP4, NVFP4) tensor peak; None where there is none
    bf16_sparse_flops: float | None = None  # the datasheet's "with sparsity" figure, for the trap
    tdp_w: float | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    unverified: tuple[str, ...] = ()

    @property
    def has_fp8(self) -> bool:
        return self.fp8_flops is not None

    @property
    def has_fp4(self) -> bool:
        return self.fp4_flops is not None


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
    kv_lora_rank: int | None = None  # MLA: the cached latent's width
    qk_rope_head_dim: int | None = None  # MLA: the decoupled RoPE key, cached beside the latent
    qk_nope_head_dim: int | None = None  # MLA: each head's query/key width without RoPE
    v_head_dim: int | None = None  # MLA: each head's value width
    q_lora_rank: int | None = None  # MLA: the query's low-rank width; None = queries not compressed
    sliding_window: int | None = None
    sliding_window_layers: int = 0
    experts: int | None = None  # routed experts (MoE)
    experts_per_token: int | None = None
    hidden_size: int | None = None  # the model width d
    ffn_size: int | None = None  # feed-forward inner width (per routed expert for MoE)
    shared_experts: int | None = None  # MoE: experts every token uses, each ffn_size wide
    dense_layers: int | None = None  # MoE: leading layers with a dense MLP instead of experts ...
    dense_ffn_size: int | None = None  # ... of this inner width
    vocab_size: int | None = None
    tie_embeddings: bool = False  # the output head reuses the input embedding matrix
    native_weights: str = "bf16"  # precisions.toml key: what the released checkpoint stores
    native_nonexpert_weights: str | None = None  # MoE: format of all but the routed experts, if different
    checkpoint_bytes: float | None = None  # the released checkpoint's published size, to check the above
    checkpoint_source: str = ""
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
    def nonexpert_weights(self) -> str:
        """The format of the weights outside the routed experts (all of them for a dense model)."""
        return self.native_nonexpert_weights or self.native_weights

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
    bytes: float  # stored bytes per element, block scales included
    compute: str  # one of COMPUTE_PEAKS: the peak its matmuls use where the GPU has that unit
    source: str
    element_bits: int | None = None  # bits of one element ...
    block_size: int | None = None  # ... plus one scale of scale_bits per block_size elements
    scale_bits: float | None = None


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

# Field kinds: "num" (int or float, > 0), "count" (int, > 0), "bool", "str", "strs" (list of str),
# "table" (str -> str). Required fields are those without a default on the dataclass.
_KINDS: dict[type, dict[str, str]] = {
    Gpu: {
        "name": "str", "memory": "str", "memory_bytes": "num", "memory_visible_bytes": "num",
        "bandwidth_bytes_per_s": "num", "bf16_flops": "num", "fp8_flops": "num", "fp4_flops": "num",
        "bf16_sparse_flops": "num", "interconnect": "str", "interconnect_bytes_per_s": "num",
        "tdp_w": "num", "checked": "str", "sources": "table", "unverified": "strs",
    },
    Model: {
        "name": "str", "params": "num", "active_params": "num", "layers": "count",
        "query_heads": "count", "kv_heads": "count", "head_dim": "count", "max_context": "count",
        "kv_lora_rank": "count", "qk_rope_head_dim": "count", "qk_nope_head_dim": "count",
        "v_head_dim": "count", "q_lora_rank": "count", "sliding_window": "count",
        "sliding_window_layers": "count", "experts": "count", "experts_per_token": "count",
        "hidden_size": "count", "ffn_size": "count", "shared_experts": "count", "dense_layers": "count",
        "dense_ffn_size": "count", "vocab_size": "count", "tie_embeddings": "bool",
        "native_weights": "str", "native_nonexpert_weights": "str", "checkpoint_bytes": "num",
        "checkpoint_source": "str", "source": "str", "checked": "str", "note": "str",
    },
    Precision: {"name": "str", "bytes": "num", "compute": "str", "source": "str", "element_bits": "count",
                "block_size": "count", "scale_bits": "num"},
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
    elif kind == "bool" and not isinstance(value, bool):
        return f"must be true or false, got {type(value).__name__} {value!r}"
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


def read_toml(path: Path, error: type[Exception] = SpecError) -> dict[str, Any]:
    """A TOML file's contents; a missing or malformed file is one `error` line naming it."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise error(f"{display_path(path)}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{display_path(path)}: not valid TOML: {exc}") from None


def load_table(path: Path, cls: type, check: Any = None, kinds: dict[str, str] | None = None) -> dict[str, Any]:
    """Load one TOML file of entries of `cls`, validating every field against `kinds` (field ->
    "num", "count", "str", "strs" or "table"; the built-in data classes have theirs in _KINDS)."""
    kinds = _KINDS[cls] if kinds is None else kinds
    where = display_path(path)
    raw = read_toml(path)
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
    gpus = load_table(data_dir / "gpus.toml", Gpu, check_gpu)
    prices = load_table(data_dir / "prices.toml", Price, check_price)
    for key in prices:
        if key not in gpus:
            raise SpecError(f"{display_path(data_dir / 'prices.toml')}: [{key}]: no GPU with that key in gpus.toml")
    precisions = load_table(data_dir / "precisions.toml", Precision, check_precision)
    models = load_table(data_dir / "models.toml", Model, check_model)
    for m in models.values():
        for name in ("native_weights", "native_nonexpert_weights"):
            value = getattr(m, name)
            if value is not None and value not in precisions:
                raise SpecError(f"{display_path(data_dir / 'models.toml')}: [{m.key}] {name}: {value!r} is not "
                                f"a precisions.toml key ({', '.join(precisions)})")
    return Catalog(
        gpus=gpus,
        models=models,
        precisions=precisions,
        prices=prices,
        claims=_claims(data_dir),
    )


def _claims(data_dir: Path) -> dict[str, Claim]:
    """claims.toml, and the worked designs' own claims (designs/claims/<slug>.toml), one namespace:
    a key defined twice is an error naming both files."""
    claims = load_table(data_dir / "claims.toml", Claim, check_claim)
    origin = dict.fromkeys(claims, data_dir / "claims.toml")
    for path in sorted((data_dir / "designs" / "claims").glob("*.toml")):
        for key, claim in load_table(path, Claim, check_claim).items():
            if key in claims:
                raise SpecError(f"{display_path(path)}: [{key}]: already defined in {display_path(origin[key])}")
            claims[key], origin[key] = claim, path
    return claims


@functools.lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The project's data, loaded once per process."""
    return load_catalog()
