"""The "Plan a fleet" page: the worked workload (data/workloads.toml names it), its plan, each step
of the derivation with values substituted, the cheapest replica shape beside the smallest one, and
the file's variant."""

from __future__ import annotations

import html
import json
from types import SimpleNamespace

from ...engine.export import workload_json
from ...engine.planner import NODE_GPUS, cheapest, plan, require
from ...engine.workload_file import design
from ...engine.workloads import workloads
from ...text import plan_report


def model() -> SimpleNamespace:
    slug = workloads()["planner_design"]
    w, variants = design(slug)
    file = f"macros/data/designs/{slug}.toml"
    p = require(plan(w), file)
    best = require(cheapest(w), f"{file} (the cheapest shape)")
    name, variant = next(iter(variants.items()), (None, None))
    return SimpleNamespace(
        file=file, workload=w, plan=p,
        steps=plan_report.steps(p),
        workload_json=html.escape(json.dumps(workload_json(w)), quote=True),  # the interactive planner's start
        cheapest=best, saved_gpus=p.gpus - best.gpus, node_gpus=NODE_GPUS,
        variant_name=name, variant=None if variant is None else require(plan(variant), f"{file}: [variants.{name}]"),
        decode_replicas=p.decode_replicas, prefill_replicas=p.prefill_replicas,
    )
