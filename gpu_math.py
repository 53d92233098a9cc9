#!/usr/bin/env python3
"""The napkin calculator: memory budget, max batch, decode floor, roofline verdict and cost
for a model on a tensor-parallel group of GPUs. A thin command line over macros/, the same
code that computes every figure on the site.

    python3 gpu_math.py --model llama-70b --gpu h100
    python3 gpu_math.py --model llama-70b --gpu h100 --seq-len 8192 --batch 64
    python3 gpu_math.py --list
    python3 gpu_math.py plan macros/data/designs/consumer-chat.toml [--variant fp8] [--json]
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
                "batch, replicas, GPUs, cost, and whether the TTFT and TPOT targets hold. A pinned gpus_per_replica is "
                "widened (up to 8) when it cannot meet them, and said; when no shape can, the answer says which "
                "target fails (exit 0: an answer, not an error).")
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
    if args.json:  # an infeasible workload is an answer too: "feasible": false, null where a figure does not exist
        print(json.dumps(result.as_json(), indent=2))
    else:
        print(plan_report.render(result), end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["plan"]:
        return plan_main(argv[1:])
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
