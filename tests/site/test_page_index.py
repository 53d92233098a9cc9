"""The home page's model (macros/site/pages/index.py) against figures derived by hand.

Inputs, from the data: the 70B preset (N = 70e9, BF16) on 4 x H100 (3.35 TB/s, 989.4 TFLOP/s
dense, 1,978.9 TFLOP/s with sparsity); the H200 at 4.8 TB/s.
"""

from __future__ import annotations

import pytest

from macros.site.pages import index


def test_the_one_fact_and_the_traps():
    q = index.model()
    # 2 x 70e9 = 140 GFLOP at batch 1; the reads take 989.4 / 3.35 = 295x longer than the arithmetic.
    assert q.flops_one_token == 140e9
    assert q.memory_over_compute_one_gpu == pytest.approx(295.343, rel=1e-5)
    # 4.8 / 3.35 - 1 = 43.3% more bandwidth on the H200.
    assert q.compared_extra_bandwidth == pytest.approx(0.43284, rel=1e-4)
    # 2^30 / 10^9 - 1 = 7.37%; 1,978.9 / 989.4 = 2.0x.
    assert q.gib_over_gb == pytest.approx(0.073741824)
    assert q.sparse_over_dense == pytest.approx(2.0, rel=1e-3)
    # The anchor's headline: 122 sequences of 4,096 tokens on 4 GPUs.
    assert (q.anchor.gpus, q.anchor.max_batch, q.anchor.seq_len) == (4, 122, 4096)
