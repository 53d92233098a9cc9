"""The "Plan a fleet" page: the worked workload (data/workloads.toml names it), its plan, each step
of the derivation with values substituted, the cheapest replica shape beside the smallest one, the
file's variant, the simulated check of the napkin's fleet at its percentile targets, and what the page's
JavaScript twin computes in the browser."""

from __future__ import annotations

import html
import json
from types import SimpleNamespace

from ...engine.autoscale.day import MINUTES_PER_DAY
from ...engine.autoscale.fluid import POLICIES
from ...engine.autoscale.run import DEFAULT_SIGNAL
from ...engine.autoscale.signals import SIGNALS
from ...engine.export import workload_json
from ...engine.fleet.planner import NODE_GPUS, cheapest, plan, require
from ...engine.fleet.planner_simulated import SEARCH_LIMIT, SEED, simulated_plan
from ...engine.fleet.shapes import CONCURRENCIES, NODE_WIDTHS
from ...engine.fleet.workload_file import design
from ...engine.serving.run import OPEN_LOOP_REQUESTS
from ...engine.workloads import workloads
from ...text import plan_report


def model() -> SimpleNamespace:
    slug = workloads()["planner_design"]
    w, variants = design(slug)
    file = f"macros/data/designs/{slug}.toml"
    p = require(plan(w), file)
    best = require(cheapest(w), f"{file} (the cheapest shape)")
    name, variant = next(iter(variants.items()), (None, None))
    simulated = simulated_plan(p)
    return SimpleNamespace(
        simulated=simulated, simulated_rows=plan_report.side_by_side(p, simulated) if simulated.feasible else [],
        simulated_why_not="" if simulated.feasible else plan_report.simulated_infeasible(simulated),
        binding_target="" if simulated.binding is None else plan_report.target(simulated.binding),
        # Whether Little's law puts fewer requests in flight on a replica than the napkin's SLO batch.
        fewer_live=simulated.feasible and (simulated.live_concurrency_per_replica or 0) < p.slo_batch,
        simulate_command="" if simulated.chosen is None or simulated.chosen.rate_per_s is None else
        plan_report.simulate_command(w, p.gpus_per_replica, simulated.chosen.rate_per_s, width=60),
        napkin_leaves_out=plan_report.NAPKIN_LEAVES_OUT, simulation_leaves_out=plan_report.SIMULATION_LEAVES_OUT,
        file=file, workload=w, plan=p,
        steps=plan_report.steps(p),
        workload_json=html.escape(json.dumps(workload_json(w)), quote=True),  # the interactive planner's start
        cheapest=best, saved_gpus=p.gpus - best.gpus, node_gpus=NODE_GPUS,
        variant_name=name, variant=None if variant is None else require(plan(variant), f"{file}: [variants.{name}]"),
        decode_replicas=p.decode_replicas, prefill_replicas=p.prefill_replicas, browser=browser(),
    )


def browser() -> SimpleNamespace:
    """What the page's interactive planner computes in the browser, in the engine's own constants: the
    simulated runs (seed, requests, how far the search walks), the shape search's widths and concurrencies,
    and the day of traffic (its minutes, the policies it offers, the one signal it scales on and the others
    only the command line has)."""
    return SimpleNamespace(seed=SEED, requests=OPEN_LOOP_REQUESTS, search_limit=SEARCH_LIMIT,
                           widths=NODE_WIDTHS, lightest=CONCURRENCIES[0], heaviest=CONCURRENCIES[-1],
                           minutes=MINUTES_PER_DAY, policies=POLICIES, signal=DEFAULT_SIGNAL,
                           other_signals=tuple(s for s in SIGNALS if s != DEFAULT_SIGNAL))
