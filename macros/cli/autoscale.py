"""gpu_math.py autoscale: a day of traffic under an autoscaling policy."""

from __future__ import annotations

import argparse
import sys

from ..engine.lookup import InputError
from ..engine.specs import SpecError
from .common import json_text, workload, workload_parser

AUTOSCALE_DESCRIPTION = (
    "One day of the workload in FILE under an autoscaling policy: a minute-level fluid model of the "
    "offered load (the workload's diurnal curve with seeded bursts, or --trace), replicas that take a "
    "cold start to serve, each with its capacity at the SLO from the serving simulator, and admission "
    "control shedding the rest. Reports GPU-hours, cost, minutes over the SLO, requests offered, served "
    "and shed, and cold starts. Inputs beyond the workload: macros/data/autoscale.toml.")


def autoscale_parser() -> argparse.ArgumentParser:
    from ..engine.autoscale.fluid import POLICIES
    from ..engine.autoscale.signals import SIGNALS

    p = workload_parser("gpu_math.py autoscale", example="autoscaler", description=AUTOSCALE_DESCRIPTION)
    p.add_argument("--policy", required=True, choices=POLICIES,
                   help="reactive (on the signal, after a cold start), predictive (also ahead of the forecast by "
                        "the cold start), warm-pool (predictive, with loaded idle replicas sized from the forecast's "
                        "error)")
    p.add_argument("--signal", choices=SIGNALS, default="queue",
                   help="what the scaler reads (default queue); requests and utilisation are there to show how "
                        "they fail")
    p.add_argument("--trace", help="replay a file of per-minute request rates (requests/s, one per line) instead "
                                   "of the drawn day")
    p.add_argument("--reservation", type=int, metavar="N",
                   help="the most replicas held at once, serving, starting and in the warm pool together (default: "
                        "macros/data/autoscale.toml's max_replicas_over_peak times the peak's need)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object in SI base units; its timeline has, for each minute, the requests "
                        "offered, served and shed, the capacity within the SLO (requests in the minute), and the "
                        "replicas serving, starting and warm")
    return p


def autoscale_main(argv: list[str]) -> int:
    from ..engine.autoscale.day import read_rate_trace
    from ..engine.autoscale.run import autoscale
    from ..engine.serving.sim import SimulationError
    from ..text.autoscale_report import render as render_day

    args = autoscale_parser().parse_args(argv)
    try:
        w = workload(args)
        trace = read_rate_trace(args.trace) if args.trace is not None else None
        result = autoscale(w, args.policy, args.signal, trace, reservation=args.reservation)
    except (InputError, SpecError, SimulationError) as exc:
        print(f"gpu_math.py autoscale: error: {exc}", file=sys.stderr)
        return 2
    print(json_text(result.as_json()) if args.json else render_day(result), end="\n" if args.json else "")
    return 0
