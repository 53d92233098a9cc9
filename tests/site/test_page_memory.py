"""Chapter 3's page model (macros/site/pages/memory.py) against figures derived by hand for the anchor:
Llama-70B (70e9 parameters, BF16: 140e9 B; 80 layers, 64 query heads, 8 KV heads of 128: 327,680 B of
KV per token) on 4 x H100 (80e9 B each, 85,520,809,984 B visible, 3.35e12 B/s), a 4e9 B reserve per
GPU, sequences of 4,096 tokens (1,342,177,280 B of KV)."""

from __future__ import annotations

import pytest

from macros.site.pages import memory


@pytest.fixture(scope="module")
def q():
    return memory.model()


def test_weights_and_groups(q):
    # 140e9 B over 80e9 B per GPU: at least 2 GPUs
    assert q.min_gpus == 2
    # budgets: 2 GPUs 160e9 - 140e9 - 8e9 = 12e9 -> 8 sequences; 4: 164e9 -> 122; 8: 468e9 -> 348
    assert [(r.s.gpus, r.s.max_batch) for r in q.groups] == [(2, 8), (4, 122), (8, 348)]
    assert [r.weight_per_gpu for r in q.groups] == [70e9, 35e9, 17.5e9]


def test_kv_shares_of_one_gpu(q):
    # 128,000 tokens x 327,680 B = 41,943,040,000 B: 52.4% of 80e9, 49.0% of the 85.52e9 visible
    assert q.kv_long == 41_943_040_000
    assert q.share_long == pytest.approx(0.524288)
    assert q.share_long_visible == pytest.approx(41_943_040_000 / 85_520_809_984)
    # one token: 327,680 / 80e9 = 0.0004096%
    assert q.share_token == pytest.approx(4.096e-6)


def test_attention_designs_against_the_budget(q):
    # MHA 2 x 80 x 64 x 128 x 2 = 2,621,440 B/token (8x GQA); MQA 2 x 80 x 1 x 128 x 2 = 40,960 B.
    # At 4,096 tokens in 164e9 B: MHA 164e9 / 10,737,418,240 = 15.3 -> 15; GQA 122;
    # MQA 164e9 / 167,772,160 = 977.5 -> 977
    assert q.mha_over_gqa == 8 and q.queries_per_kv_head == 8
    assert [(r.label, r.per_token, r.max_batch) for r in q.attention_rows] == [
        ("MHA", 2_621_440, 15), ("GQA (this model)", 327_680, 122), ("MQA", 40_960, 977)]


def test_the_source_slips(q):
    # step bytes 140e9 + 122 x 1,342,177,280 = 303,745,628,160 B over one GPU: 90.67 ms, 4x the floor;
    # 122 / 90.67 ms = 1,345.5 tokens/s in aggregate, 11.03 per user
    assert q.single_gpu_step_s == pytest.approx(303_745_628_160 / 3.35e12)
    assert q.single_gpu_slowdown == pytest.approx(4)
    assert q.single_gpu_tokens_per_s == pytest.approx(122 * 3.35e12 / 303_745_628_160)
    # decimal budget over the binary size read as decimal: 164 / 1.25 = 131.2 -> 131
    assert q.max_batch_mixed_units == 131


def test_per_user_sanity_range(q):
    # floor per user 4 x 3.35e12 / 303,745,628,160 = 44.11 tokens/s; measured 1.7-2.2x slower: 20.05-25.95
    per_user = 13.4e12 / 303_745_628_160
    assert q.per_user_measured_low == pytest.approx(per_user / 2.2)
    assert q.per_user_measured_high == pytest.approx(per_user / 1.7)
    # twice the context halves the batch: 164e9 / 2,684,354,560 = 61.1 -> 61
    assert q.s_long.max_batch == 61
