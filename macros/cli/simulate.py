"""gpu_math.py simulate: one replica serving a workload under continuous batching (ARCHITECTURE.md)."""

from __future__ import annotations

import argparse
import sys

from ..engine.lookup import InputError
from ..engine.model.placement import LAYOUTS
from ..engine.specs import SpecError
from .common import Parser, json_text, positive, positive_int, ratio, seed, share

ADAPTER_FLAGS = "--adapters, --adapter-popularity, --adapter-rank and --adapter-slice-bytes"


def simulate_parser() -> argparse.ArgumentParser:
    p = Parser(prog="gpu_math.py simulate", description="Simulate one replica serving a workload under continuous "
                "batching: TTFT, TPOT, inter-token gap, end-to-end latency and queue wait (mean, p50, "
                "p90, p95, p99), throughput, batch and KV use, from the step model fitted to measured runs.")
    p.add_argument("--model", required=True, help="model key (see gpu_math.py --list)")
    p.add_argument("--gpu", required=True, help="GPU key (see gpu_math.py --list)")
    p.add_argument("--gpus", required=True, type=positive_int, help="GPUs in the replica")
    p.add_argument("--layout", choices=LAYOUTS, default="tp", help="tp, or dp-attention (default tp)")
    p.add_argument("--ep", type=positive_int, default=1, help="expert-parallel ranks (default 1)")
    p.add_argument("--weights", help="weight format (default: the checkpoint's own)")
    p.add_argument("--kv", help="KV-cache dtype (default: what the engine uses for this checkpoint on this GPU)")
    p.add_argument("--engine", default="vllm", help="vllm, sglang, trt or atom (default vllm)")
    p.add_argument("--input-tokens", required=True, type=positive_int, help="prompt tokens per request")
    p.add_argument("--output-tokens", required=True, type=positive_int, help="output tokens per request")
    p.add_argument("--range-ratio", type=ratio, default=1.0,
                   help="draw lengths uniformly from ratio x tokens to tokens, as benchmark clients do (0.8 in "
                        "InferenceMAX); default 1, fixed lengths")
    p.add_argument("--prefix-hit-rate", type=share, default=0.0,
                   help="share of each prompt's tokens already in the prefix cache, as a plan's [traffic] "
                        "prefix_hit_rate (default 0)")
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument("--concurrency", type=positive_int, help="a closed loop: this many requests in flight")
    load.add_argument("--rate", type=positive, help="open loop: requests per second")
    load.add_argument("--trace", help="replay a file of arrival_s,input_tokens,output_tokens lines")
    load.add_argument("--offline", type=positive_int, metavar="N",
                      help="N requests all queued at time 0 (MLPerf Offline, an engine's throughput benchmark)")
    p.add_argument("--burstiness", type=positive,
                   help="with --rate: the gaps' coefficient of variation (1 Poisson, above 1 bursty; gamma)")
    launch = p.add_argument_group("the engine's launch (default: the engine's own, or the benchmark's launch)")
    launch.add_argument("--max-batch", type=positive_int, help="most sequences running at once")
    launch.add_argument("--token-budget", type=positive_int, help="most tokens one step serves")
    launch.add_argument("--chunked-prefill", choices=("on", "off"),
                        help="split a prompt longer than a step's room over steps")
    launch.add_argument("--kv-memory-fraction", type=ratio,
                        help="share of each GPU's memory the engine takes for weights, activations and KV")
    launch.add_argument("--graph-max-batch", type=positive_int,
                        help="the largest decode batch replayed from a captured CUDA graph")
    lora = p.add_argument_group("unmerged LoRA adapters, all four together (default: none; serving/adapters.py)")
    lora.add_argument("--adapters", type=positive_int, help="the catalogue each request draws its adapter from")
    lora.add_argument("--adapter-popularity", type=positive, help="the catalogue's Zipf exponent (1: a long tail)")
    lora.add_argument("--adapter-rank", type=positive_int, help="every adapter's rank, on all linear projections")
    lora.add_argument("--adapter-slice-bytes", type=positive, help="HBM the replica keeps for resident adapters")
    p.add_argument("--requests", type=positive_int,
                   help="requests to run (default: ten per unit of concurrency and at least 200; 1,000 for --rate)")
    p.add_argument("--seed", type=seed, default=0, help="the random seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object in SI base units")
    return p


def simulate_main(argv: list[str]) -> int:
    from ..engine.serving.arrivals import read_trace
    from ..engine.serving.run import RunRequest, run
    from ..engine.serving.sim import SimulationError
    from ..text.serving_report import render as render_run

    p = simulate_parser()
    args = p.parse_args(argv)
    if args.burstiness is not None and args.rate is None:
        p.error("--burstiness goes with --rate")
    lora = (args.adapters, args.adapter_popularity, args.adapter_rank, args.adapter_slice_bytes)
    if any(x is not None for x in lora) and any(x is None for x in lora):
        p.error(f"{ADAPTER_FLAGS} go together")
    try:
        trace = read_trace(args.trace) if args.trace is not None else None
        result = run(RunRequest(
            model=args.model, gpu=args.gpu, gpus=args.gpus, input_tokens=args.input_tokens,
            output_tokens=args.output_tokens, engine=args.engine, layout=args.layout, ep=args.ep, weights=args.weights,
            kv=args.kv, concurrency=args.concurrency, rate_per_s=args.rate, burstiness=args.burstiness, trace=trace,
            range_ratio=args.range_ratio, requests=args.requests, seed=args.seed, prefix_hit_rate=args.prefix_hit_rate,
            offline=args.offline, max_batch=args.max_batch, token_budget=args.token_budget,
            chunked_prefill=None if args.chunked_prefill is None else args.chunked_prefill == "on",
            kv_memory_fraction=args.kv_memory_fraction, graph_max_batch=args.graph_max_batch,
            **({} if args.adapters is None else {
                "adapters": args.adapters, "adapter_popularity": args.adapter_popularity,
                "adapter_rank": args.adapter_rank, "adapter_slice_bytes": args.adapter_slice_bytes})))
    except (InputError, SpecError, SimulationError) as exc:
        print(f"gpu_math.py simulate: error: {exc}", file=sys.stderr)
        return 2
    print(json_text(result) if args.json else render_run(result), end="\n" if args.json else "")
    return 0
