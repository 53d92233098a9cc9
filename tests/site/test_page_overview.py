"""The overview page's model (macros/site/pages/overview.py) against figures derived by hand.

Inputs, from the data: the 70B preset (N = 70e9, L = 80, H_q = 64, H_kv = 8, d_h = 128, BF16) on
4 x H100 (80 GB, 3.35 TB/s, 989.4 TFLOP/s dense, 1,978.9 with sparsity); the H200 at 4.8 TB/s.
"""

from __future__ import annotations

import pytest

from macros.site.pages import overview


@pytest.fixture(scope="module")
def q():
    return overview.model()


def test_the_one_fact_on_one_gpu(q):
    # 70e9 x 2 B = 140 GB; 140e9 / 3.35e12 = 41.79 ms against 2 x 70e9 / 989.4e12 = 0.1415 ms: 295x.
    assert q.bytes_per_weight == 2
    assert q.flops_one_token == 140e9
    assert q.weight_read_one_gpu_s == pytest.approx(0.0417910, rel=1e-5)
    assert q.decode_compute_one_gpu_s == pytest.approx(1.41500e-4, rel=1e-4)
    assert q.memory_over_compute_one_gpu == pytest.approx(295.343, rel=1e-5)
    # The circulating wrong figure: 140e9 / 1,978.9e12 = 0.0707 ms.
    assert q.decode_compute_sparse_s == pytest.approx(140e9 / 1978.9e12)


def test_h200_against_h100(q):
    # 4.8 / 3.35 = 1.4328: 43.28% more bandwidth.
    assert q.compared_gpu.key == "h200"
    assert q.compared_extra_bandwidth == pytest.approx(4.8 / 3.35 - 1)


def test_the_three_consequences(q):
    # Batching: (140e9 + b x 1,342,177,280) / (4 x 3.35e12): batch 1 = 10.55 ms, batch 64 = 16.86 ms.
    kv_seq = 2 * 80 * 8 * 128 * 2 * 4096
    assert q.at_batch_one.decode_step_s == pytest.approx((140e9 + kv_seq) / 13.4e12)
    assert q.at_batch_big.decode_step_s == pytest.approx((140e9 + 64 * kv_seq) / 13.4e12)
    # The KV cache outweighs the weights at the max batch: 122 x 1.342 GB = 163.7 GB > 140 GB.
    assert q.anchor.kv_bytes_total == 122 * kv_seq > q.anchor.weight_bytes
    # Prefill of 2,000 tokens: (2 x 70e9 x 2,000 + 2 x 80 x 64 x 128 x 2,000 x 2,001) / (4 x 989.4e12)
    # = (2.8e14 + 5.2455e12) / 3.9576e15 = 72.08 ms.
    assert q.prompt.prefill_s == pytest.approx((2.8e14 + 1_310_720 * 2000 * 2001) / (4 * 989.4e12))
