"""A workload file (ARCHITECTURE.md, the formula contract): what `gpu_math.py plan FILE` and the worked designs read.

    name = "Consumer chat"
    model = "llama-3.1-70b"           gpu = "h100"
    gpus_per_replica = 4              # optional: the smallest power of two that meets both targets
    weights = "bf16"   kv = "bf16"    # optional: the defaults
    layout = "tp"                     # optional: "tp" or "dp-attention"
    [traffic]  peak_requests_per_s = 2000   (or requests_per_day and peak_to_mean)
               prompt_tokens = 2000   output_tokens = 400   prefix_hit_rate = 0.5 (optional)
               burstiness = 1         (optional: the arrival gaps' coefficient of variation; 1 is Poisson)
    [slo]      ttft_p95_s = 1   tpot_p95_s = 0.06   (percentile targets: p50, p90, p95 or p99)
               ttft_s = 0.5   tpot_s = 0.05   (mean targets; a metric needs a mean or a percentile target)
               itl_p95_s = 0.05   (optional: the gap between tokens as a reader sees it, p50 to p99)
               The serving model's answer meets every target given, at peak, by simulation; the napkin
               sizes against the means, and takes a metric's tightest percentile target where it has none.
    [fleet]    efficiency = 0.4   headroom = 0.2   price_per_gpu_hour = 2.5   engine = "vllm" (all optional)
               token_budget = 512   (optional: the engine's tokens per step, as launched; default its own)
               mode = "disaggregated"   (optional: prefill and decode pools sized apart; default "colocated")
               draft_tokens = 3   acceptance = 0.7   (optional, together: speculative decoding's verify step)
    [adapters] adapters = 5000   adapter_popularity = 1   adapter_rank = 16   adapter_slice_bytes = 10e9
               (optional, together: unmerged LoRA adapters, each request's drawn by a Zipf law from the
               catalogue; the simulated step reads its distinct ones: serving/adapters.py)

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

from .. import rules
from ..formulas.capacity import SECONDS_PER_DAY
from ..lookup import DEFAULT_DTYPE, InputError, dtype_bytes, get_gpu, get_model
from ..memo import memoized
from ..model.placement import DEFAULT_LAYOUT
from ..model.scenario import DEFAULT_EFFICIENCY
from ..rules import RuleError, check_sectioned
from ..serving.metrics import PERCENTILES
from ..specs import DATA_DIR, display_path, read_toml

DEFAULT_HEADROOM = 0.2  # spare capacity over the peak: a placeholder for burstiness, not a measurement
DEFAULT_BURSTINESS = 1.0  # Poisson arrivals: many independent users, none waiting on another
DEFAULT_ENGINE = "vllm"
TARGET_METRICS = ("ttft", "tpot")  # what a mean target may bound, and what the napkin sizes against
# what a percentile target may bound, each at one of serving.metrics.PERCENTILES: ITL is the gap between one
# token and the next as a reader sees it (a step that carries a prefill chunk shows in its tail, not in TPOT's)
PERCENTILE_METRICS = (*TARGET_METRICS, "itl")


@dataclass(frozen=True)
class Target:
    """One target on a run's statistics: e.g. the p95 of the time to first token at most 1 s, or its mean."""
    metric: str  # "ttft" or "tpot", or for a percentile "itl" too
    percentile: int | None  # 50, 90, 95 or 99; None for the mean
    seconds: float

    @property
    def stat(self) -> str:
        """Its key among a metric's statistics (serving.metrics): "p95", or "mean"."""
        return "mean" if self.percentile is None else f"p{self.percentile}"

    @property
    def key(self) -> str:
        """Its field in a workload file and in the plan's JSON: ttft_p95_s, or ttft_s for the mean."""
        return f"{self.metric}_s" if self.percentile is None else f"{self.metric}_p{self.percentile}_s"

    @property
    def words(self) -> str:
        """"p95 TTFT", "mean TPOT", "p95 gap between tokens"."""
        return f"{self.stat} {'gap between tokens' if self.metric == 'itl' else self.metric.upper()}"

RULES = "workload"  # data/rules.toml's set for a workload's fields
TABLES = ("variants", "design")  # [design]: a worked design's page data, read by the site


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
    burstiness: float = DEFAULT_BURSTINESS
    engine: str = DEFAULT_ENGINE
    ttft_p50_s: float | None = None
    ttft_p90_s: float | None = None
    ttft_p95_s: float | None = None
    ttft_p99_s: float | None = None
    tpot_p50_s: float | None = None
    tpot_p90_s: float | None = None
    tpot_p95_s: float | None = None
    tpot_p99_s: float | None = None
    itl_p50_s: float | None = None
    itl_p90_s: float | None = None
    itl_p95_s: float | None = None
    itl_p99_s: float | None = None
    token_budget: int | None = None  # the engine's tokens per step, as launched (None: its default)
    mode: str = "colocated"  # or "disaggregated": prefill and decode in pools of their own (disaggregated.py)
    draft_tokens: int | None = None  # speculative decoding: draft tokens per verify step ...
    acceptance: float | None = None  # ... and each one's chance of being accepted
    adapters: int = 0  # unmerged LoRA adapters' catalogue (0: none) ...
    adapter_popularity: float | None = None  # ... its Zipf exponent, each adapter's rank, the HBM kept for them
    adapter_rank: int | None = None
    adapter_slice_bytes: float | None = None
    stated_means: tuple[str, ...] = TARGET_METRICS  # the metrics whose mean target the file states (the others
    # took their tightest percentile target as the napkin's mean: not a target of its own)

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

    @property
    def percentile_targets(self) -> tuple[Target, ...]:
        """The percentile targets the file gives, TTFT's first, each in increasing percentile."""
        return tuple(Target(m, p, s) for m in PERCENTILE_METRICS for p in PERCENTILES
                     if (s := getattr(self, f"{m}_p{p}_s")) is not None)

    @property
    def targets(self) -> tuple[Target, ...]:
        """Every target the file states, which the serving model's answer meets: TTFT's first, its mean (when
        stated) before its percentiles."""
        means = tuple(Target(m, None, getattr(self, f"{m}_s")) for m in TARGET_METRICS if m in self.stated_means)
        return tuple(sorted(means + self.percentile_targets, key=lambda t: PERCENTILE_METRICS.index(t.metric)))


class WorkloadError(InputError):
    """A malformed workload file: one line naming the file and the field."""


def _check(fields: dict[str, Any], where: str) -> Workload:
    """A workload from its fields, each already checked against the rules: the peak derived from a
    daily volume where it is not given, and the model, GPU and formats looked up."""
    if "peak_requests_per_s" not in fields:
        fields["peak_requests_per_s"] = fields["requests_per_day"] / SECONDS_PER_DAY * fields["peak_to_mean"]
    fields["stated_means"] = tuple(m for m in TARGET_METRICS if f"{m}_s" in fields)
    for m in TARGET_METRICS:  # the rules' or_any check: a mean, or at least one percentile target
        if f"{m}_s" not in fields:
            fields[f"{m}_s"] = min(fields[f"{m}_p{p}_s"] for p in PERCENTILES if f"{m}_p{p}_s" in fields)
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
    try:
        fields = check_sectioned(RULES, raw, TABLES)
    except RuleError as exc:
        raise WorkloadError(f"{where}: {exc}") from None
    return _check(fields, where)


@memoized  # in a build, the designs' files are read by page after page
def load_workload_file(path: Path) -> tuple[Workload, dict[str, Workload]]:
    """The workload in `path` and its variants (name -> the workload with that variant's overrides)."""
    where = display_path(path)
    raw = read_toml(path, WorkloadError)
    workload = parse(raw, where)
    variants = {}
    fields = rules.table()[RULES]["fields"]
    sections = {rule["section"] for rule in fields.values() if "section" in rule}
    for name, overrides in raw.get("variants", {}).items():
        here = f"{where}: [variants.{name}]"
        if not isinstance(overrides, dict):
            raise WorkloadError(f"{here} must be a table, got {rules.shown(overrides)}")
        merged = {k: v for k, v in raw.items() if k != "variants"}
        for key, value in overrides.items():
            section = fields.get(key, {}).get("section")
            if key in sections and isinstance(value, dict):
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
    return load_workload_file(DATA_DIR / "designs" / f"{slug}.toml")
