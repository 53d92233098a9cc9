"""What the browser's twin of the engine reads (ARCHITECTURE.md, the twin): the catalog as JSON, exported from
macros/data/ at build time so nothing is typed twice (tools/node_catalog.py writes the same for the Node
command line), and a checked workload as the browser's planner reads it.

    python3 -m macros.engine.export                 # catalog.json on stdout
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

from .autoscale.inputs import ALLOCATION_CLAIM, day_inputs
from .autoscale.run import JSON_KEYS as AUTOSCALE_KEYS
from .fleet.disaggregated import NIC_BANDWIDTH_CLAIM
from .fleet.fleet_options import JSON_KEYS as FLEET_KEYS
from .fleet.planner import JSON_KEYS as PLAN_KEYS
from .fleet.planner import MAX_GPUS_PER_REPLICA, NODE_GPUS
from .fleet.planner_simulated import JSON_KEYS as SIMULATED_KEYS
from .fleet.workload_file import DEFAULT_BURSTINESS, DEFAULT_ENGINE, DEFAULT_HEADROOM, TARGET_METRICS, Workload
from .model.placement import LAYOUTS, MAX_AUTO_GPUS
from .model.scenario import (
    ALLREDUCE_LATENCY_CLAIM,
    DEFAULT_DTYPE,
    DEFAULT_EFFICIENCY,
    DEFAULT_LAYOUT,
    DEFAULT_RESERVE_BYTES,
    DEFAULT_SEQ_LEN,
    JSON_KEYS,
)
from .rules import table_json
from .serving import run as serving_run
from .serving.calibration import calibration
from .serving.families import families
from .serving.names import FLEET_MODES
from .serving.profiles import engines
from .serving.sim import TIMELINE_POINTS
from .specs import catalog
from .workloads import workloads

# What the engine reads of each entry: display strings and sources stay behind.
GPU_FIELDS = ("name", "memory_bytes", "memory_visible_bytes", "bandwidth_bytes_per_s", "bf16_flops", "fp8_flops",
              "fp4_flops", "interconnect_bytes_per_s")
MODEL_FIELDS = ("name", "params", "active_params", "layers", "query_heads", "kv_heads", "head_dim", "max_context",
                 "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "q_lora_rank",
                 "sliding_window", "sliding_window_layers", "experts", "experts_per_token", "hidden_size",
                 "dense_layers", "dense_ffn_size", "ffn_size", "native_weights", "native_nonexpert_weights")


def _pick(entry: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in fields}


def autoscale_json() -> dict[str, Any]:
    """What the day of traffic's twin (autoscale/*.js) reads: data/autoscale.toml as checked, the cold start's
    allocation (the claim's low end) and the link to storage, and autoscale --json's keys."""
    claim = catalog().claims[ALLOCATION_CLAIM]
    return {"inputs": dataclasses.asdict(day_inputs()), "allocation_s": claim.low,
            "network_storage_bytes_per_s": workloads()["network_storage_bytes_per_s"],
            "json_keys": list(AUTOSCALE_KEYS)}


def serving_json() -> dict[str, Any]:
    """What the serving model's twin reads (ARCHITECTURE.md): the engines' profiles as engines.toml gives them
    (checked; profiles.js resolves a launch as profiles.py does), the GPU families, the fitted parameters
    per scope and the bands, and run.py's request counts and --json keys."""
    cal = calibration()
    values: dict[str, dict[str, float]] = {}
    for (name, scope), value in cal.values.items():
        values.setdefault(name, {})[scope] = value
    return {
        "engines": engines(),
        "families": {key: {"name": fam.name, "gpus": list(fam.gpus), "mma_rows": fam.mma_rows,
                           "moe_rows": fam.moe_rows} for key, fam in families().items()},
        "calibration": {"values": values, "measured_gpus": list(cal.measured_gpus),
                        "measured_models": list(cal.measured_models),
                        "models_by_gpu": {gpu: list(cal.models_on({gpu})) for gpu in cal.measured_gpus},
                        "bands": {key: list(band) for key, band in cal.bands.items()}},
        "run": {"min_closed_loop_requests": serving_run.MIN_CLOSED_LOOP_REQUESTS,
                "requests_per_concurrency": serving_run.REQUESTS_PER_CONCURRENCY,
                "open_loop_requests": serving_run.OPEN_LOOP_REQUESTS, "timeline_points": TIMELINE_POINTS},
    }


def catalog_json() -> dict[str, Any]:
    cat = catalog()
    return {
        "gpus": {key: _pick(g, GPU_FIELDS) for key, g in cat.gpus.items()},
        "models": {key: _pick(m, MODEL_FIELDS) for key, m in cat.models.items()},
        "precisions": {key: {"name": p.name, "bytes": p.bytes, "compute": p.compute,
                             "element_bits": p.element_bits}
                       for key, p in cat.precisions.items()},
        "prices": {key: {"typical": p.typical, "as_of": p.as_of} for key, p in cat.prices.items()},
        "allreduce_latency_s": cat.claims[ALLREDUCE_LATENCY_CLAIM].low,
        # disaggregated.py's link between nodes, for the KV transfer (claims.toml, its low end)
        "nic_bandwidth_bytes_per_s": cat.claims[NIC_BANDWIDTH_CLAIM].low,
        "defaults": {"seq_len": DEFAULT_SEQ_LEN, "reserve_bytes": DEFAULT_RESERVE_BYTES,
                     "efficiency": DEFAULT_EFFICIENCY, "kv": DEFAULT_DTYPE, "layout": DEFAULT_LAYOUT,
                     "headroom": DEFAULT_HEADROOM, "burstiness": DEFAULT_BURSTINESS, "engine": DEFAULT_ENGINE,
                     "mode": FLEET_MODES[0]},
        "limits": {"layouts": list(LAYOUTS), "max_auto_gpus": MAX_AUTO_GPUS,
                   "max_gpus_per_replica": MAX_GPUS_PER_REPLICA, "node_gpus": NODE_GPUS},
        # The calculator's and the planner's --json keys, in order: the Node twin prints these.
        # plan --json prints the napkin's keys, then the simulated answer's, then the fleet options'.
        "json_keys": {"scenario": list(JSON_KEYS), "plan": list(PLAN_KEYS), "simulate": list(serving_run.JSON_KEYS),
                      "plan_simulated": list(SIMULATED_KEYS), "plan_fleet": list(FLEET_KEYS)},
        "serving": serving_json(),
        "autoscale": autoscale_json(),
        # The rules of validation (data/rules.toml, applied by rules.js as by rules.py):
        #   rules.messages   {kind, finite, missing, unknown, choice, not_a_table}: templates with
        #                    {field}, {expected}, {got}, {known}, {values} slots
        #   rules.words      the words {expected} is built from ("a positive {noun}", ...)
        #   rules.<set>      for each set (gpu, model, precision, price, claim, scenario, workload,
        #                    hf_config): fields {name: {kind, above?, min?, max?, required?, nonempty?,
        #                    section?, flag?, scale?, values_from?}} and checks [{check, field, other |
        #                    others | low and high, when?, unless?, message}]; hf_config also has names
        #                    (model field -> the config's field)
        #   rules.lists      the lists a choice field's values_from names: layouts, compute_peaks, precisions,
        #                    engines
        "rules": table_json(list(cat.precisions)),
    }


def workload_json(w: Workload) -> dict[str, Any]:
    """A checked workload as the browser's planner reads it: its fields, None where not given, the peak rate
    only where the file gave it (a daily volume gives it again in the JavaScript), and a mean target only where
    the file stated it (the JavaScript derives the napkin's mean again, and which means are targets)."""
    out = dataclasses.asdict(w)
    if w.requests_per_day is not None:
        out["peak_requests_per_s"] = None
    for metric in TARGET_METRICS:
        if metric not in w.stated_means:
            out[f"{metric}_s"] = None
    del out["stated_means"]
    return out


def main(argv: list[str]) -> int:
    if argv:
        print("usage: python3 -m macros.engine.export  (prints the catalog as JSON)", file=sys.stderr)
        return 2
    print(json.dumps(catalog_json(), allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
