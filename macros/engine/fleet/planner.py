"""The capacity planner (ARCHITECTURE.md): a workload on a fleet, through the same formulas as one replica.

A workload (model, GPU, replica shape, traffic at its peak, TTFT and TPOT targets, efficiency,
headroom, price) gives the batch the TPOT target allows on one replica, that replica's decode
capacity and its prefill time per request, and from those the replicas, GPUs and cost at peak.
First order, and said so wherever it is shown: no queueing, no burstiness within the peak, every
sequence at its full context (the worst case), prefill and decode sharing replica time.

A pinned replica shape (a workload's gpus_per_replica) is a default, not a promise: when a changed
spec means it can no longer meet a target, the planner widens it (powers of two, up to one node) and
the plan records from what, to what and why. When no shape it may use meets the targets, its answer
is an Infeasible result naming the target still missed on the widest shape: not an exception.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import formulas as f
from ..lookup import InputError, get_gpu, get_model
from ..memo import memoized
from ..model.scenario import Scenario, prefill_floor_s, scenario
from .workload_file import Workload

MAX_GPUS_PER_REPLICA = 64  # the search stops here: past a rack, one replica is not a sensible shape
NODE_GPUS = 8  # one NVLink node of an HGX system: the widest a pinned shape is widened to, and cheapest()'s limit

JSON_KEYS = (
    "name", "model", "gpu", "gpus_per_replica", "layout", "weights_dtype", "kv_dtype", "seq_len", "max_batch",
    "slo_batch", "step_s", "planned_step_s", "decode_tokens_per_s_per_replica", "planned_prefill_s",
    "peak_requests_per_s", "peak_input_tokens_per_s", "peak_output_tokens_per_s", "prefill_share", "replicas",
    "gpus", "price_per_gpu_hour", "cost_per_day", "cost_per_million_output_tokens", "ttft_ok", "tpot_ok",
    "efficiency", "headroom", "prefix_hit_rate", "uncached_prompt_tokens", "replica_seconds_per_s", "binding",
    "kv_bytes_per_seq",
    # widening and infeasibility: null where there is nothing to say
    "feasible", "gpus_per_replica_pinned", "widened_because", "infeasible_because", "shortfall_planned_s",
    "shortfall_target_s",
)

MEMORY, TPOT, TTFT = "memory", "tpot", "ttft"  # the constraints a replica shape can fail, in the order checked


class PlanError(InputError):
    """A caller needed a plan and the planner had none: the message names the workload (and the caller
    adds its file) and the target that cannot be met."""


@dataclass(frozen=True)
class Shortfall:
    """Why one replica shape cannot serve a workload: the first constraint it fails, with its figures."""
    gpus_per_replica: int
    constraint: str  # MEMORY (the weights, the reserve and one sequence do not fit), TPOT or TTFT
    planned_s: float | None  # TPOT: one sequence's planned step; TTFT: one request's planned prefill; MEMORY: None
    target_s: float | None  # the target it misses; None for MEMORY


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
    widened_from: Shortfall | None = None  # the pinned shape and the target it missed, when the planner widened it

    feasible: ClassVar[bool] = True  # an answer with a fleet; Infeasible's is False

    @property
    def widened(self) -> bool:
        return self.widened_from is not None

    @property
    def kv_bytes_per_seq_group(self) -> float:
        """The KV one sequence at full context holds on the replica, every copy counted (MLA under TP: one
        latent per rank), which is what a count of sequences multiplies, not kv_bytes_per_seq's one copy."""
        return self.at_slo.kv_bytes_per_seq_group

    @property
    def held_kv_bytes(self) -> float:
        """The KV the SLO batch holds at full context, every copy counted."""
        return self.slo_batch * self.kv_bytes_per_seq_group

    @property
    def spare_kv_bytes(self) -> float:
        """The KV budget the SLO batch leaves free (0 when the KV budget is what caps the batch, less a part
        sequence)."""
        return self.at_slo.kv_budget_bytes - self.held_kv_bytes

    @property
    def kv_bytes_per_token(self) -> float:
        """The KV one token of context holds on the replica, every copy counted."""
        return self.kv_bytes_per_seq_group / self.seq_len

    @property
    def time_in_system_s(self) -> float:
        """A request's planned time on a replica: its prefill, then its output at the planned step (no queue)."""
        return self.planned_prefill_s + self.workload.output_tokens * self.planned_step_s

    @property
    def live_sequences(self) -> float:
        """Sequences a replica holds at once at peak, by Little's law: its share of the peak arrivals times
        the planned time in system. Fewer than the SLO batch, which is what a replica could hold, not what
        the headroom and the prefill share leave it holding."""
        return f.in_system(self.peak_requests_per_s / self.replicas, self.time_in_system_s)

    @property
    def cache_room_bytes(self) -> float:
        """The KV budget the live sequences leave for cached prefixes at peak, every copy counted (each live
        sequence at full context, the planner's worst case)."""
        return self.at_slo.kv_budget_bytes - self.live_sequences * self.kv_bytes_per_seq_group

    def as_json(self) -> dict[str, Any]:
        short = self.widened_from
        extra = {"feasible": True, "gpus_per_replica_pinned": self.workload.gpus_per_replica,
                 "widened_because": None if short is None else short.constraint, "infeasible_because": None,
                 "shortfall_planned_s": None if short is None else short.planned_s,
                 "shortfall_target_s": None if short is None else short.target_s}
        return {key: extra[key] if key in extra else getattr(self, key) for key in JSON_KEYS}


@dataclass(frozen=True)
class Infeasible:
    """The planner's answer when no replica shape it may use meets the targets: the widest shape tried and
    the constraint it still fails, and the pinned shape's own shortfall when the workload pinned one."""
    workload: Workload
    widest: Shortfall
    pinned: Shortfall | None  # None when the planner was choosing the shape

    feasible: ClassVar[bool] = False

    @property
    def message(self) -> str:
        """One line: the workload, the target missed on the widest shape, the shapes tried."""
        first, widest = 1 if self.pinned is None else self.pinned.gpus_per_replica, self.widest.gpus_per_replica
        tried = f"{first}" if first == widest else f"{first} to {widest}"
        return f"{self.workload.name}: {explain(self.workload, self.widest)} (tried replicas of {tried} GPUs)"

    def as_json(self) -> dict[str, Any]:
        """The workload's own figures and the shortfall; null for every figure a plan would have."""
        w = self.workload
        own = {"name": w.name, "model": w.model, "gpu": w.gpu, "layout": w.layout, "weights_dtype": w.weights,
               "kv_dtype": w.kv, "seq_len": w.seq_len, "peak_requests_per_s": w.peak_requests_per_s,
               "peak_input_tokens_per_s": w.peak_requests_per_s * w.prompt_tokens,
               "peak_output_tokens_per_s": w.peak_output_tokens_per_s, "efficiency": w.efficiency,
               "headroom": w.headroom, "prefix_hit_rate": w.prefix_hit_rate,
               "uncached_prompt_tokens": w.prompt_tokens * (1 - w.prefix_hit_rate),
               "gpus_per_replica": self.widest.gpus_per_replica, "feasible": False,
               "gpus_per_replica_pinned": w.gpus_per_replica, "widened_because": None,
               "infeasible_because": self.widest.constraint, "shortfall_planned_s": self.widest.planned_s,
               "shortfall_target_s": self.widest.target_s}
        return {key: own.get(key) for key in JSON_KEYS}


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


def shortfall(w: Workload, gpus: int) -> Shortfall | None:
    """Why `gpus` GPUs per replica cannot serve the workload (the first constraint missed), or None when
    they can."""
    s = _replica(w, gpus)
    if s is None:
        return Shortfall(gpus, MEMORY, None, None)
    if slo_batch(w, gpus, s.max_batch) is None:
        return Shortfall(gpus, TPOT, _scenario(w, gpus, 1).planned_step_s, w.tpot_s)
    prefill = planned_prefill_s(w, gpus)
    if prefill > w.ttft_s:
        return Shortfall(gpus, TTFT, prefill, w.ttft_s)
    return None


def explain(w: Workload, short: Shortfall) -> str:
    """A shortfall as an error message's words (the site's words come from macros/text/plan_report.py)."""
    g, gpus = get_gpu(w.gpu), short.gpus_per_replica
    if short.constraint == MEMORY:
        return (f"the model is too big: {get_model(w.model).name} with {w.seq_len:,}-token sequences does not fit "
                f"{gpus} × {g.name}")
    if short.constraint == TPOT:
        return (f"the TPOT target is too tight for the bandwidth: on {gpus} × {g.name} even one sequence plans "
                f"{short.planned_s * 1e3:.3g} ms per token against {w.tpot_s * 1e3:.3g} ms")
    return (f"the TTFT target is too tight for the prompt: on {gpus} × {g.name} prefilling "
            f"{w.prompt_tokens * (1 - w.prefix_hit_rate):,.0f} uncached tokens plans "
            f"{short.planned_s * 1e3:.3g} ms against {w.ttft_s * 1e3:.3g} ms")


def _shapes(w: Workload) -> list[int]:
    """The replica shapes the planner may use, in the order it tries them: with none pinned, 1, 2, 4, ...
    MAX_GPUS_PER_REPLICA; with one pinned, that shape, then the wider powers of two within a node."""
    if w.gpus_per_replica is None:
        return [2 ** k for k in range(MAX_GPUS_PER_REPLICA.bit_length())]
    pinned = w.gpus_per_replica
    return [pinned] + [2 ** k for k in range(NODE_GPUS.bit_length()) if pinned < 2 ** k <= NODE_GPUS]


@memoized
def plan(w: Workload) -> Plan | Infeasible:
    """The fleet for workload `w` (ARCHITECTURE.md) on the first shape that meets both targets (the pinned
    shape when it does), or Infeasible when none does."""
    pinned = None
    for gpus in _shapes(w):
        short = shortfall(w, gpus)
        if short is None:
            return _fleet(w, gpus, widened_from=pinned)
        if gpus == w.gpus_per_replica:
            pinned = short
    return Infeasible(w, short, pinned)


def plan_shape(w: Workload, gpus: int) -> Plan | Shortfall:
    """The fleet for `w` on exactly `gpus` GPUs per replica, never widened (a table of shapes, the
    cheapest shape), or the shape's shortfall."""
    short = shortfall(w, gpus)
    return short if short is not None else _fleet(dataclasses.replace(w, gpus_per_replica=gpus), gpus)


def require(result: Plan | Infeasible, where: str) -> Plan:
    """The plan, for a caller that cannot go on without one: an Infeasible result becomes a PlanError whose
    one line starts with `where` (the caller's file and entry)."""
    if isinstance(result, Infeasible):
        raise PlanError(f"{where}: {result.message}")
    return result


def _sized(w: Workload, gpus: int, capacity: float, prefill_s: float, price: float | None) -> dict[str, Any]:
    """The fleet for `w` from one replica's decode `capacity` (tokens/s) and one request's planned prefill: the
    load at peak, the replicas that carry it with the headroom, and what they cost."""
    decode_load = f.decode_replicas(w.peak_output_tokens_per_s, capacity)
    prefill_load = f.prefill_replicas(w.peak_requests_per_s, prefill_s)
    load = decode_load + prefill_load
    replicas = f.replicas_for_load(load, w.headroom)
    fleet = replicas * gpus
    return dict(
        planned_prefill_s=prefill_s, replica_seconds_per_s=load, decode_replicas=decode_load,
        prefill_replicas=prefill_load, prefill_share=prefill_load / load, replicas=replicas, gpus=fleet,
        cost_per_day=None if price is None else f.cost_per_day(fleet, price),
        cost_per_million_output_tokens=None if price is None else f.cost_per_million_tokens_at_peak(
            fleet, price, w.peak_output_tokens_per_s),
        ttft_ok=prefill_s <= w.ttft_s)


def with_prefill(p: Plan, prefill_s: float) -> Plan:
    """Plan p with each request's planned prefill at `prefill_s` (prompts packed many to a step, say) instead
    of prefilled alone: the same replica and batch, the fleet resized to the new load."""
    return dataclasses.replace(p, **_sized(p.workload, p.gpus_per_replica, p.decode_tokens_per_s_per_replica,
                                           prefill_s, p.price_per_gpu_hour))


def _fleet(w: Workload, gpus: int, widened_from: Shortfall | None = None) -> Plan:
    """The plan on `gpus` GPUs per replica, a shape that meets both targets."""
    replica = _replica(w, gpus)
    at_slo = None if replica is None else slo_batch(w, gpus, replica.max_batch)
    assert replica is not None and at_slo is not None, "shortfall() let through a shape that cannot serve"
    capacity = f.tokens_per_s(at_slo.batch, at_slo.planned_step_s)
    return Plan(
        name=w.name, model=w.model, gpu=w.gpu, gpus_per_replica=gpus,
        gpus_per_replica_chosen=w.gpus_per_replica is None, layout=w.layout, weights_dtype=w.weights, kv_dtype=w.kv,
        seq_len=w.seq_len, max_batch=replica.max_batch,
        slo_batch=at_slo.batch, step_s=at_slo.decode_step_s, planned_step_s=at_slo.planned_step_s,
        decode_tokens_per_s_per_replica=capacity,
        peak_requests_per_s=w.peak_requests_per_s, peak_input_tokens_per_s=w.peak_requests_per_s * w.prompt_tokens,
        peak_output_tokens_per_s=w.peak_output_tokens_per_s, price_per_gpu_hour=at_slo.price_per_gpu_hour,
        **_sized(w, gpus, capacity, planned_prefill_s(w, gpus), at_slo.price_per_gpu_hour),
        tpot_ok=at_slo.planned_step_s <= w.tpot_s, efficiency=w.efficiency,
        headroom=w.headroom, prefix_hit_rate=w.prefix_hit_rate,
        uncached_prompt_tokens=w.prompt_tokens * (1 - w.prefix_hit_rate),
        binding="kv" if at_slo.batch == replica.max_batch else "tpot", kv_bytes_per_seq=replica.kv_bytes_per_seq,
        workload=w, at_slo=at_slo, widened_from=widened_from,
    )


def cheapest(w: Workload, largest: int = NODE_GPUS) -> Plan | Infeasible:
    """The plan with the fewest GPUs over replica shapes of 1, 2, 4, ... `largest` GPUs that meet both
    targets (ties go to the smaller shape), or Infeasible on the widest. Not always the smallest shape
    that meets them: a wider replica splits the weight read over more GPUs, so the SLO batch, and the
    tokens per GPU, grow."""
    plans, short = [], None
    for gpus in (2 ** k for k in range(largest.bit_length())):
        result = plan_shape(w, gpus)
        if isinstance(result, Shortfall):
            short = result
        else:
            plans.append(result)
    if not plans:
        assert short is not None
        return Infeasible(w, short, None)
    return min(plans, key=lambda p: (p.gpus, p.gpus_per_replica))
