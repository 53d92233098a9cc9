#!/usr/bin/env python3
"""The napkin calculator: memory budget, max batch, decode floor, roofline verdict and cost
for a model on a tensor-parallel group of GPUs. A thin command line over macros/, the same
code that computes every figure on the site.

    python3 gpu_math.py --model llama-70b --gpu h100
    python3 gpu_math.py --model llama-70b --gpu h100 --seq-len 8192 --batch 64
    python3 gpu_math.py --list
    python3 gpu_math.py plan macros/data/designs/consumer-chat.toml [--variant fp8] [--json]
    python3 gpu_math.py simulate --model gpt-oss-120b --gpu b200 --gpus 2 --input-tokens 1024 \
        --output-tokens 1024 --concurrency 64 [--engine vllm] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpu_math.py", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model key (see --list)")
    p.add_argument("--config", help="a Hugging Face config.json instead of --model: the geometry and the parameter "
                                    "counts are read from it")
    p.add_argument("--gpu", help="GPU key (see --list)")
    p.add_argument("--gpus", type=_positive_int,
                   help="GPUs in one replica (default: the smallest of 1, 2, 4, 8, ... that holds "
                        "the weights, the reserve and one sequence, or --batch sequences)")
    p.add_argument("--seq-len", type=_positive_int, default=DEFAULT_SEQ_LEN,
                   help=f"tokens of context per sequence (default {DEFAULT_SEQ_LEN})")
    p.add_argument("--batch", type=_positive_int, help="concurrent sequences (default: the max batch)")
    p.add_argument("--weights", help="weight format: bf16, fp16, fp8, int8, int4, mxfp4, nvfp4 (default: the "
                                     "model's checkpoint format, e.g. fp8 for DeepSeek-V3; see --list)")
    p.add_argument("--kv", default=DEFAULT_DTYPE, help=f"KV-cache dtype (default {DEFAULT_DTYPE})")
    p.add_argument("--reserve", type=_number, default=DEFAULT_RESERVE_BYTES / 1e9,
                   help=f"GB per GPU kept for activations and overhead (default {DEFAULT_RESERVE_BYTES / 1e9:g})")
    p.add_argument("--price", type=_number, help="USD per GPU-hour (default: the data's typical price)")
    p.add_argument("--efficiency", type=_number, default=DEFAULT_EFFICIENCY,
                   help=f"realised fraction of the floor's throughput, for cost (default {DEFAULT_EFFICIENCY})")
    p.add_argument("--layout", choices=LAYOUTS, default="tp",
                   help="tp: tensor parallelism over the replica (KV heads replicated past H_kv, an MLA latent on "
                        "every rank); dp-attention: attention data-parallel, the rest split (default tp)")
    p.add_argument("--list", action="store_true", help="list the models, GPUs and dtypes")
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


def plan_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gpu_math.py plan", description="Size a fleet for the workload in FILE (DESIGN §8): SLO "
                "batch, replicas, GPUs, cost, and whether the TTFT and TPOT targets hold.")
    p.add_argument("file", help="a workload TOML file, e.g. macros/data/designs/consumer-chat.toml")
    p.add_argument("--variant", help="one of the file's [variants.<name>] tables")
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


def plan_main(argv: list[str]) -> int:
    from pathlib import Path

    from macros.engine.planner import plan
    from macros.engine.workload_file import load

    args = plan_parser().parse_args(argv)
    try:
        workload, variants = load(Path(args.file))
        if args.variant is not None:
            if args.variant not in variants:
                raise InputError(f"{args.file}: no [variants.{args.variant}] (has: {', '.join(variants) or 'none'})")
            workload = variants[args.variant]
        result = plan(workload)
    except (InputError, SpecError) as exc:
        print(f"gpu_math.py plan: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_json(), indent=2))
    else:
        print(plan_report.render(result), end="")
    return 0


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
            range_ratio=args.range_ratio, requests=args.requests, seed=args.seed))
    except (InputError, SpecError, SimulationError) as exc:
        print(f"gpu_math.py simulate: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else render_run(result), end="\n" if args.json else "")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["plan"]:
        return plan_main(argv[1:])
    if argv[:1] == ["simulate"]:
        return simulate_main(argv[1:])
    p = parser()
    args = p.parse_args(argv)
    try:
        cat = catalog()
        if args.list:
            if args.json:
                print(json.dumps({"models": [{"key": k, "name": m.name} for k, m in cat.models.items()],
                                  "gpus": [{"key": k, "name": g.name} for k, g in cat.gpus.items()]}, indent=2))
            else:
                print(listing(cat), end="")
            return 0
        if args.config is not None and args.model is not None:
            p.error("give --model or --config, not both")
        if args.config is None and args.model is None:
            p.error("--model is required (see --list for the keys), or --config PATH/config.json")
        if args.gpu is None:
            p.error("--gpu is required (see --list for the keys)")
        model = args.model
        if args.config is not None:
            from macros.engine.hf_config import load_hf_config

            model = load_hf_config(args.config).model
        s = scenario(model, args.gpu, gpus=args.gpus, seq_len=args.seq_len, batch=args.batch,
                     weights=args.weights, kv=args.kv, reserve_bytes=args.reserve * 1e9, price=args.price,
                     efficiency=args.efficiency, layout=args.layout)
    except (InputError, SpecError) as exc:
        print(f"gpu_math.py: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(s.as_json(), indent=2) if args.json else render(s), end="\n" if args.json else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
