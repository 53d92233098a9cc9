#!/usr/bin/env python3
"""The napkin calculator: memory budget, max batch, decode floor, roofline verdict and cost
for a model on a tensor-parallel group of GPUs. A thin command line over macros/, the same
code that computes every figure on the site.

    python3 gpu_math.py --model llama-70b --gpu h100
    python3 gpu_math.py --model llama-70b --gpu h100 --seq-len 8192 --batch 64
    python3 gpu_math.py --list
    python3 gpu_math.py plan macros/data/designs/consumer-chat.toml [--variant fp8] [--json]
    python3 gpu_math.py shapes macros/data/designs/consumer-chat.toml [--variant fp8] [--json]
    python3 gpu_math.py simulate --model gpt-oss-120b --gpu b200 --gpus 2 --input-tokens 1024 \
        --output-tokens 1024 --concurrency 64 [--engine vllm] [--json]
    python3 gpu_math.py autoscale macros/data/designs/autoscaler.toml --policy warm-pool [--signal queue] [--json]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from macros.cli.autoscale import autoscale_main
from macros.cli.common import Parser, json_text, workload, workload_parser
from macros.cli.simulate import simulate_main
from macros.engine import rules
from macros.engine.model.scenario import (
    DEFAULT_DTYPE,
    DEFAULT_EFFICIENCY,
    DEFAULT_RESERVE_BYTES,
    DEFAULT_SEQ_LEN,
    LAYOUTS,
    InputError,
    scenario,
)
from macros.engine.specs import SpecError, catalog
from macros.text import plan_report
from macros.text.report import listing, render


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The flags given, read by data/rules.toml's `scenario` rules (the same the Node twin and the browser
    apply), in the table's order: scenario() keyword -> value, each error naming its flag."""
    out = {}
    for field, rule in rules.table()["scenario"]["fields"].items():
        text = getattr(args, rule["flag"][2:].replace("-", "_"))
        if text is not None:
            value = rules.parse_text(rule, text, rule["flag"])
            out[field] = value * rule["scale"] if "scale" in rule else value
    return out


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="gpu_math.py", description=__doc__.split("\n\n")[0], allow_abbrev=False,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model key (see --list)")
    p.add_argument("--config", help="a Hugging Face config.json instead of --model: the geometry and the parameter "
                                    "counts are read from it")
    p.add_argument("--gpu", help="GPU key (see --list)")
    p.add_argument("--gpus", help="GPUs in one replica (default: the smallest of 1, 2, 4, 8, ... that holds "
                                  "the weights, the reserve and one sequence, or --batch sequences)")
    p.add_argument("--seq-len", help=f"tokens of context per sequence (default {DEFAULT_SEQ_LEN})")
    p.add_argument("--batch", help="concurrent sequences (default: the max batch)")
    p.add_argument("--weights", help="weight format: bf16, fp16, fp8, int8, int4, mxfp4, nvfp4 (default: the "
                                     "model's checkpoint format, e.g. fp8 for DeepSeek-V3; see --list)")
    p.add_argument("--kv", help=f"KV-cache dtype (default {DEFAULT_DTYPE})")
    p.add_argument("--reserve", help="GB per GPU kept for activations and overhead "
                                     f"(default {DEFAULT_RESERVE_BYTES / 1e9:g})")
    p.add_argument("--price", help="USD per GPU-hour (default: the data's typical price)")
    p.add_argument("--efficiency", help="realised fraction of the floor's throughput, for cost "
                                        f"(default {DEFAULT_EFFICIENCY})")
    p.add_argument("--layout", help=f"{' or '.join(LAYOUTS)}. tp: tensor parallelism over the replica (KV heads "
                                    "replicated past H_kv, an MLA latent on every rank); dp-attention: attention "
                                    "data-parallel, the rest split (default tp)")
    p.add_argument("--engine", help="vllm, sglang, trt or atom: the engine the fitted step model's estimate "
                                    "describes (default vllm)")
    p.add_argument("--list", action="store_true", help="list the models, GPUs and dtypes")
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


PLAN_DESCRIPTION = (
    "Size a fleet for the workload in FILE. The answer (replicas, gpus_per_replica, gpus, cost) is the serving "
    "model's: on each replica shape (the pinned one, or every power of two up to a node), the smallest count "
    "whose simulated TTFT and TPOT meet every target in the file's [slo] at peak (percentiles such as "
    "ttft_p95_s, and means ttft_s, tpot_s where given), and of those the fewest GPUs; or the two pools in "
    "disaggregated mode. Beside it, the napkin's first-order derivation (SLO batch, replicas, cost: its "
    "figures under napkin_ keys), which also chooses the replica shape: a pinned gpus_per_replica is "
    "widened (up to 8) when it cannot meet the targets, and said; when no shape can, the answer says which "
    "target fails (exit 0: an answer, not an error).")


def plan_parser() -> argparse.ArgumentParser:
    p = workload_parser("gpu_math.py plan", example="consumer-chat", description=PLAN_DESCRIPTION)
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


def plan_main(argv: list[str]) -> int:
    from macros.engine.fleet.answer import answer
    from macros.engine.fleet.planner import plan
    from macros.text.shapes_report import fleet_options as render_options

    args = plan_parser().parse_args(argv)
    try:
        a = answer(plan(workload(args)))
    except (InputError, SpecError) as exc:
        print(f"gpu_math.py plan: error: {exc}", file=sys.stderr)
        return 2
    if args.json:  # an infeasible workload is an answer too: "feasible": false, null where a figure does not exist
        print(json_text(a.json))
    else:
        print(plan_report.render(a.napkin, a.simulated, a.json) + render_options(a.options), end="")
    return 0


def shapes_main(argv: list[str]) -> int:
    from macros.engine.fleet.shapes import for_workload, search_json
    from macros.text.shapes_report import render as render_shapes

    p = plan_parser()
    p.prog, p.description = "gpu_math.py shapes", ("Search the replica shapes for the workload in FILE (TP 1-8; for "
                                                   "MoE also attention-DP with EP): each shape's best tokens/s per GPU "
                                                   "within the mean TTFT and TPOT targets, the chosen shape, the "
                                                   "runner-up and the Pareto curve, under the fitted step model.")
    args = p.parse_args(argv)
    try:
        w = workload(args)
        result = for_workload(w)
    except (InputError, SpecError) as exc:
        print(f"gpu_math.py shapes: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json_text(search_json(result)))
    else:
        print(render_shapes(result, w.name, w.ttft_s, w.tpot_s), end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["plan"]:
        return plan_main(argv[1:])
    if argv[:1] == ["autoscale"]:
        return autoscale_main(argv[1:])
    if argv[:1] == ["simulate"]:
        return simulate_main(argv[1:])
    if argv[:1] == ["shapes"]:
        return shapes_main(argv[1:])
    p = parser()
    args = p.parse_args(argv)
    try:
        cat = catalog()
        if args.list:
            if args.json:
                print(json_text({"models": [{"key": k, "name": m.name} for k, m in cat.models.items()],
                                  "gpus": [{"key": k, "name": g.name} for k, g in cat.gpus.items()]}))
            else:
                print(listing(cat), end="")
            return 0
        values = flag_values(args)
        if args.config is not None and args.model is not None:
            p.error("give --model or --config, not both")
        if args.config is None and args.model is None:
            p.error("--model is required (see --list for the keys), or --config PATH/config.json")
        if args.gpu is None:
            p.error("--gpu is required (see --list for the keys)")
        if args.config is not None:
            from macros.engine.model.hf_config import load_hf_config

            values["model"] = load_hf_config(args.config).model
        s = scenario(**values)
    except (InputError, SpecError, rules.RuleError) as exc:
        print(f"gpu_math.py: error: {exc}", file=sys.stderr)
        return 2
    print(json_text(s.as_json()) if args.json else render(s), end="\n" if args.json else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
