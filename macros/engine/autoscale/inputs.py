"""The day's inputs beyond the workload (data/autoscale.toml, checked by rules.toml's `autoscale` set),
and a replica's cold start priced from them and from the shared data it names."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .. import formulas as f
from ..lookup import InputError, lookup
from ..rules import RuleError, check_sectioned
from ..serving.metrics import PERCENTILES
from ..specs import DATA_DIR, SpecError, catalog, display_path, read_toml
from ..workloads import workloads

PATH = DATA_DIR / "autoscale.toml"
SECONDS_PER_MINUTE = 60
ALLOCATION_CLAIM = "instance-acquisition"  # claims.toml: its low end is the allocation a cold start waits


@dataclass(frozen=True)
class DayInputs:
    peak_to_mean: float
    peak_hour: float
    burst_chance_per_minute: float
    burst_mean_minutes: float
    burst_max_lift: float
    seed: int
    shift_start_hour: float
    shift_hours: float
    shift_prompt_scale: float
    image_bytes: float
    engine_start_s: float
    warm_start_s: float
    scale_down_hold_minutes: int
    max_replicas_over_peak: float
    min_replicas: int
    slo_percentile: int
    requests: int
    relative_tolerance: float
    capacity_seed: int


def load_day_inputs(path: Path = PATH) -> DayInputs:
    """The file's inputs; a bad one is a SpecError naming the file, the table and the field."""
    try:
        values = check_sectioned("autoscale", read_toml(path))
    except RuleError as exc:
        raise SpecError(f"{display_path(path)}: {exc}") from None
    if values["slo_percentile"] not in PERCENTILES:
        raise SpecError(f"{display_path(path)}: [control] slo_percentile must be one of "
                        f"{', '.join(map(str, PERCENTILES))}, got {values['slo_percentile']!r}")
    values["slo_percentile"] = int(values["slo_percentile"])
    return DayInputs(**values)


@functools.lru_cache(maxsize=1)
def day_inputs() -> DayInputs:
    return load_day_inputs()


def whole_minutes(seconds: float) -> int:
    """Minutes before a replica started now serves: the model steps a minute at a time, so a start that
    ends inside a minute serves from the next one (f.whole_count: 120.00000000000001 s is 2)."""
    return f.whole_count(seconds / SECONDS_PER_MINUTE)


@dataclass(frozen=True)
class ColdStart:
    """A replica's way from nothing to serving, each part in seconds."""

    allocation_s: float
    image_pull_s: float
    weight_load_s: float
    engine_start_s: float

    @property
    def total_s(self) -> float:
        return self.allocation_s + self.image_pull_s + self.weight_load_s + self.engine_start_s

    @property
    def minutes(self) -> int:
        return whole_minutes(self.total_s)


def cold_start(weight_bytes: float, x: DayInputs) -> ColdStart:
    """Allocate (the low end of the instance-acquisition claim), pull the image and load the weights over
    the path to storage (workloads.toml network_storage_bytes_per_s, one after the other: the engine
    needs its image before it reads weights), start the engine."""
    claim = lookup("claim", ALLOCATION_CLAIM, catalog().claims)
    if claim.low is None:
        raise InputError(f"claims.toml: [{ALLOCATION_CLAIM}] must give `low`, the seconds a cold start waits "
                         "for an instance")
    link = workloads()["network_storage_bytes_per_s"]
    return ColdStart(allocation_s=claim.low, image_pull_s=f.transfer_time_s(x.image_bytes, link),
                     weight_load_s=f.transfer_time_s(weight_bytes, link), engine_start_s=x.engine_start_s)
