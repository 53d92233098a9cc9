"""A workload file (DESIGN §8): what `gpu_math.py plan FILE` and the worked designs read.

    name = "Consumer chat"
    model = "llama-3.1-70b"           gpu = "h100"
    gpus_per_replica = 4              # optional: the smallest power of two that meets both targets
    weights = "bf16"   kv = "bf16"    # optional: the defaults
    layout = "tp"                     # optional: "tp" or "dp-attention"
    [traffic]  peak_requests_per_s = 2000   (or requests_per_day and peak_to_mean)
               prompt_tokens = 2000   output_tokens = 400   prefix_hit_rate = 0.5 (optional)
    [slo]      ttft_s = 0.5   tpot_s = 0.05
    [fleet]    efficiency = 0.4   headroom = 0.2   price_per_gpu_hour = 2.5 (all optional)

A [variants.<name>] table overrides any of these for a variant of the same workload (a design's
revision), e.g. [variants.fp8] weights = "fp8" (a section's field may be given flat: prefix_hit_rate = 0).
A [design] table is the worked design page's (critiques, time plan: macros/site/pages/design.py) and the
planner skips it. Every error is one line naming the file and the field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .lookup import DEFAULT_DTYPE, InputError, dtype_bytes, get_gpu, get_model
from .placement import DEFAULT_LAYOUT, LAYOUTS
from .scenario import DEFAULT_EFFICIENCY
from .specs import DATA_DIR, display_path, read_toml

DEFAULT_HEADROOM = 0.2  # spare capacity over the peak: a placeholder for burstiness, not a measurement
SECONDS_PER_DAY = 86_400

_TOP = {"name": str, "model": str, "gpu": str, "gpus_per_replica": int, "weights": str, "kv": str, "layout": str,
        "note": str}
_SECTIONS: dict[str, dict[str, type]] = {
    "traffic": {"peak_requests_per_s": float, "requests_per_day": float, "peak_to_mean": float,
                "prompt_tokens": float, "output_tokens": float, "prefix_hit_rate": float},
    "slo": {"ttft_s": float, "tpot_s": float},
    "fleet": {"efficiency": float, "headroom": float, "price_per_gpu_hour": float},
}


@dataclass(frozen=True)
class Workload:
    name: str
    model: str
    gpu: str
    peak_requests_per_s: float
    prompt_tokens: int
    output_tokens: int
    ttft_s: float
    tpot_s: float
    gpus_per_replica: int | None = None
    weights: str | None = None  # None: the model's native format
    kv: str = DEFAULT_DTYPE
    layout: str = DEFAULT_LAYOUT
    prefix_hit_rate: float = 0.0
    efficiency: float = DEFAULT_EFFICIENCY
    headroom: float = DEFAULT_HEADROOM
    price_per_gpu_hour: float | None = None
    requests_per_day: float | None = None  # when the peak came from a daily volume
    peak_to_mean: float | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.weights is None:  # the checkpoint's own format
            object.__setattr__(self, "weights", get_model(self.model).native_weights)

    @property
    def seq_len(self) -> int:
        """Context per sequence at the end of generation: the worst case the KV budget must hold."""
        return self.prompt_tokens + self.output_tokens

    @property
    def peak_output_tokens_per_s(self) -> float:
        return self.peak_requests_per_s * self.output_tokens


class WorkloadError(InputError):
    """A malformed workload file: one line naming the file and the field."""


def _typed(where: str, key: str, value: Any, kind: type) -> Any:
    if kind is str:
        if not isinstance(value, str) or not value:
            raise WorkloadError(f"{where}: {key} must be a non-empty string, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WorkloadError(f"{where}: {key} must be a number, got {value!r}")
    if kind is int and value != int(value):
        raise WorkloadError(f"{where}: {key} must be a whole number, got {value!r}")
    return kind(value)


def _flatten(raw: dict[str, Any], where: str) -> dict[str, Any]:
    """The file's fields as one flat dict, each checked for its type; unknown fields are errors."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise WorkloadError(f"{where}: [{key}] must be a table")
            for name, item in value.items():
                if name not in _SECTIONS[key]:
                    raise WorkloadError(f"{where}: [{key}] has an unknown field {name!r} "
                                        f"(known: {', '.join(_SECTIONS[key])})")
                out[name] = _typed(f"{where}: [{key}]", name, item, _SECTIONS[key][name])
        elif key in _TOP:
            out[key] = _typed(where, key, value, _TOP[key])
        elif key not in ("variants", "design"):  # [design]: a worked design's page data, read by the site
            raise WorkloadError(f"{where}: unknown field {key!r}")
    return out


def _check(fields: dict[str, Any], where: str) -> Workload:
    for section, required in (("slo", ("ttft_s", "tpot_s")), ("traffic", ("prompt_tokens", "output_tokens"))):
        for key in required:
            if key not in fields:
                raise WorkloadError(f"{where}: [{section}] {key} is missing")
    for key in ("name", "model", "gpu"):
        if key not in fields:
            raise WorkloadError(f"{where}: {key} is missing")
    if "peak_requests_per_s" in fields:
        if {"requests_per_day", "peak_to_mean"} & set(fields):
            raise WorkloadError(f"{where}: [traffic] give peak_requests_per_s, or requests_per_day and peak_to_mean,"
                                " not both")
    elif not {"requests_per_day", "peak_to_mean"} <= set(fields):
        raise WorkloadError(f"{where}: [traffic] peak_requests_per_s is missing (or requests_per_day and "
                            "peak_to_mean)")
    else:
        fields["peak_requests_per_s"] = fields["requests_per_day"] / SECONDS_PER_DAY * fields["peak_to_mean"]
    for key in ("peak_requests_per_s", "requests_per_day", "ttft_s", "tpot_s", "price_per_gpu_hour",
                "gpus_per_replica"):
        if key in fields and not fields[key] > 0:
            raise WorkloadError(f"{where}: {key} must be positive, got {fields[key]!r}")
    for key in ("prompt_tokens", "output_tokens"):
        if fields[key] != int(fields[key]) or fields[key] < 1:
            raise WorkloadError(f"{where}: [traffic] {key} must be a whole number of at least 1, got {fields[key]!r}")
        fields[key] = int(fields[key])
    if "peak_to_mean" in fields and not fields["peak_to_mean"] >= 1:
        raise WorkloadError(f"{where}: [traffic] peak_to_mean must be at least 1, got {fields['peak_to_mean']!r}")
    if not 0 <= fields.get("prefix_hit_rate", 0) <= 1:
        raise WorkloadError(f"{where}: [traffic] prefix_hit_rate must be between 0 and 1, "
                            f"got {fields['prefix_hit_rate']!r}")
    if not 0 < fields.get("efficiency", DEFAULT_EFFICIENCY) <= 1:
        raise WorkloadError(f"{where}: [fleet] efficiency must be above 0 and at most 1, got {fields['efficiency']!r}")
    if not fields.get("headroom", 0) >= 0:
        raise WorkloadError(f"{where}: [fleet] headroom must be zero or positive, got {fields['headroom']!r}")
    if fields.get("layout", DEFAULT_LAYOUT) not in LAYOUTS:
        raise WorkloadError(f"{where}: layout must be one of {', '.join(LAYOUTS)}, got {fields['layout']!r}")
    try:
        model, _ = get_model(fields["model"]), get_gpu(fields["gpu"])
        fields.setdefault("weights", model.native_weights)
        dtype_bytes(fields["weights"]), dtype_bytes(fields.get("kv", DEFAULT_DTYPE))
    except InputError as exc:
        raise WorkloadError(f"{where}: {exc}") from None
    return Workload(**fields)


def parse(raw: dict[str, Any], where: str) -> Workload:
    """One workload from a table shaped like a workload file, without variants (the practice problems'
    generated workloads); `where` names it in errors."""
    return _check(_flatten(raw, where), where)


def load(path: Path) -> tuple[Workload, dict[str, Workload]]:
    """The workload in `path` and its variants (name -> the workload with that variant's overrides)."""
    where = display_path(path)
    raw = read_toml(path, WorkloadError)
    workload = parse(raw, where)
    variants = {}
    for name, overrides in (raw.get("variants") or {}).items():
        here = f"{where}: [variants.{name}]"
        if not isinstance(overrides, dict):
            raise WorkloadError(f"{here} must be a table")
        merged = {k: v for k, v in raw.items() if k != "variants"}
        for key, value in overrides.items():
            section = next((name for name, fields in _SECTIONS.items() if key in fields), None)
            if key in _SECTIONS and isinstance(value, dict):
                merged[key] = {**merged.get(key, {}), **value}
            elif section:  # a section's field given flat: `prefix_hit_rate = 0` for [traffic]
                merged[section] = {**merged.get(section, {}), key: value}
            else:
                merged[key] = value
        variant = parse(merged, here)
        variants[name] = dataclasses.replace(variant, name=overrides.get("name", f"{workload.name} ({name})"))
    return workload, variants


def design(slug: str) -> tuple[Workload, dict[str, Workload]]:
    """The workload of a worked design, macros/data/designs/<slug>.toml, and its variants."""
    return load(DATA_DIR / "designs" / f"{slug}.toml")
