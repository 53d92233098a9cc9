"""The conventions page's model (macros/site/pages/conventions.py) against figures derived by hand.

Inputs, from the data: the 70B preset (KV 327,680 B per token, 1,342,177,280 B per 4,096-token
sequence, a 164 GB budget on 4 x H100); the H100 at 80 GB marketed, 85,520,809,984 B visible.
"""

from __future__ import annotations

import pytest

from macros.site.pages import conventions


@pytest.fixture(scope="module")
def q():
    return conventions.model()


def test_the_gib_trap(q):
    # 1,342,177,280 B is exactly 1.25 GiB; read as "1.25 GB", 164e9 / 1.25e9 = 131.2, so 131
    # sequences where decimal units on both sides give 122.
    # The source's figures are quoted, and its slip is checked to still be this one on today's data.
    assert (q.quote.kv_per_seq, q.quote.max_batch_short, q.quote.kv_per_token_short) == ("1.25 GB", "131", "320 KB")
    assert q.source_budget_bytes == 164e9
    assert q.check.kv_seq.holds and q.check.mixed_units.holds and q.check.kv_token.holds
    assert q.anchor.max_batch == 122
    assert (q.kib_bytes, q.gib_bytes) == (1024, 1_073_741_824)


def test_capacity_and_the_sparsity_trap(q):
    # 85,520,809,984 / 80e9 - 1 = 6.90% more than marketed.
    assert q.visible_over_marketed == pytest.approx(85_520_809_984 / 80e9 - 1)
    # Batch 1 compute: 140e9 / 989.4e12 = 0.1415 ms dense, 140e9 / 1,978.9e12 = 0.0707 ms "sparse";
    # balance 1,978.9e12 / 3.35e12 = 590.7 with sparsity.
    assert q.decode_compute_one_gpu_s == pytest.approx(1.41500e-4, rel=1e-4)
    assert q.decode_compute_sparse_s == pytest.approx(7.0746e-5, rel=1e-4)
    assert q.sparse_balance == pytest.approx(590.716, rel=1e-5)
    # The anchor GPU's dated price: $2.50 typical.
    assert q.price.typical == 2.50
