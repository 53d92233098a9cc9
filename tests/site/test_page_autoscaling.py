"""Chapter 6's page model (macros/site/pages/autoscaling.py) against figures derived by hand.

Inputs, from the data: the 70B preset (N = 70e9, KV 327,680 B per token, BF16 weights 140 GB) on
4 x H100 (3.35 TB/s, 989.4 TFLOP/s dense); 4,096-token sequences; workloads.toml's examples.
"""

from __future__ import annotations

import pytest

from macros.site.pages import autoscaling


@pytest.fixture(scope="module")
def q():
    return autoscaling.model()


def test_request_spread_and_kv_held(q):
    # 104,000 tokens hold 327,680 x 104,000 = 34.08 GB of KV; 25 tokens hold 8.19 MB.
    assert q.big_request_kv == 327_680 * 104_000
    assert q.small_request_kv == 327_680 * 25
    assert q.spread.token_ratio == pytest.approx(104_000 / 25)


def test_composite_signal(q):
    # max(0.93 / 0.85, 150 ms / 200 ms) = max(1.094, 0.75) = 1.094; ceil(10 x 1.094) = 11 replicas.
    assert q.kv_ratio == pytest.approx(0.93 / 0.85)
    assert q.queue_wait_ratio == pytest.approx(0.75)
    assert q.signal == pytest.approx(0.93 / 0.85)
    assert q.desired_replicas == 11
    assert (q.queue_wait_p95_ms, q.queue_wait_target_ms) == pytest.approx((150, 200))


def test_scale_up_and_warm_pool(q):
    # 140e9 B over 1.25 GB/s = 112 s; over 5 GB/s = 28 s.
    assert q.weight_load_network_s == pytest.approx(112)
    assert q.weight_load_nvme_s == pytest.approx(28)
    # 40 replicas forecast with 15% error: ceil(6) = 6 warm replicas.
    assert q.warm_replicas == 6


def test_fairness(q):
    # 10 x 100,000 = 1,000,000 tokens against 10 x 100 = 1,000: 1,000x the capacity.
    assert (q.tenant_big_total, q.tenant_small_total) == (1_000_000, 1_000)
    assert q.tenant_ratio == pytest.approx(1000)


def test_swap_against_recompute(q):
    # Swap 1,342,177,280 B each way at 64 GB/s: 2 x 20.97 ms = 41.9 ms. Recompute: prefill of
    # 4,096 tokens, (2 x 70e9 x 4,096 + causal attention 4 x 64 x 128 x 80 x 4,096 x 4,097 / 2)
    # / (4 x 989.4e12) = 150.5 ms. Swapping is 3.59x faster.
    assert q.swap_round_trip_s == pytest.approx(2 * 1_342_177_280 / 64e9)
    recompute = (2 * 70e9 * 4096 + 2_621_440 * 4096 * 4097 / 2) / (4 * 989.4e12)
    assert q.swap_speedup == pytest.approx(recompute / (2 * 1_342_177_280 / 64e9))


def test_gpu_utilisation_misleads(q):
    # At the full batch of 122 the step reads 140e9 + 122 x 1.342e9 = 303.7 GB for 122 x (2 x 70e9
    # + attention over 4,096 cached tokens, 4 x 64 x 128 x 80 x 4,096 = 1.074e10) FLOPs: intensity
    # 60.5 FLOP/B against a balance of 295.3, so 20.5% of peak compute.
    intensity = 122 * (2 * 70e9 + 2_621_440 * 4096) / (140e9 + 122 * 1_342_177_280)
    assert q.compute_used_full_batch == pytest.approx(intensity / (989.4e12 / 3.35e12))
