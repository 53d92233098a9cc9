"""The reality check (docs/reality-check.md): published measurements beside their floors, the H200
launch comparison rerun as the source ran it, and what the measurements say about the efficiency
default. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.model import measurements
from ...engine.model.scenario import DEFAULT_EFFICIENCY, anchor, get_gpu, get_model
from ...engine.specs import catalog
from ...text import fmt
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


def launch_floor(gpu: str, batch: int) -> float | None:
    """Output tokens/s of the launch configuration on `gpu` at `batch`; None when the batch does not fit."""
    args = (LAUNCH_MODEL, gpu, LAUNCH_GPUS, LAUNCH_IN, LAUNCH_OUT, LAUNCH_DTYPE, LAUNCH_DTYPE)
    if batch > measurements.run_max_batch(*args):
        return None
    return measurements.run_floor(LAUNCH_MODEL, gpu, LAUNCH_GPUS, batch, LAUNCH_IN, LAUNCH_OUT,
                                  LAUNCH_DTYPE, LAUNCH_DTYPE)


def launch_words(b_h100: int, b_h200: int, same_compute: bool) -> str:
    """What the floor predicts for the launch runs as configured and at an equal batch, in words: the
    two speedups, or which run does not fit (a changed spec can leave the H100 without room for it).
    The reason the equal-batch figure is smaller (prefill takes the same time on both) holds only while
    the two GPUs have the same compute, so it is said only then."""
    runs = {(gpu, b): launch_floor(gpu, b) for gpu, b in
            ((LAUNCH_GPU, b_h100), (LAUNCH_COMPARED_GPU, b_h200), (LAUNCH_COMPARED_GPU, b_h100))}
    missing = [f"with a batch of {b} does not fit on one {spec.name} at {fmt.bytes_(spec.memory_bytes)}"
               for (gpu, b), run in runs.items() if run is None for spec in (get_gpu(gpu),)]
    if missing:
        return (f"has no figure on this data: {get_model(LAUNCH_MODEL).name} in {LAUNCH_DTYPE.upper()} "
                + " and ".join(dict.fromkeys(missing)))
    h100, h200, h200_same = runs.values()
    because = ", because the prefill, which is compute-bound, takes the same time on both" if same_compute else ""
    only = " only" if h200_same < h200 else ""
    return (f"predicts {fmt.times(h200 / h100, 2)}; at an equal batch of {b_h100} it predicts{only} "
            f"{fmt.times(h200_same / h100, 2)}{because}")


def load_words(c: measurements.Comparison, queued_because: str = "") -> str:
    """A decode run under load against its floor, in words: how many times the floor its step runs, or, when
    its concurrency is more than the KV budget holds (then there is no floor for the step), that the rest
    queue, and `queued_because` after it."""
    if c.time_ratio is not None:
        return f"the step runs {fmt.times(c.time_ratio, 2)} the floor"
    return (f"the KV budget ({c.measurement.kv.upper()} assumed) holds only {fmt.count(c.max_batch or 0)} "
            f"sequences of that length, so the rest wait in the queue{queued_because}")


def _fp8_cache_needed() -> tuple[int, int]:
    """(runs a BF16 cache could not hold at full length, per-GPU throughput runs in all)."""
    runs = [m for m in measurements.measurements().values() if m.metric == PER_GPU_THROUGHPUT]
    needed = sum(1 for m in runs if measurements.full_context_max_batch(m, "bf16") < m.batch)
    return needed, len(runs)


def model() -> SimpleNamespace:
    compared = bandwidth_comparison(anchor())
    known = measurements.measurements()
    quoted = {name: measurements.compare(known[key]) for name, key in QUOTED.items()}
    lat, thr, ceil = efficiency("latency"), efficiency("throughput"), efficiency("ceiling")
    h100, h200 = get_gpu(LAUNCH_GPU), get_gpu(LAUNCH_COMPARED_GPU)
    batches = catalog().claims["h200-launch-batches"]
    b_h100, b_h200 = int(batches.low), int(batches.high)
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
        **compared,  # the argument's words and facts (same compute, ...)
        bandwidth_ratio=h200.bandwidth_bytes_per_s / h100.bandwidth_bytes_per_s,
        launch_in=LAUNCH_IN, launch_out=LAUNCH_OUT,
        launch_batch_ratio=b_h200 / b_h100,
        # under load: each run's step against its floor, or the queue when its concurrency does not fit
        nim25_load=load_words(quoted["nim25"]), nim50_load=load_words(quoted["nim50"]),
        nim100_load=load_words(quoted["nim100"], ", which is why the time to first token balloons there"),
        launch_floor_words=launch_words(b_h100, b_h200, compared["same_compute"].holds),
        # the efficiency default against the throughput runs: cost multiplies by eta / eta_run
        cost_factor_median=eta / thr["median"],
        cost_factor_worst=eta / thr["min"],
    )
