"""The capacity planner (DESIGN §8): a workload on a fleet, through the same formulas as one replica.

A workload (model, GPU, replica shape, traffic at its peak, TTFT and TPOT targets, efficiency,
headroom, price) gives the batch the TPOT target allows on one replica, that replica's decode
capacity and its prefill time per request, and from those the replicas, GPUs and cost at peak.
First order, and said so wherever it is shown: no queueing, no burstiness within the peak, every
sequence at its full context (the worst case), prefill and decode sharing replica time.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from . import formulas as f
from .lookup import InputError, get_gpu, get_model
from .scenario import Scenario, prefill_floor_s, scenario
from .workload_file import Workload

MAX_GPUS_PER_REPLICA = 64  # the search stops here: past a rack, one replica is not a sensible shape
NODE_GPUS = 8  # one NVLink node of an HGX system: the largest replica cheapest() considers

JSON_KEYS = (
    "name", "model", "gpu", "gpus_per_replica", "layout", "weights_dtype", "kv_dtype", "seq_len", "max_batch",
    "slo_batch", "step_s", "planned_step_s", "decode_tokens_per_s_per_replica", "planned_prefill_s",
    "peak_requests_per_s", "peak_input_tokens_per_s", "peak_output_tokens_per_s", "prefill_share", "replicas",
    "gpus", "price_per_gpu_hour", "cost_per_day", "cost_per_million_output_tokens", "ttft_ok", "tpot_ok",
    "efficiency", "headroom", "prefix_hit_rate", "uncached_prompt_tokens", "replica_seconds_per_s", "binding",
    "kv_bytes_per_seq",
)


class PlanError(InputError):
    """No replica shape meets the targets: the message names the constraint that binds."""


@dataclass(frozen=True)
class Plan:
    name: str
    model: str
    gpu: str
    gpus_per_replica: int
    gpus_per_replica_chosen: bool
    layout: str
    weights_dtype: str
    kv_dtype: str
    seq_len: int  # prompt + output: the context at the end of generation
    max_batch: int
    slo_batch: int  # the largest batch whose planned step meets the TPOT target
    step_s: float  # the floor at the SLO batch
    planned_step_s: float
    decode_tokens_per_s_per_replica: float  # planned: efficiency * b* / floor
    planned_prefill_s: float  # one request's uncached prompt, planned
    peak_requests_per_s: float
    peak_input_tokens_per_s: float
    peak_output_tokens_per_s: float
    replica_seconds_per_s: float  # decode plus prefill work arriving each second at peak
    decode_replicas: float  # of it, replicas kept busy decoding ...
    prefill_replicas: float  # ... and prefilling
    prefill_share: float  # of replica time
    replicas: int
    gpus: int
    price_per_gpu_hour: float | None
    cost_per_day: float | None
    cost_per_million_output_tokens: float | None
    ttft_ok: bool
    tpot_ok: bool
    efficiency: float
    headroom: float
    prefix_hit_rate: float
    uncached_prompt_tokens: float
    binding: str  # "kv" (the KV budget caps the batch) or "tpot" (the latency target does)
    kv_bytes_per_seq: float
    workload: Workload = field(repr=False)
    at_slo: Scenario = field(repr=False)  # the replica at its SLO batch

    def as_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {key: d[key] for key in JSON_KEYS}


def _scenario(w: Workload, gpus: int, batch: int | None = None) -> Scenario:
    """The workload's replica of `gpus` GPUs at `batch` (default: its max batch), every sequence at
    the workload's full context."""
    return scenario(w.model, w.gpu, gpus=gpus, seq_len=w.seq_len, batch=batch, weights=w.weights, kv=w.kv,
                    efficiency=w.efficiency, layout=w.layout, price=w.price_per_gpu_hour)


def _replica(w: Workload, gpus: int) -> Scenario | None:
    """The replica at its max batch, or None when the model does not fit `gpus` GPUs."""
    s = _scenario(w, gpus)
    return s if s.fits else None


def slo_batch(w: Workload, gpus: int, most: int) -> Scenario | None:
    """The largest batch b <= max batch whose planned step (floor / efficiency) meets the TPOT
    target, as its scenario; None when even one sequence misses it. The floor grows with b, so a
    binary search finds it."""
    def at(b: int) -> Scenario:
        return _scenario(w, gpus, b)

    if at(1).planned_step_s > w.tpot_s:
        return None
    low, high = 1, most
    while low < high:
        mid = (low + high + 1) // 2
        if at(mid).planned_step_s <= w.tpot_s:
            low = mid
        else:
            high = mid - 1
    return at(low)


def planned_prefill_s(w: Workload, gpus: int) -> float:
    """Prefill of one request's uncached prompt tokens, divided by the efficiency. The uncached
    tokens still attend to the cached prefix, so attention counts the pairs past the prefix."""
    uncached = w.prompt_tokens * (1 - w.prefix_hit_rate)
    if uncached <= 0:  # every prompt token served from the prefix cache
        return 0.0
    floor = prefill_floor_s(get_model(w.model), get_gpu(w.gpu), gpus, w.weights, uncached,
                            w.prompt_tokens - uncached)
    return f.planned_time_s(floor, w.efficiency)


def _infeasible(w: Workload, gpus: int) -> str | None:
    """Why `gpus` GPUs per replica cannot serve the workload, or None when they can."""
    s = _replica(w, gpus)
    if s is None:
        return "model too big"
    if slo_batch(w, gpus, s.max_batch) is None:
        return "tpot"
    if planned_prefill_s(w, gpus) > w.ttft_s:
        return "ttft"
    return None


def _explain(w: Workload, reason: str, gpus: int) -> str:
    g = get_gpu(w.gpu)
    if reason == "model too big":
        return (f"{w.name}: the model is too big: {get_model(w.model).name} with {w.seq_len:,}-token sequences does "
                f"not fit {gpus} × {g.name}")
    if reason == "tpot":
        one = _scenario(w, gpus, 1)
        return (f"{w.name}: the TPOT target is too tight for the bandwidth: on {gpus} × {g.name} even one sequence "
                f"plans {one.planned_step_s * 1e3:.3g} ms per token against {w.tpot_s * 1e3:.3g} ms")
    return (f"{w.name}: the TTFT target is too tight for the prompt: on {gpus} × {g.name} prefilling "
            f"{w.prompt_tokens * (1 - w.prefix_hit_rate):,.0f} uncached tokens plans "
            f"{planned_prefill_s(w, gpus) * 1e3:.3g} ms against {w.ttft_s * 1e3:.3g} ms")


def choose_gpus_per_replica(w: Workload) -> int:
    """The smallest power of two up to MAX_GPUS_PER_REPLICA that meets both targets; otherwise a
    PlanError naming the constraint that still binds at the largest shape tried."""
    g = 1
    while True:
        reason = _infeasible(w, g)
        if reason is None:
            return g
        if g >= MAX_GPUS_PER_REPLICA:
            raise PlanError(_explain(w, reason, g) + f" (tried replicas of 1 to {MAX_GPUS_PER_REPLICA} GPUs)")
        g *= 2


def plan(w: Workload) -> Plan:
    """The fleet for workload `w` (DESIGN §8)."""
    chosen = w.gpus_per_replica is None
    gpus = choose_gpus_per_replica(w) if chosen else w.gpus_per_replica
    replica = _replica(w, gpus)
    at_slo = None if replica is None else slo_batch(w, gpus, replica.max_batch)
    if at_slo is None:
        reason = "model too big" if replica is None else "tpot"
        hint = ""
        try:
            hint = f"; {choose_gpus_per_replica(w)} GPUs per replica would meet both targets"
        except PlanError:
            pass
        raise PlanError(_explain(w, reason, gpus) + hint)
    capacity = f.tokens_per_s(at_slo.batch, at_slo.planned_step_s)
    prefill = planned_prefill_s(w, gpus)
    decode_load = w.peak_output_tokens_per_s / capacity
    prefill_load = w.peak_requests_per_s * prefill
    load = decode_load + prefill_load
    replicas = math.ceil(round(load * (1 + w.headroom), 9))
    price = at_slo.price_per_gpu_hour
    fleet = replicas * gpus
    return Plan(
        name=w.name, model=w.model, gpu=w.gpu, gpus_per_replica=gpus, gpus_per_replica_chosen=chosen,
        layout=w.layout, weights_dtype=w.weights, kv_dtype=w.kv, seq_len=w.seq_len, max_batch=replica.max_batch,
        slo_batch=at_slo.batch, step_s=at_slo.decode_step_s, planned_step_s=at_slo.planned_step_s,
        decode_tokens_per_s_per_replica=capacity, planned_prefill_s=prefill,
        peak_requests_per_s=w.peak_requests_per_s, peak_input_tokens_per_s=w.peak_requests_per_s * w.prompt_tokens,
        peak_output_tokens_per_s=w.peak_output_tokens_per_s, replica_seconds_per_s=load,
        decode_replicas=decode_load, prefill_replicas=prefill_load,
        prefill_share=prefill_load / load, replicas=replicas, gpus=fleet, price_per_gpu_hour=price,
        cost_per_day=None if price is None else fleet * price * 24,
        cost_per_million_output_tokens=(None if price is None
                                        else fleet * price / 3600 / w.peak_output_tokens_per_s * 1e6),
        ttft_ok=prefill <= w.ttft_s, tpot_ok=at_slo.planned_step_s <= w.tpot_s, efficiency=w.efficiency,
        headroom=w.headroom, prefix_hit_rate=w.prefix_hit_rate,
        uncached_prompt_tokens=w.prompt_tokens * (1 - w.prefix_hit_rate),
        binding="kv" if at_slo.batch == replica.max_batch else "tpot", kv_bytes_per_seq=replica.kv_bytes_per_seq,
        workload=w, at_slo=at_slo,
    )


def cheapest(w: Workload, largest: int = NODE_GPUS) -> Plan:
    """The plan with the fewest GPUs over replica shapes of 1, 2, 4, ... `largest` GPUs that meet both
    targets (ties go to the smaller shape). Not always the smallest shape that meets them: a wider
    replica splits the weight read over more GPUs, so the SLO batch, and the tokens per GPU, grow."""
    plans = []
    g = 1
    while g <= largest:
        try:
            p = plan(dataclasses.replace(w, gpus_per_replica=g))
            if p.ttft_ok:
                plans.append(p)
        except PlanError:
            pass
        g *= 2
    if not plans:
        choose_gpus_per_replica(w)  # raises, naming the constraint that binds
        raise PlanError(f"{w.name}: no replica of at most {largest} GPUs meets both targets")
    return min(plans, key=lambda p: (p.gpus, p.gpus_per_replica))
