"""`gpu_math.py simulate`'s human output: the replica, the workload, and what the simulated run measured."""

from __future__ import annotations

from typing import Any

from . import fmt

_STATS = (("ttft_s", "time to first token"), ("tpot_s", "time per output token"), ("itl_s", "inter-token gap"),
          ("e2e_s", "end-to-end latency"), ("queue_s", "queue wait"))


def _seconds(x: float | None) -> str:
    return "-" if x is None else fmt.seconds(x)


def _cached(share: float) -> str:
    return f", {fmt.pct(share)} of each prompt from the prefix cache" if share else ""


def render(r: dict[str, Any]) -> str:
    """The run as text: the replica and the engine's launch, each latency's mean and percentiles, then
    throughput and the replica's state."""
    lines = [
        f"{r['model']} on {r['gpus']} x {r['gpu']} ({r['layout']}, EP {r['ep']}), {r['engine']}: weights "
        f"{r['weights_dtype']}, KV {r['kv_dtype']}",
        f"  KV dtype: {r['kv_dtype_source']}",
        f"  Launch: at most {fmt.count(r['launch']['max_batch'])} sequences and "
        f"{fmt.count(r['launch']['token_budget'])} tokens a step, chunked prefill "
        f"{'on' if r['launch']['chunked_prefill'] else 'off'}, {fmt.pct(r['launch']['kv_memory_fraction'])} of "
        f"memory, CUDA graphs up to a batch of {fmt.count(r['launch']['graph_max_batch'])}",
        f"Workload: {r['arrivals']}, {fmt.count(r['input_tokens'])} prompt and {fmt.count(r['output_tokens'])} "
        f"output tokens{_cached(r['prefix_hit_rate'])}; {fmt.count(r['requests'])} requests reported after "
        f"{fmt.count(r['warmup_requests'])} of warm-up (seed {r['seed']})",
        "",
        f"{'':24}{'mean':>10}{'p50':>10}{'p90':>10}{'p95':>10}{'p99':>10}",
    ]
    for key, label in _STATS:
        s = r[key]
        lines.append(f"{label:24}" + "".join(f"{_seconds(s[k]):>10}" for k in ("mean", "p50", "p90", "p95", "p99")))
    band = r["tpot_band"]
    lines += [
        "",
        f"Median TPOT band (p10-p90 of the cross-validated error, {r['band_basis']}): "
        f"{_seconds(band['low'])} to {_seconds(band['high'])}",
        f"Throughput per GPU: {fmt.tokens_per_s(r['output_tokens_per_s_per_gpu'])} out, "
        f"{fmt.tokens_per_s(r['input_tokens_per_s_per_gpu'])} in; {fmt.num(r['requests_per_s'])} requests/s",
        f"Mean batch {fmt.num(r['mean_batch'])} sequences; KV pool {fmt.count(r['kv_blocks'])} blocks, "
        f"{fmt.pct(r['kv_occupancy'])} used on average; {fmt.count(r['preemptions'])} preemptions",
        "An estimate from the fitted step model (calibration.toml), not a floor: the floor is the calculator's.",
    ]
    return "\n".join(lines) + "\n"
