"""docs/guide/autoscaling.md, chapter 6: the request-cost spread, the scaling signal, scale-up
time, warm pools, admission and preemption, for the anchor of data/workloads.toml. SI units."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.geometry import kv_bytes_per_seq
from ...engine.scenario import anchor
from ...engine.workloads import workloads
from ._shared import operations_examples, preemption_costs, request_spread

# The chapter's own inputs, used on no other page.
SEARCH_QUERY_S = 0.008  # 6.1: what a search query costs, give or take a factor of a few
KV_OCCUPANCY = 0.93  # 6.2: one reading of the composite signal's inputs ...
QUEUE_WAIT_P95_S = 0.15
QUEUE_WAIT_TARGET_S = 0.2
REPLICAS_NOW = 10  # ... and the fleet it scales
LOCAL_NVME_BYTES_PER_S = 5e9  # 6.3: an assumed read rate from a local NVMe copy of the weights
REJECT_S = 0.001  # 6.4: rejecting at the edge ...
TIMEOUT_S = 60  # ... against timing out after consuming capacity


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
        big_request_kv=kv_bytes_per_seq(s.model_spec, spread.big_tokens),
        small_request_kv=kv_bytes_per_seq(s.model_spec, spread.small_tokens),
        # 6.2: the composite signal; the queue-wait fraction is printed in milliseconds
        kv_occupancy=KV_OCCUPANCY,
        queue_wait_p95_s=QUEUE_WAIT_P95_S, queue_wait_target_s=QUEUE_WAIT_TARGET_S,
        queue_wait_p95_ms=QUEUE_WAIT_P95_S * 1000, queue_wait_target_ms=QUEUE_WAIT_TARGET_S * 1000,
        kv_ratio=KV_OCCUPANCY / w["kv_occupancy_target"],
        queue_wait_ratio=QUEUE_WAIT_P95_S / QUEUE_WAIT_TARGET_S,
        signal=signal,
        replicas_now=REPLICAS_NOW,
        desired_replicas=f.desired_replicas(REPLICAS_NOW, signal),
        # 6.3: loading the weights onto a new replica
        local_nvme_bytes_per_s=LOCAL_NVME_BYTES_PER_S,
        weight_load_nvme_s=f.transfer_time_s(s.weight_bytes, LOCAL_NVME_BYTES_PER_S),
        # 6.4: admission, fairness, and preemption by swapping against recomputing
        reject_s=REJECT_S, timeout_s=TIMEOUT_S,
        pcie_bytes_per_s=w["pcie_bytes_per_s"],
        **preemption_costs(s),
    )
