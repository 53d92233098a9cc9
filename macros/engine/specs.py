"""Spec data: frozen dataclasses loaded from data/*.toml and validated on load.

A data error raises SpecError with one line naming the file, the entry and the field,
so the calculator and the site build can show it without a traceback.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .rules import RuleError, check_entry, lists, shown
from .spec_checks import check_gpu, check_precision

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


# A date as sources write it: 2025-03-01, 2025-03, or a bare year such as "(OSDI 2024)". The first one wins:
# sources give the publication first and a collection date ("collected 2026-12-01") after it.
SOURCE_DATE = re.compile(r"\b20\d\d(?:-\d\d){0,2}\b")


def source_date(source: str) -> str | None:
    """The first date a claim's or a price's source gives ("2025-03-01", "2025-03", "2024"), or None."""
    found = SOURCE_DATE.search(source)
    return found.group(0) if found else None


@dataclass(frozen=True)
class Catalog:
    gpus: Mapping[str, Gpu]
    models: Mapping[str, Model]
    precisions: Mapping[str, Precision]
    prices: Mapping[str, Price]
    claims: Mapping[str, Claim]


# --- validation: data/rules.toml's sets (macros/engine/rules.py) -----------------------------

RULE_SETS: dict[type, str] = {Gpu: "gpu", Model: "model", Precision: "precision", Price: "price", Claim: "claim"}


def _build(cls: type, rule_set: str, where: str, key: str, raw: Any, choices: Mapping[str, Any] | None) -> Any:
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: [{key}] must be a table, got {shown(raw)}")
    try:
        values = check_entry(rule_set, raw, choices=choices)
    except RuleError as exc:
        dotted = exc.kind == "unknown" and isinstance(raw.get(exc.field), dict)
        hint = " (a key with a dot must be quoted: [\"a.b\"])" if dotted else ""
        raise SpecError(f"{where}: [{key}] {exc}{hint}") from None
    if "unverified" in values:
        values["unverified"] = tuple(values["unverified"])
    return cls(key=key, **values)


def read_text(path: Path, error: type[Exception] = SpecError) -> str:
    """A text file's contents; a path that is missing, a directory, unreadable or not UTF-8 is one
    `error` line naming it."""
    where = display_path(path)
    try:
        return Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise error(f"{where}: file not found") from None
    except IsADirectoryError:
        raise error(f"{where}: is a directory, not a file") from None
    except OSError as exc:
        raise error(f"{where}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x})") from None


def read_toml(path: Path, error: type[Exception] = SpecError) -> dict[str, Any]:
    """A TOML file's contents; a missing, unreadable or malformed file is one `error` line naming it."""
    text = read_text(path, error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{display_path(path)}: not valid TOML: {exc}") from None


def load_table(path: Path, cls: type, check: Any = None, rule_set: str | None = None,
               choices: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Load one TOML file of entries of `cls`, each checked against a set of data/rules.toml (the data
    classes' own in RULE_SETS), then by `check(entry, fail)` for what the table cannot say."""
    rule_set = RULE_SETS[cls] if rule_set is None else rule_set
    where = display_path(path)
    raw = read_toml(path)
    if not raw:
        raise SpecError(f"{where}: no entries")
    entries = {}
    for key, value in raw.items():
        entry = _build(cls, rule_set, where, key, value, choices)
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
    prices = load_table(data_dir / "prices.toml", Price)
    for key in prices:
        if key not in gpus:
            raise SpecError(f"{display_path(data_dir / 'prices.toml')}: [{key}]: no GPU with that key in gpus.toml")
    precisions = load_table(data_dir / "precisions.toml", Precision, check_precision)
    models = load_table(data_dir / "models.toml", Model, choices=lists(precisions))
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
    claims = load_table(data_dir / "claims.toml", Claim)
    origin = dict.fromkeys(claims, data_dir / "claims.toml")
    for path in sorted((data_dir / "designs" / "claims").glob("*.toml")):
        for key, claim in load_table(path, Claim).items():
            if key in claims:
                raise SpecError(f"{display_path(path)}: [{key}]: already defined in {display_path(origin[key])}")
            claims[key], origin[key] = claim, path
    return claims


@functools.lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The project's data, loaded once per process."""
    return load_catalog()
