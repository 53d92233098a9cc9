"""docs/guide/autoscaling.md, chapter 6: the request-cost spread, the scaling signal, scale-up
time, warm pools, admission and preemption, for the anchor of data/workloads.toml, and queueing theory on the
knee's replica (pages/_queueing.py). SI units."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.autoscale.fluid import schedule
from ...engine.autoscale.run import mix
from ...engine.model.geometry import model_kv_bytes_per_seq
from ...engine.model.scenario import anchor, scenario
from ...engine.serving.sweep import CAPACITY_CONCURRENCY
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import Assumption, assume
from . import _queueing, design_autoscaler_day
from ._shared import operations_examples, preemption_costs, request_spread
from ._sweep import AnchorSweep, knee_figures
from .design_autoscaler_day import BIN_MINUTES, series

# The chapter's own inputs, used on no other page.
SEARCH_QUERY_S = 0.008  # 6.1: what a search query costs, give or take a factor of a few
KV_OCCUPANCY = 0.93  # 6.2: one reading of the composite signal's inputs ...
QUEUE_WAIT_P95_S = 0.15
QUEUE_WAIT_TARGET_S = 0.2
REPLICAS_NOW = 10  # ... and the fleet it scales
LOCAL_NVME_BYTES_PER_S = 5e9  # 6.3: an assumed read rate from a local NVMe copy of the weights
REJECT_S = 0.001  # 6.4: rejecting at the edge ...
TIMEOUT_S = 60  # ... against timing out after consuming capacity

# The problems at the end of the chapter: other GPUs and models than the anchor (page-only inputs).
SIGNAL_GPU = "h200"  # P1: the composite signal for the anchor model on 4 x H200 ...
SIGNAL_IN_FLIGHT = 250  # ... with this many sequences in flight ...
SIGNAL_MEAN_CONTEXT = 3000  # ... at this mean context, in tokens ...
SIGNAL_WAIT_P95_S = 0.3  # ... a p95 queue wait against the chapter's target ...
SIGNAL_REPLICAS = 12  # ... on a fleet of this many replicas
POOL_GPU, POOL_GPUS = "h200", 8  # P2: warm replicas of 8 x H200 ...
POOL_FORECAST_REPLICAS = 120  # ... for a forecast peak of this many replicas ...
POOL_FORECAST_ERROR = 0.08  # ... that misses by up to this much on a bad day
LOAD_MODEL, LOAD_WEIGHTS = "deepseek-v3", "fp8"  # P3: the weights a new replica of a large MoE loads
LONG_SEQ = 32768  # P4: preempting a long sequence


def term_binds(term: str, kv_ratio: float, queue_ratio: float) -> Assumption:
    """"The KV term binds" / "the queue term binds": `term` is the larger of the signal's two ratios, the
    signal calls for more replicas (above 1), and the other term alone would not have (at most 1)."""
    mine, other = (kv_ratio, queue_ratio) if term == "kv" else (queue_ratio, kv_ratio)
    return assume(mine > 1 and other <= 1, f"KV occupancy over its target {fmt.num(kv_ratio)}, "
                                           f"queue wait over its target {fmt.num(queue_ratio)}",
                  f"the {term} term no longer binds alone: say which term sets the signal")


def problems() -> SimpleNamespace:
    """The chapter's problems, each on another GPU, model or context than the anchor."""
    w = workloads()
    # P1: KV occupancy is the KV the running sequences hold over the replica's budget
    replica = scenario(w["model"], SIGNAL_GPU, gpus=w["gpus"])
    held = SIGNAL_IN_FLIGHT * model_kv_bytes_per_seq(replica.model_spec, SIGNAL_MEAN_CONTEXT)
    occupancy = held / replica.kv_budget_bytes
    signal = f.scaling_signal(occupancy, w["kv_occupancy_target"], SIGNAL_WAIT_P95_S, QUEUE_WAIT_TARGET_S)
    # P2: the warm pool from the forecast's error, priced
    warm = math.ceil(POOL_FORECAST_REPLICAS * POOL_FORECAST_ERROR)
    price = catalog().prices[POOL_GPU].typical
    # P3: a new replica's weights over the chapter's two read rates
    big = scenario(LOAD_MODEL, POOL_GPU, gpus=POOL_GPUS, weights=LOAD_WEIGHTS)
    # P4: the chapter's preemption comparison at a long context
    long = anchor(seq_len=LONG_SEQ)
    return SimpleNamespace(
        replica=replica, in_flight=SIGNAL_IN_FLIGHT, mean_context=SIGNAL_MEAN_CONTEXT,
        kv_held=held, occupancy=occupancy, kv_ratio=occupancy / w["kv_occupancy_target"],
        queue_wait_p95_s=SIGNAL_WAIT_P95_S, queue_wait_p95_ms=SIGNAL_WAIT_P95_S * 1000,
        queue_wait_ratio=SIGNAL_WAIT_P95_S / QUEUE_WAIT_TARGET_S,
        signal=signal, replicas_now=SIGNAL_REPLICAS, desired_replicas=f.desired_replicas(SIGNAL_REPLICAS, signal),
        queue_binds=term_binds("queue", occupancy / w["kv_occupancy_target"], SIGNAL_WAIT_P95_S / QUEUE_WAIT_TARGET_S),
        pool_gpu=big.gpu_spec, pool_gpus=POOL_GPUS,
        forecast_replicas=POOL_FORECAST_REPLICAS, forecast_error=POOL_FORECAST_ERROR,
        forecast_slack=POOL_FORECAST_REPLICAS * POOL_FORECAST_ERROR,
        warm_replicas=warm, warm_gpus=warm * POOL_GPUS, price_per_gpu_hour=price,
        warm_cost_per_day=warm * POOL_GPUS * price * 24,
        big=big,
        big_load_network_s=f.transfer_time_s(big.weight_bytes, w["network_storage_bytes_per_s"]),
                big_load_network_min=f.transfer_time_s(big.weight_bytes, w["network_storage_bytes_per_s"]) / 60,
        big_load_nvme_s=f.transfer_time_s(big.weight_bytes, LOCAL_NVME_BYTES_PER_S),
        long=long, long_costs=SimpleNamespace(**preemption_costs(long)),
    )


def forecast_band() -> SimpleNamespace:
    """6.3's forecast with its error band and the warm pool it implies, on the autoscaler design's day under the
    warm-pool policy (the run pages/design_autoscaler_day.py makes): the forecast, its error on a backtest day,
    the forecast's replicas at its peak (fluid.schedule) and the pool they imply (formulas.warm_pool_replicas),
    the engine's own functions; and the drawing's series in day.BIN_MINUTES bins."""
    d = design_autoscaler_day.model()
    r = d.pooled
    c, forecast = r.controls, r.day.forecast_per_s
    peak = max(range(len(forecast)), key=forecast.__getitem__)
    # schedule(m) sizes for the minutes after m: from the minute before the peak, the peak is among them
    replicas = schedule(r.day, peak - 1, c, mix(r.workload, r.planned, r.workload.prompt_tokens))
    binned = [forecast[i:i + BIN_MINUTES] for i in range(0, len(forecast), BIN_MINUTES)]
    return SimpleNamespace(
        name=d.w.name, run=r, error=c.forecast_error, percentile=c.slo_percentile, set_point=c.set_point,
        peak_forecast_per_s=forecast[peak], capacity_per_s=r.planned.rate_per_s, peak_hour=peak / 60,
        forecast_replicas=replicas, warm_replicas=f.warm_pool_replicas(replicas, c.forecast_error),
        pool_peak=d.pool_peak, reservation=c.max_replicas, series=series(r),
        # the afternoon's mix shift (data/autoscale.toml): the replicas step up where the forecast does not
        shift_start_hour=r.inputs.shift_start_hour, shift_end_hour=r.inputs.shift_start_hour + r.inputs.shift_hours,
        shift_prompt_scale=r.inputs.shift_prompt_scale, forecast_binned=[sum(b) / len(b) for b in binned],
        # the band: the forecast, up to the error it missed by at the SLO's percentile of the backtest's minutes
        band_upper=[sum(b) / len(b) * (1 + c.forecast_error) for b in binned])


def utilisation_knee(swept: AnchorSweep | None = None) -> SimpleNamespace:
    """6.4's knee on the anchor sweep (pages/_sweep.py, sweep.knee's definition), and how the heaviest rate
    compares with it: arrivals, requests served and p99 TTFT, each as a ratio."""
    k = knee_figures(swept)
    knee, heavy = k.knee, k.heavy
    if knee is None:
        return SimpleNamespace(k=k, capacity_concurrency=CAPACITY_CONCURRENCY, offered_gain=None, served_gain=None,
                               ttft_gain=None)
    return SimpleNamespace(k=k, capacity_concurrency=CAPACITY_CONCURRENCY,
                           offered_gain=heavy.rate_per_s / knee.rate_per_s,
                           served_gain=heavy.requests_per_s / knee.requests_per_s,
                           ttft_gain=heavy.ttft_p99_s / knee.ttft_p99_s)


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    spread = request_spread(s.model_spec)
    signal = f.scaling_signal(KV_OCCUPANCY, w["kv_occupancy_target"], QUEUE_WAIT_P95_S, QUEUE_WAIT_TARGET_S)
    return SimpleNamespace(
        anchor=s, model=s.model_spec, gpu=s.gpu_spec,
        **operations_examples(s),
        # 6.1: two requests that both count as one
        search_query_s=SEARCH_QUERY_S,
        spread=spread,
        big_request_kv=model_kv_bytes_per_seq(s.model_spec, spread.big_tokens),
        small_request_kv=model_kv_bytes_per_seq(s.model_spec, spread.small_tokens),
        # 6.2: the composite signal; the queue-wait fraction is printed in milliseconds
        kv_occupancy=KV_OCCUPANCY,
        queue_wait_p95_s=QUEUE_WAIT_P95_S, queue_wait_target_s=QUEUE_WAIT_TARGET_S,
        queue_wait_p95_ms=QUEUE_WAIT_P95_S * 1000, queue_wait_target_ms=QUEUE_WAIT_TARGET_S * 1000,
        kv_ratio=KV_OCCUPANCY / w["kv_occupancy_target"],
        queue_wait_ratio=QUEUE_WAIT_P95_S / QUEUE_WAIT_TARGET_S,
        signal=signal,
        kv_binds=term_binds("kv", KV_OCCUPANCY / w["kv_occupancy_target"], QUEUE_WAIT_P95_S / QUEUE_WAIT_TARGET_S),
        replicas_now=REPLICAS_NOW,
        desired_replicas=f.desired_replicas(REPLICAS_NOW, signal),
        # 6.3: loading the weights onto a new replica
        local_nvme_bytes_per_s=LOCAL_NVME_BYTES_PER_S,
        weight_load_nvme_s=f.transfer_time_s(s.weight_bytes, LOCAL_NVME_BYTES_PER_S),
        # 6.4: admission, fairness, and preemption by swapping against recomputing
        reject_s=REJECT_S, timeout_s=TIMEOUT_S,
        pcie_bytes_per_s=w["pcie_bytes_per_s"],
        **preemption_costs(s),
        knee=utilisation_knee(),
        queue=_queueing.figures(),  # 6.5: queueing theory on the knee's replica
        band=forecast_band(),
        problems=problems(),
    )
