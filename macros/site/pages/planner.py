"""The "Plan a fleet" page: the worked workload (data/workloads.toml names it), its answer (the serving
model's fleet at the file's targets, on each shape tried), the napkin's derivation with values substituted,
the two side by side, the file's variant, and what the page's JavaScript twin computes in the browser."""

from __future__ import annotations

import html
import json
from types import SimpleNamespace

from ...engine.autoscale.day import MINUTES_PER_DAY
from ...engine.autoscale.fluid import POLICIES
from ...engine.autoscale.run import DEFAULT_SIGNAL
from ...engine.autoscale.signals import SIGNALS
from ...engine.export import workload_json
from ...engine.fleet.answer import answer
from ...engine.fleet.planner import NODE_GPUS, plan, require
from ...engine.fleet.planner_simulated import CONFIRM_SEEDS, FRESH_SEEDS, NOT_FEWER, SEARCH_LIMIT, SEED
from ...engine.fleet.shapes import CONCURRENCIES, NODE_WIDTHS
from ...engine.fleet.workload_file import design
from ...engine.lookup import get_gpu
from ...engine.serving.run import OPEN_LOOP_REQUESTS
from ...engine.serving.steady_state import WARMUP_LIVES
from ...engine.workloads import workloads
from ...text import fmt, plan_report
from ..markdown import listed


def model() -> SimpleNamespace:
    slug = workloads()["planner_design"]
    w, variants = design(slug)
    file = f"macros/data/designs/{slug}.toml"
    p = require(plan(w), file)
    a = answer(p)
    simulated = a.simulated
    name, variant = next(iter(variants.items()), (None, None))
    gpu = get_gpu(w.gpu).name
    shapes = [(f"{g} × {gpu}", outcome(s.gpus, s.infeasible_because, s.replicas)) for g, s in a.shapes.items()]
    # the budgets tried on the answer's replica: the inter-token target's trade against the TTFT target
    budgets = [(fmt.count(t["token_budget"]), outcome(t["gpus"], t["why_none"]))
               for t in a.answer_tried if t["gpus_per_replica"] == a.gpus_per_replica]
    return SimpleNamespace(
        answer=a, shapes=shapes, budgets=budgets, simulated=simulated,
        simulated_rows=plan_report.side_by_side(p, simulated) if simulated.feasible else [],
        simulated_why_not="" if simulated.feasible else plan_report.simulated_infeasible(simulated),
        binding_target="" if simulated.binding is None else simulated.binding.words,
        # Whether Little's law puts fewer requests in flight on a replica than the napkin's SLO batch.
        fewer_live=simulated.feasible and (simulated.live_concurrency_per_replica or 0) < p.slo_batch,
        simulate_command="" if simulated.chosen is None or simulated.chosen.rate_per_s is None else
        plan_report.simulate_command(w, a.gpus_per_replica, simulated.chosen.rate_per_s, width=60),
        napkin_leaves_out=plan_report.NAPKIN_LEAVES_OUT, simulation_leaves_out=plan_report.SIMULATION_LEAVES_OUT,
        file=file, workload=w, plan=p, node_gpus=NODE_GPUS,
        steps=plan_report.steps(p),
        workload_json=html.escape(json.dumps(workload_json(w)), quote=True),  # the interactive planner's start
        variant_name=name,
        variant=None if variant is None else answer(require(plan(variant), f"{file}: [variants.{name}]")),
        decode_replicas=p.decode_replicas, prefill_replicas=p.prefill_replicas, browser=browser(),
    )


def outcome(gpus: int | None, why_none: str | None, replicas: int | None = None) -> str:
    """One option the answer tried, in words: its GPUs (and replicas, when given), or that it has none fewer, or
    none at all."""
    if gpus is not None:
        fleet = f"{fmt.count(gpus)} GPUs"
        return fleet if replicas is None else f"{fmt.count(replicas)} replicas, {fleet}"
    return "not fewer GPUs" if why_none == NOT_FEWER else "no count meets the targets"


def browser() -> SimpleNamespace:
    """What the page's interactive planner computes in the browser, in the engine's own constants: the
    simulated runs (seed, requests, how far the search walks), the shape search's widths and concurrencies,
    and the day of traffic (its minutes, the policies it offers, the one signal it scales on and the others
    only the command line has)."""
    # a run that meets is lengthened until its warm-up spans this many of its requests' lives
    return SimpleNamespace(seed=SEED, confirm_seeds=CONFIRM_SEEDS, fresh_seeds=FRESH_SEEDS,
                           confirm_seeds_listed=listed([str(s) for s in CONFIRM_SEEDS]), requests=OPEN_LOOP_REQUESTS,
                           search_limit=SEARCH_LIMIT, steady_lives=WARMUP_LIVES,
                           widths=NODE_WIDTHS, lightest=CONCURRENCIES[0], heaviest=CONCURRENCIES[-1],
                           minutes=MINUTES_PER_DAY, policies=POLICIES, signal=DEFAULT_SIGNAL,
                           other_signals=tuple(s for s in SIGNALS if s != DEFAULT_SIGNAL))
