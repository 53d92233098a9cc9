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
import json
import math
import sys
from typing import Any, NoReturn

from macros.engine import rules
from macros.engine.scenario import (
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage block
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


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


def json_text(value: Any) -> str:
    """JSON that any parser reads: a figure that does not exist (an infinite or undefined float) is null."""
    def finite(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        return [finite(x) for x in v] if isinstance(v, (list, tuple)) else v
    return json.dumps(finite(value), indent=2, allow_nan=False)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpu_math.py", description=__doc__.split("\n\n")[0], allow_abbrev=False,
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


def plan_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpu_math.py plan", allow_abbrev=False,
                description="Size a fleet for the workload in FILE (DESIGN §8): SLO batch, replicas, GPUs, cost, "
                            "and whether the TTFT and TPOT targets hold. A pinned gpus_per_replica is widened (up to "
                            "8) when it cannot meet them, and said; when no shape can, the answer says which target "
                            "fails (exit 0: an answer, not an error). Beside that first-order answer, the smallest "
                            "replica count whose simulated percentiles meet the file's percentile targets "
                            "(ttft_p95_s, ...) at peak (DESIGN §10), and the live concurrency by Little's law.")
    p.add_argument("file", help="a workload TOML file, e.g. macros/data/designs/consumer-chat.toml")
    p.add_argument("--variant", help="one of the file's [variants.<name>] tables")
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


def _workload(args: argparse.Namespace):
    """The workload file's workload, or its --variant."""
    from pathlib import Path

    from macros.engine.workload_file import load

    workload, variants = load(Path(args.file))
    if args.variant is None:
        return workload
    if args.variant not in variants:
        raise InputError(f"{args.file}: no [variants.{args.variant}] (has: {', '.join(variants) or 'none'})")
    return variants[args.variant]


def plan_main(argv: list[str]) -> int:
    from macros.engine.planner import plan
    from macros.engine.planner_simulated import simulated_plan

    args = plan_parser().parse_args(argv)
    try:
        result = plan(_workload(args))
        simulated = simulated_plan(result)
    except (InputError, SpecError) as exc:
        print(f"gpu_math.py plan: error: {exc}", file=sys.stderr)
        return 2
    if args.json:  # an infeasible workload is an answer too: "feasible": false, null where a figure does not exist
        print(json_text({**result.as_json(), **simulated.as_json()}))
    else:
        print(plan_report.render(result, simulated), end="")
    return 0


def shapes_main(argv: list[str]) -> int:
    from macros.engine.shapes import for_workload, search_json
    from macros.text.shapes_report import render as render_shapes

    p = plan_parser()
    p.prog, p.description = "gpu_math.py shapes", ("Search the replica shapes for the workload in FILE (TP 1-8; for "
                                                   "MoE also attention-DP with EP): each shape's best tokens/s per GPU "
                                                   "within the mean TTFT and TPOT targets, the chosen shape, the "
                                                   "runner-up and the Pareto curve, under the fitted step model.")
    args = p.parse_args(argv)
    try:
        w = _workload(args)
        result = for_workload(w)
    except (InputError, SpecError) as exc:
        print(f"gpu_math.py shapes: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json_text(search_json(result)))
    else:
        print(render_shapes(result, w.name, w.ttft_s, w.tpot_s), end="")
    return 0


# The simulate command's flags are not in rules.toml yet (issue 21 moves them there); until then they get
# the same finite-number checks here.
def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def _ratio(text: str) -> float:
    value = _number(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def _share(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2^64 - 1, got {text!r}") from None
    if not 0 <= value < 2 ** 64:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2^64 - 1, got {text!r}")
    return value


def simulate_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpu_math.py simulate", description="Simulate one replica serving a workload under continuous "
                "batching (DESIGN §10): TTFT, TPOT, inter-token gap, end-to-end latency and queue wait (mean, p50, "
                "p90, p95, p99), throughput, batch and KV use, from the step model fitted to measured runs.")
    p.add_argument("--model", required=True, help="model key (see gpu_math.py --list)")
    p.add_argument("--gpu", required=True, help="GPU key (see gpu_math.py --list)")
    p.add_argument("--gpus", required=True, type=_positive_int, help="GPUs in the replica")
    p.add_argument("--layout", choices=LAYOUTS, default="tp", help="tp, or dp-attention (default tp)")
    p.add_argument("--ep", type=_positive_int, default=1, help="expert-parallel ranks (default 1)")
    p.add_argument("--weights", help="weight format (default: the checkpoint's own)")
    p.add_argument("--kv", help="KV-cache dtype (default: what the engine uses for this checkpoint on this GPU)")
    p.add_argument("--engine", default="vllm", help="vllm, sglang, trt or atom (default vllm)")
    p.add_argument("--input-tokens", required=True, type=_positive_int, help="prompt tokens per request")
    p.add_argument("--output-tokens", required=True, type=_positive_int, help="output tokens per request")
    p.add_argument("--range-ratio", type=_ratio, default=1.0,
                   help="draw lengths uniformly from ratio x tokens to tokens, as benchmark clients do (0.8 in "
                        "InferenceMAX); default 1, fixed lengths")
    p.add_argument("--prefix-hit-rate", type=_share, default=0.0,
                   help="share of each prompt's tokens already in the prefix cache, as a plan's [traffic] "
                        "prefix_hit_rate (default 0)")
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument("--concurrency", type=_positive_int, help="a closed loop: this many requests in flight")
    load.add_argument("--rate", type=_positive, help="open loop: requests per second")
    load.add_argument("--trace", help="replay a file of arrival_s,input_tokens,output_tokens lines")
    p.add_argument("--burstiness", type=_positive,
                   help="with --rate: the gaps' coefficient of variation (1 Poisson, above 1 bursty; gamma)")
    p.add_argument("--requests", type=_positive_int,
                   help="requests to run (default: ten per unit of concurrency and at least 200; 1,000 for --rate)")
    p.add_argument("--seed", type=_seed, default=0, help="the random seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


def simulate_main(argv: list[str]) -> int:
    from macros.engine.serving.arrivals import read_trace
    from macros.engine.serving.run import RunRequest, run
    from macros.engine.serving.sim import SimulationError
    from macros.text.serving_report import render as render_run

    p = simulate_parser()
    args = p.parse_args(argv)
    if args.burstiness is not None and args.rate is None:
        p.error("--burstiness goes with --rate")
    try:
        trace = read_trace(args.trace) if args.trace is not None else None
        result = run(RunRequest(
            model=args.model, gpu=args.gpu, gpus=args.gpus, input_tokens=args.input_tokens,
            output_tokens=args.output_tokens, engine=args.engine, layout=args.layout, ep=args.ep, weights=args.weights,
            kv=args.kv, concurrency=args.concurrency, rate_per_s=args.rate, burstiness=args.burstiness, trace=trace,
            range_ratio=args.range_ratio, requests=args.requests, seed=args.seed, prefix_hit_rate=args.prefix_hit_rate))
    except (InputError, SpecError, SimulationError) as exc:
        print(f"gpu_math.py simulate: error: {exc}", file=sys.stderr)
        return 2
    print(json_text(result) if args.json else render_run(result), end="\n" if args.json else "")
    return 0


def autoscale_parser() -> argparse.ArgumentParser:
    from macros.engine.autoscale.fluid import POLICIES
    from macros.engine.autoscale.signals import SIGNALS

    p = _Parser(prog="gpu_math.py autoscale", allow_abbrev=False,
                description="One day of the workload in FILE under an autoscaling policy: a minute-level fluid model "
                            "of the offered load (the workload's diurnal curve with seeded bursts, or --trace), "
                            "replicas that take a cold start to serve, each with its capacity at the SLO from the "
                            "serving simulator, and admission control shedding the rest. Reports GPU-hours, cost, "
                            "minutes over the SLO, requests offered, served and shed, and cold starts. Inputs beyond "
                            "the workload: macros/data/autoscale.toml.")
    p.add_argument("file", help="a workload TOML file, e.g. macros/data/designs/autoscaler.toml")
    p.add_argument("--variant", help="one of the file's [variants.<name>] tables")
    p.add_argument("--policy", required=True, choices=POLICIES,
                   help="reactive (on the signal, after a cold start), predictive (also ahead of the forecast by "
                        "the cold start), warm-pool (predictive, with loaded idle replicas sized from the forecast's "
                        "error)")
    p.add_argument("--signal", choices=SIGNALS, default="queue",
                   help="what the scaler reads (default queue); requests and utilisation are there to show how "
                        "they fail")
    p.add_argument("--trace", help="replay a file of per-minute request rates (requests/s, one per line) instead "
                                   "of the drawn day")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object in SI base units; its timeline has, for each minute, the requests "
                        "offered, served and shed, the capacity within the SLO (requests in the minute), and the "
                        "replicas serving, starting and warm")
    return p


def autoscale_main(argv: list[str]) -> int:
    from macros.engine.autoscale.day import read_rate_trace
    from macros.engine.autoscale.run import autoscale
    from macros.engine.serving.sim import SimulationError
    from macros.text.autoscale_report import render as render_day

    args = autoscale_parser().parse_args(argv)
    try:
        workload = _workload(args)
        trace = read_rate_trace(args.trace) if args.trace is not None else None
        result = autoscale(workload, args.policy, args.signal, trace)
    except (InputError, SpecError, SimulationError) as exc:
        print(f"gpu_math.py autoscale: error: {exc}", file=sys.stderr)
        return 2
    print(json_text(result.as_json()) if args.json else render_day(result), end="\n" if args.json else "")
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
            from macros.engine.hf_config import load_hf_config

            values["model"] = load_hf_config(args.config).model
        s = scenario(**values)
    except (InputError, SpecError, rules.RuleError) as exc:
        print(f"gpu_math.py: error: {exc}", file=sys.stderr)
        return 2
    print(json_text(s.as_json()) if args.json else render(s), end="\n" if args.json else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
