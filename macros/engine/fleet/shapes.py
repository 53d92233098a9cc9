"""The shape search (ARCHITECTURE.md): which replica shape serves a workload best per GPU, under the fitted step
model with its communication, and the curve the search walked.

Each candidate shape (tensor parallelism over 1, 2, 4 or 8 GPUs of one node; for a MoE model also attention
data parallelism with the experts spread over every rank) runs a closed loop at concurrencies 1, 2, 3, 4, 6, ...
up to what its KV pool and its engine's running cap hold, solved at the loop's equilibrium (serving/steady.py:
the same step model the simulator steps, without the simulator's run-to-run detail). Every point gives
output tokens/s per GPU against tokens/s per user (1 / TPOT): the two axes InferenceMAX publishes. A shape's
best point is its highest tokens/s per GPU whose mean TTFT and TPOT meet the targets; the chosen shape has
the best such point (fewer GPUs per replica breaking a tie within 1 %), and the runner-up is the next.

What it leaves out: queueing beyond the closed loop's own (the percentile planner simulates open-loop
arrivals at peak), the cached prefix's KV in the decode context (a workload's prefix hit shortens its
prompts), and shapes wider than one node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lookup import InputError, get_model
from ..memo import memoized
from ..serving.calibration import calibration, params_for, step_params
from ..serving.families import family_of
from ..serving.kv_blocks import pool_blocks
from ..serving.profiles import profile, rank_limits
from ..serving.replica import Replica, build_replica
from ..serving.steady import ClosedLoopSetup, equilibrium
from ..serving.step import StepTerms, costs, step_terms
from ..serving.types import StepBatch
from ..specs import DATA_DIR, read_toml
from ..stacked import stacked
from .workload_file import Workload, parse

SCENARIOS = DATA_DIR / "shape_scenarios.toml"

NODE_WIDTHS = (1, 2, 4, 8)
MAX_CONCURRENCY = 1024
# 1, 2, 3, 4, 6, 8, 12, ... 1024: powers of two and the steps half-way between them (in log), as
# benchmark sweeps space their concurrencies, a little finer.
CONCURRENCIES = tuple(sorted({2 ** i for i in range(11)} | {3 * 2 ** i for i in range(9)}))
SEARCH_TOLERANCE = 1e-6  # the equilibrium's: a part in a million is far finer than the 1 % tie
TIE = 0.01  # a shape within 1 % of the best per GPU counts as tied; the narrower one is chosen


@dataclass(frozen=True)
class Shape:
    gpus: int
    layout: str  # "tp" or "dp-attention"
    ep: int  # expert-parallel ranks (1: experts split by tensor parallelism)

    @property
    def label(self) -> str:
        return f"TP{self.gpus}" if self.layout == "tp" else f"DP-attention {self.gpus}, EP {self.ep}"


@dataclass(frozen=True)
class Point:
    """One shape at one concurrency, at the closed loop's equilibrium."""

    shape: Shape
    concurrency: int
    tpot_s: float
    ttft_s: float
    tokens_per_s_per_user: float  # 1 / TPOT
    output_tokens_per_s_per_gpu: float
    meets: bool  # mean TTFT and TPOT within the targets


@dataclass(frozen=True)
class ShapeResult:
    shape: Shape
    best: Point | None  # the highest tokens/s per GPU meeting the targets
    lightest: Point | None  # concurrency 1: when even it misses a target, no load meets them
    does_not_fit: str | None  # why the shape holds no sequence at all


@dataclass(frozen=True)
class ShapeSearch:
    results: tuple[ShapeResult, ...]
    points: tuple[Point, ...]
    pareto: tuple[Point, ...]  # the points no other beats on both axes, by tokens/s per user
    chosen: ShapeResult | None
    runner_up: ShapeResult | None

    @property
    def tied(self) -> bool:
        """The runner-up is within TIE per GPU of the chosen shape, which won by being narrower."""
        return self.runner_up is not None and (self.runner_up.best.output_tokens_per_s_per_gpu
                                               >= (1 - TIE) * self.chosen.best.output_tokens_per_s_per_gpu)


def candidates(model: str) -> tuple[Shape, ...]:
    """TP over 1 to 8 GPUs; for a MoE model also attention-DP with EP over 2 to 8."""
    shapes = [Shape(g, "tp", 1) for g in NODE_WIDTHS]
    if get_model(model).is_moe:
        shapes += [Shape(g, "dp-attention", g) for g in NODE_WIDTHS if g > 1]
    return tuple(shapes)


@memoized(keep=True)  # the chapters and the pools' pages search the same shapes; a rebuild reads them
def search(model: str, gpu: str, weights: str, kv: str, engine: str, prompt_tokens: int, output_tokens: int,
           ttft_s: float, tpot_s: float) -> ShapeSearch:
    """Every candidate shape's closed-loop curve, the best point of each within the targets, the chosen
    shape and its runner-up. Raises InputError for a GPU the serving model has no parameters for."""
    family = family_of(gpu).key
    values = calibration().values
    rows: list[tuple[Shape, int, Replica]] = []
    results: dict[Shape, str] = {}
    for shape in candidates(model):
        try:
            replica = build_replica(model, gpu, shape.gpus, shape.layout, shape.ep, weights, kv)
        except InputError as exc:
            results[shape] = str(exc)
            continue
        prof = profile(engine, gpu, model, weights)
        held = pool_blocks(replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens
        most = min(held // (prompt_tokens + output_tokens), rank_limits(prof, replica.ranks)[1], MAX_CONCURRENCY)
        if most < 1:
            results[shape] = "the weights leave no room for one sequence's KV cache"
            continue
        rows += [(shape, c, replica) for c in CONCURRENCIES if c <= most]
    points = _solve(rows, family, engine, values, prompt_tokens, output_tokens, ttft_s, tpot_s, gpu, model, weights)
    shape_results = []
    for shape in candidates(model):
        mine = [p for p in points if p.shape == shape]
        good = [p for p in mine if p.meets]
        best = max(good, key=lambda p: p.output_tokens_per_s_per_gpu, default=None)
        shape_results.append(ShapeResult(shape, best, mine[0] if mine else None, results.get(shape)))
    ranked = sorted((r for r in shape_results if r.best), key=lambda r: -r.best.output_tokens_per_s_per_gpu)
    if ranked:  # within the tie, the narrowest replica
        top = ranked[0].best.output_tokens_per_s_per_gpu
        tied = [r for r in ranked if r.best.output_tokens_per_s_per_gpu >= (1 - TIE) * top]
        chosen = min(tied, key=lambda r: r.shape.gpus)
        ranked = [chosen] + [r for r in ranked if r is not chosen]
    chosen, runner = (ranked + [None, None])[:2]
    return ShapeSearch(tuple(shape_results), tuple(points), pareto(points), chosen, runner)


def _solve(rows: list, family: str, engine: str, values: dict, prompt: int, output: int, ttft_s: float,
           tpot_s: float, gpu: str, model: str, weights: str) -> list[Point]:
    if not rows:
        return []
    n = len(rows)
    replicas = stacked([r for _, _, r in rows])
    attention = np.array([r.attention for _, _, r in rows])
    p = step_params(values, np.full(n, family), np.full(n, engine), attention)
    profs = [profile(engine, gpu, model, weights, c) for _, c, _ in rows]
    setup = ClosedLoopSetup(
        concurrency=np.array([c for _, c, _ in rows], float), prompt=np.full(n, float(prompt)),
        output=np.full(n, float(output)), mixed=np.array([1.0 if q.policy == "mixed" else 0.0 for q in profs]),
        token_budget=np.array([rank_limits(q, r.ranks)[0] for q, (_, _, r) in zip(profs, rows)], float),
        admission_interval=np.array([q.admission_interval_steps for q in profs], float),
        graph_max_batch=np.array([q.graph_max_batch for q in profs], float),
        request_overhead_s=p.request_overhead_s + p.prompt_token_overhead_s * prompt)
    eq = equilibrium(costs(replicas, p), setup, SEARCH_TOLERANCE)
    return [Point(shape, c, float(eq.tpot_s[i]), float(eq.ttft_s[i]), float(1 / eq.tpot_s[i]),
                  float(eq.output_tokens_per_s[i] / shape.gpus),
                  bool(eq.tpot_s[i] <= tpot_s and eq.ttft_s[i] <= ttft_s))
            for i, (shape, c, _) in enumerate(rows)]


def pareto(points: list[Point] | tuple[Point, ...]) -> tuple[Point, ...]:
    """The points no other point beats on both tokens/s per user and tokens/s per GPU, by per-user rate."""
    def beats(q: Point, p: Point) -> bool:
        at_least = (q.tokens_per_s_per_user >= p.tokens_per_s_per_user
                    and q.output_tokens_per_s_per_gpu >= p.output_tokens_per_s_per_gpu)
        return at_least and (q.tokens_per_s_per_user, q.output_tokens_per_s_per_gpu) != (
            p.tokens_per_s_per_user, p.output_tokens_per_s_per_gpu)

    front = [p for p in points if not any(beats(q, p) for q in points)]
    return tuple(sorted(front, key=lambda p: p.tokens_per_s_per_user))


def _point_json(p: Point | None) -> dict | None:
    return None if p is None else {
        "shape": p.shape.label, "gpus_per_replica": p.shape.gpus, "layout": p.shape.layout, "ep": p.shape.ep,
        "concurrency": p.concurrency, "ttft_s": p.ttft_s, "tpot_s": p.tpot_s,
        "tokens_per_s_per_user": p.tokens_per_s_per_user, "output_tokens_per_s_per_gpu": p.output_tokens_per_s_per_gpu}


def search_json(s: ShapeSearch) -> dict:
    """The search as `gpu_math.py shapes --json` prints it: null where there is nothing."""
    return {
        "chosen": _point_json(s.chosen and s.chosen.best), "runner_up": _point_json(s.runner_up and s.runner_up.best),
        "tied": s.tied,
        "shapes": [{"shape": r.shape.label, "best": _point_json(r.best), "lightest": _point_json(r.lightest),
                    "does_not_fit": r.does_not_fit} for r in s.results],
        "pareto": [_point_json(p) for p in s.pareto],
    }


def for_workload(w: Workload, engine: str = "vllm") -> ShapeSearch:
    """The search for a workload's model, GPU, formats, uncached prompt, output and mean targets (the
    prefix cache's saving counted as prompts that much shorter)."""
    uncached = max(1, round(w.prompt_tokens * (1 - w.prefix_hit_rate)))
    return search(w.model, w.gpu, w.weights, w.kv, engine, uncached, w.output_tokens, w.ttft_s, w.tpot_s)


def decode_terms(model: str, gpu: str, weights: str, kv: str, engine: str, shape: Shape, batch: int,
                 context: float) -> StepTerms:
    """The named terms of one decode step of `batch` sequences at `context` tokens on `shape`."""
    r = build_replica(model, gpu, shape.gpus, shape.layout, shape.ep, weights, kv)
    graphed = batch <= profile(engine, gpu, model, weights, batch).graph_max_batch
    return step_terms(costs(r, params_for(gpu, engine, r.attention)),
                      StepBatch(decode_seqs=batch, decode_context=batch * context), graphed)


def scenarios() -> dict[str, Workload]:
    """data/shape_scenarios.toml: key -> workload."""
    where = SCENARIOS.name
    return {key: parse(table, f"{where}: [{key}]") for key, table in read_toml(SCENARIOS).items()}
