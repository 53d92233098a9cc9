"""The planner's one answer (`gpu_math.py plan --json`, the planner page, the worked designs): the fleet the
serving model supports at the workload's targets, with the napkin's figures kept under their own names.

Colocated, the answer is found by simulation (planner_simulated.py): on each replica shape and token budget
it may use, the smallest count that meets every target at peak, and of those the fleet with the fewest GPUs
(the narrower shape, then the engine's default budget, then the larger budget, on a tie). A workload that
pins gpus_per_replica is simulated on that shape only (the napkin's, after any widening); one that does not
is tried on every power of two up to a node, and on the napkin's own shape, except those that cannot hold the
weights. A workload that pins no token_budget is tried at the engine's default budget and at TOKEN_BUDGETS: the
budget trades the steps that carry a prefill chunk (a long gap between tokens, and a slower time per token, for
every stream sharing them) against the time to first token (a prompt split in more chunks waits longer), whichever
of them the workload bounds; one that pins it runs at its own. Disaggregated, the answer is the two pools together
(disaggregated.py), so its GPUs are the prefill pool's plus the decode pool's. Its cost is the fleet held all
day at the price per GPU-hour, and per million output tokens at the peak's rate (the day's average cost per
token is higher by the peak-to-mean ratio). The napkin's replicas, GPUs, shape and costs, the first-order
derivation a candidate does at the whiteboard, are napkin_replicas, napkin_gpus, ... beside it: never the
answer.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from .. import formulas as f
from ..memo import memoized
from ..serving.names import FLEET_MODES
from ..serving.profiles import profile
from .fleet_options import FleetOptions, options
from .planner import MEMORY, NODE_GPUS, Infeasible, Plan, Shortfall, plan_shape
from .planner_simulated import SimulatedPlan, simulated_plan, simulated_shape
from .workload_file import Workload

DISAGGREGATED = FLEET_MODES[1]
ANSWER_KEYS = ("feasible", "replicas", "gpus_per_replica", "token_budget", "gpus", "cost_per_day",
               "cost_per_million_output_tokens")
TOKEN_BUDGETS = (2048, 1024, 512, 256)  # tried beside the engine's default (Sarathi-Serve's chunk sizes run 256-2048)
NAPKIN_PREFIX = "napkin_"
# the simulation's count and shape are the answer's, not repeated
SIMULATED_COUNT_KEYS = ("simulated_replicas", "simulated_gpus_per_replica", "simulated_gpus", "simulated_feasible")


def keys(napkin: tuple[str, ...], simulated: tuple[str, ...], fleet: tuple[str, ...]) -> tuple[str, ...]:
    """plan --json's keys in order: the answer, where it came from and the shapes it tried, the napkin's (its
    answer keys renamed), the simulation's and the fleet options'."""
    return (*ANSWER_KEYS, "answer_from", "answer_tried",
            *(NAPKIN_PREFIX + k if k in ANSWER_KEYS else k for k in napkin),
            *(k for k in simulated if k not in SIMULATED_COUNT_KEYS), *fleet)


def joined(napkin: dict[str, Any], simulated: dict[str, Any], fleet: dict[str, Any], budget: int | None,
           tried: list[dict[str, Any]]) -> dict[str, Any]:
    """The parts' JSON (planner.Plan or Infeasible, the chosen run's planner_simulated.SimulatedPlan, fleet_options,
    the chosen token budget and each shape and budget tried with its simulated GPUs) as one object under keys():
    null where the answer has no fleet."""
    if fleet["mode"] == DISAGGREGATED:
        source, shape = "disaggregated-pools", None
        pools = (fleet["prefill_pool_replicas"], fleet["decode_pool_replicas"])
        replicas = None if None in pools else sum(pools)
        gpus = fleet["disaggregated_gpus"]
    else:
        source = "simulation"
        replicas, shape, gpus = (simulated["simulated_replicas"], simulated["simulated_gpus_per_replica"],
                                 simulated["simulated_gpus"])
    price, peak = napkin["price_per_gpu_hour"], napkin["peak_output_tokens_per_s"]
    priced = gpus is not None and price is not None
    return {
        "feasible": gpus is not None, "replicas": replicas, "gpus_per_replica": shape if gpus is not None else None,
        "token_budget": budget if gpus is not None and source == "simulation" else None, "gpus": gpus,
        "cost_per_day": f.cost_per_day(gpus, price) if priced else None,
        "cost_per_million_output_tokens": f.cost_per_million_tokens_at_peak(gpus, price, peak) if priced else None,
        "answer_from": source, "answer_tried": tried,
        **{NAPKIN_PREFIX + k if k in ANSWER_KEYS else k: v for k, v in napkin.items()},
        **{k: v for k, v in simulated.items() if k not in SIMULATED_COUNT_KEYS}, **fleet,
    }


@dataclass(frozen=True)
class Answer:
    """A workload's answer with the parts it is made of: the napkin (its derivation), the simulation at each
    (GPUs per replica, token budget) tried (`tried`; budget None: the engine's default) and the chosen one
    (`simulated`), the fleet options, and plan --json's object (`json`)."""
    napkin: Plan | Infeasible
    simulated: SimulatedPlan
    tried: dict[tuple[int, int | None], SimulatedPlan]
    options: FleetOptions
    json: dict[str, Any]

    def __getattr__(self, key: str) -> Any:
        """The answer's figures by their plan --json names: a.gpus, a.cost_per_day, a.ttft_p95_s, a.napkin_gpus."""
        try:
            return self.__dict__["json"][key]
        except KeyError:
            raise AttributeError(key) from None

    @property
    def shapes(self) -> dict[int, SimulatedPlan]:
        """The runs at the chosen budget, by GPUs per replica."""
        return {g: s for (g, b), s in self.tried.items() if b == self.budget}

    @property
    def budget(self) -> int | None:
        """The chosen token budget as the run gives it (None: the engine's default)."""
        return self.simulated.workload.token_budget


def shapes_to_try(p: Plan) -> list[int]:
    """The napkin's shape when the workload pins one; otherwise every power of two up to a node and the
    napkin's own shape."""
    if p.workload.gpus_per_replica is not None:
        return [p.gpus_per_replica]
    return sorted({2 ** k for k in range(NODE_GPUS.bit_length())} | {p.gpus_per_replica})


def budgets_to_try(w: Workload) -> list[int | None]:
    """The workload's own budget, or with none pinned, the engine's default (None) and TOKEN_BUDGETS."""
    if w.token_budget is not None:
        return [w.token_budget]
    return [None, *(b for b in TOKEN_BUDGETS if b != default_budget(w))]


def default_budget(w: Workload) -> int:
    """The engine's own tokens per step for this model, GPU and weights."""
    return profile(w.engine, w.gpu, w.model, w.weights).token_budget


def simulated_shapes(p: Plan) -> dict[tuple[int, int | None], SimulatedPlan]:
    """Each shape and budget to try, simulated from the napkin's count on the shape (or, where the napkin rejects
    the shape on a target, from the napkin's GPUs over the shape), except shapes that cannot hold the weights.
    At the engine's default budget each shape is searched in full; another budget is searched only if it beats
    the fewest GPUs found so far (its run at one fleet fewer meets the targets), else it is NOT_FEWER after one
    run. The options go in the order that breaks ties: narrower shapes first, then the default budget, then
    the larger budgets."""
    out: dict[tuple[int, int | None], SimulatedPlan] = {}
    best: int | None = None
    budgets = budgets_to_try(p.workload)
    for g in shapes_to_try(p):
        if g == p.gpus_per_replica:
            start = p.replicas
        else:
            at = plan_shape(p.workload, g)
            if isinstance(at, Shortfall) and at.constraint == MEMORY:
                continue
            start = math.ceil(p.gpus / g) if isinstance(at, Shortfall) else at.replicas
        for b in budgets:
            most = None if b is None or best is None else (best - 1) // g
            s = out[g, b] = simulated_shape(dataclasses.replace(p.workload, token_budget=b), g, start, most)
            if s.feasible and (best is None or s.gpus < best):
                best = s.gpus
    return out


# In a build, each design's answers are asked for by page after page (its own, the index, the mock round), and a
# rebuild with the same code and data reads them from the last (memo.py, keep).
@memoized(keep=True)
def answer(result: Plan | Infeasible) -> Answer:
    """The answer for a napkin plan (or its Infeasible): the fewest GPUs over the shapes and budgets simulated,
    with the fleet options."""
    extra = options(result)
    w = result.workload
    if isinstance(result, Infeasible):
        tried, chosen = {}, simulated_plan(result)
    else:
        tried = simulated_shapes(result)
        feasible = [s for s in tried.values() if s.feasible]  # in tie-breaking order: min keeps the first
        # none feasible: the napkin's shape at the first budget tried, which was searched in full
        chosen = min(feasible, key=lambda s: s.gpus) if feasible else next(
            s for (g, _), s in tried.items() if g == result.gpus_per_replica)
    own = None if isinstance(result, Infeasible) else default_budget(w)  # the engine's, looked up once

    def resolved(b: int | None) -> int | None:
        return own if b is None else b

    listed = [{"gpus_per_replica": g, "token_budget": resolved(b), "gpus": s.gpus,
               "why_none": s.infeasible_because} for (g, b), s in tried.items()]
    budget = None if isinstance(result, Infeasible) else resolved(chosen.workload.token_budget)
    return Answer(result, chosen, tried, extra,
                  joined(result.as_json(), chosen.as_json(), extra.as_json(), budget, listed))
