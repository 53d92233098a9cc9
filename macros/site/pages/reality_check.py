"""The reality check (docs/reality-check.md): published measurements beside their floors, the H200
launch comparison rerun as the source ran it, and what the measurements say about the efficiency
default. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import measurements
from ...engine.scenario import DEFAULT_EFFICIENCY, anchor, get_gpu
from ...engine.specs import catalog
from ..tables import efficiency
from ._shared import bandwidth_comparison

# The measurements the prose quotes by name (keys of data/measurements.toml).
QUOTED = {
    "nim1": "nim-c1-long-prompt-itl", "nim1s": "nim-c1-short-prompt-itl", "nim25": "nim-c25-itl",
    "nim50": "nim-c50-itl", "nim100": "nim-c100-itl", "vllm": "vllm-ci-h200-tp4",
    "ttft_long": "trtllm-v05-ttft-h100-2048", "ttft_short": "trtllm-v05-ttft-h100-128",
    "ttft_a100": "trtllm-v05-ttft-a100-2048", "mi300": "mlperf-v51-mi300x-interactive",
    "offline": "mlperf-v50-mi325x-offline", "gb200": "azure-gb200-nvl72",
}

# NVIDIA's H200 launch blog, as it ran: Llama-2-70B on one GPU, FP8 weights and cache, 2,048 tokens
# in and 128 out; the batches (8 on the H100, 32 on the H200) are the claim h200-launch-batches.
LAUNCH_MODEL, LAUNCH_GPU, LAUNCH_GPUS, LAUNCH_DTYPE = "llama-2-70b", "h100", 1, "fp8"
LAUNCH_COMPARED_GPU = "h200"
LAUNCH_IN, LAUNCH_OUT = 2048, 128

# The metric of the runs whose KV cache format the page questions.
PER_GPU_THROUGHPUT = "tokens_per_s_per_gpu"


def _launch_floor(gpu: str, batch: int) -> float:
    """Output tokens/s of the launch configuration on `gpu` at `batch`."""
    return measurements.run_floor(LAUNCH_MODEL, gpu, LAUNCH_GPUS, batch, LAUNCH_IN, LAUNCH_OUT,
                                  LAUNCH_DTYPE, LAUNCH_DTYPE)


def _fp8_cache_needed() -> tuple[int, int]:
    """(runs a BF16 cache could not hold at full length, per-GPU throughput runs in all)."""
    runs = [m for m in measurements.measurements().values() if m.metric == PER_GPU_THROUGHPUT]
    needed = sum(1 for m in runs if measurements.full_context_max_batch(m, "bf16") < m.batch)
    return needed, len(runs)


def model() -> SimpleNamespace:
    known = measurements.measurements()
    quoted = {name: measurements.compare(known[key]) for name, key in QUOTED.items()}
    lat, thr, ceil = efficiency("latency"), efficiency("throughput"), efficiency("ceiling")
    h100, h200 = get_gpu(LAUNCH_GPU), get_gpu(LAUNCH_COMPARED_GPU)
    batches = catalog().claims["h200-launch-batches"]
    b_h100, b_h200 = int(batches.low), int(batches.high)
    run_h100 = _launch_floor(LAUNCH_GPU, b_h100)
    run_h200 = _launch_floor(LAUNCH_COMPARED_GPU, b_h200)
    run_h200_same = _launch_floor(LAUNCH_COMPARED_GPU, b_h100)
    fp8_needed, fp8_total = _fp8_cache_needed()
    eta = DEFAULT_EFFICIENCY
    return SimpleNamespace(
        **quoted,
        lat=lat, thr=thr, ceil=ceil, eta=eta,
        # prefill: how far a real long prompt runs above its floor
        prefill_miss=1 / quoted["ttft_long"].efficiency,
        # the KV cache format of the throughput runs
        fp8_needed=fp8_needed, fp8_total=fp8_total,
        # the H200 launch comparison
        h100=h100, h200=h200,
        **bandwidth_comparison(anchor()),  # the argument's words and facts (same compute, ...)
        bandwidth_ratio=h200.bandwidth_bytes_per_s / h100.bandwidth_bytes_per_s,
        launch_in=LAUNCH_IN, launch_out=LAUNCH_OUT,
        launch_batch_h100=b_h100,
        launch_batch_ratio=b_h200 / b_h100,
        launch_speedup=run_h200 / run_h100,
        launch_speedup_same_batch=run_h200_same / run_h100,
        # the efficiency default against the throughput runs: cost multiplies by eta / eta_run
        cost_factor_median=eta / thr["median"],
        cost_factor_worst=eta / thr["min"],
    )
