"""What a plan adds beside the napkin's fleet and its simulated check (ARCHITECTURE.md, the serving model): the
replica shape the search chooses and its runner-up, disaggregated pools when the workload's [fleet] asks for
them, and speculative decoding when it gives a draft length and an acceptance rate. Each is the engine's own
module (shapes.py, disaggregated.py, serving/speculative.py); this only puts their answers under the keys
`gpu_math.py plan --json` prints, null where a figure does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..serving.calibration import params_for
from ..serving.names import FLEET_MODES
from ..serving.replica import build_replica
from ..serving.speculative import SpeculativeStep, break_even_batch, speculative_step
from ..serving.step import costs
from .disaggregated import Disaggregated, disaggregate
from .planner import Infeasible, Plan
from .shapes import ShapeSearch, for_workload
from .workload_file import Workload

COLOCATED, DISAGGREGATED = FLEET_MODES
JSON_KEYS = (
    "mode", "shape_search_best", "shape_search_best_output_tokens_per_s_per_gpu", "shape_search_runner_up",
    "shape_search_runner_up_output_tokens_per_s_per_gpu",
    "prefill_pool_replicas", "prefill_gpus_per_replica", "decode_pool_replicas", "decode_gpus_per_replica",
    "kv_transfer_s", "disaggregated_ttft_s", "disaggregated_gpus", "colocated_gpus",
    "speculative_tokens_per_step", "speculative_speedup", "speculative_break_even_batch",
)


@dataclass(frozen=True)
class FleetOptions:
    workload: Workload
    shapes: ShapeSearch
    split: Disaggregated | None  # the pools, in disaggregated mode
    speculative: SpeculativeStep | None  # at the napkin's SLO batch, with the workload's drafts
    break_even_batch: int | None

    def as_json(self) -> dict[str, Any]:
        chosen, runner, s = self.shapes.chosen, self.shapes.runner_up, self.split
        out = {
            "mode": self.workload.mode,
            "shape_search_best": None if chosen is None else chosen.shape.label,
            "shape_search_best_output_tokens_per_s_per_gpu": None if chosen is None else
            chosen.best.output_tokens_per_s_per_gpu,
            "shape_search_runner_up": None if runner is None else runner.shape.label,
            "shape_search_runner_up_output_tokens_per_s_per_gpu": None if runner is None else
            runner.best.output_tokens_per_s_per_gpu,
            "prefill_pool_replicas": s and s.prefill and s.prefill.replicas,
            "prefill_gpus_per_replica": s and s.prefill and s.prefill.shape.gpus,
            "decode_pool_replicas": s and s.decode and s.decode.replicas,
            "decode_gpus_per_replica": s and s.decode and s.decode.shape.gpus,
            "kv_transfer_s": s and s.kv_transfer_s, "disaggregated_ttft_s": s and s.ttft_s,
            "disaggregated_gpus": s and s.gpus, "colocated_gpus": s and s.colocated_gpus,
            "speculative_tokens_per_step": self.speculative and self.speculative.tokens_per_step,
            "speculative_speedup": self.speculative and self.speculative.speedup,
            "speculative_break_even_batch": self.break_even_batch,
        }
        return {k: out[k] for k in JSON_KEYS}


def options(p: Plan | Infeasible) -> FleetOptions:
    """The shape search for the plan's workload, its pools in disaggregated mode, and its speculative step."""
    w = p.workload
    found = for_workload(w, w.engine)
    split = None
    if w.mode == DISAGGREGATED:
        uncached = max(1, round(w.prompt_tokens * (1 - w.prefix_hit_rate)))
        # The whole prompt, of which the prefix cache holds the rest: the pools prefill `uncached` new tokens.
        split = disaggregate(w.model, w.gpu, w.weights, w.kv, w.engine, w.prompt_tokens, w.prompt_tokens - uncached,
                             w.output_tokens, w.peak_requests_per_s, w.ttft_s, w.tpot_s, w.headroom, colocated=found)
    spec = even = None
    if w.draft_tokens is not None and not isinstance(p, Infeasible):
        # At the napkin's replica shape and SLO batch, every sequence at its mean context.
        r = build_replica(w.model, w.gpu, p.gpus_per_replica, w.layout, 1, w.weights, w.kv)
        c = costs(r, params_for(w.gpu, w.engine, r.attention))
        context = w.prompt_tokens + w.output_tokens / 2
        spec = speculative_step(c, max(1, p.slo_batch), context, w.draft_tokens, w.acceptance)
        even = break_even_batch(c, context, w.draft_tokens, w.acceptance)
    return FleetOptions(w, found, split, spec, even)
