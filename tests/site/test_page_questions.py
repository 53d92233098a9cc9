"""The questions page's model (macros/site/pages/questions.py) against figures derived by hand.

Inputs, from the data: the 70B preset (N = 70e9, L = 80, H_q = 64, H_kv = 8, d_h = 128, BF16) on
4 x H100 (80 GB, 3.35 TB/s, 989.4 TFLOP/s dense); 4,096-token sequences, 4 GB reserve per GPU.
"""

from __future__ import annotations

import pytest

from macros.site.pages import questions


@pytest.fixture(scope="module")
def q():
    return questions.model()


def test_the_one_gpu_whiteboard_terms(q):
    # 140e9 B / 3.35e12 B/s = 41.79 ms; 2 x 70e9 / 989.4e12 = 0.1415 ms; the ratio is P / B = 295.3
    assert q.weight_read_one_gpu_s == pytest.approx(140e9 / 3.35e12)
    assert q.decode_compute_one_gpu_s == pytest.approx(140e9 / 989.4e12)
    assert q.memory_over_compute_one_gpu == pytest.approx(989.4e12 / 3.35e12)
    # 2,000 tokens generated one by one over the 4-GPU weight read: 2,000 x 140e9 / (4 x 3.35e12) = 20.9 s
    assert q.prompt_decode_s == pytest.approx(2000 * 140e9 / (4 * 3.35e12))


def test_gqa_against_mha(q):
    # 64 query heads over 8 KV heads: 8x. MHA per sequence 8 x 327,680 x 4,096 = 10.74 GB, so the
    # 164 GB budget (4 x 80 - 140 - 16) holds floor(164 / 10.74) = 15 sequences.
    assert q.gqa_saving == 8
    assert q.mha_kv_per_seq == 8 * 327_680 * 4096
    assert q.mha_max_batch == 15


def test_the_smallest_group_and_the_crossover(q):
    # ceil(140 / 80) = 2 GPUs; 2 x 80 - 140 - 2 x 4 = 12 GB holds floor(12e9 / 1.342e9) = 8 sequences.
    assert (q.min_group.gpus, q.min_group.max_batch) == (2, 8)
    # KV overtakes the weights above 140e9 / 1,342,177,280 = 104.3 sequences: from batch 105.
    assert q.kv_overtakes_from_batch == 105
    # The source's batch 130 needs 130 x 1.342 GB = 174.5 GB, more than the 164 GB budget.
    assert q.source_batch_kv == pytest.approx(130 * 1_342_177_280)


def test_batching_figures(q):
    # Outputs 10, 200, 15, 180: mean 101.25 over the longest 200 = 50.6% utilisation.
    assert q.static_utilisation == pytest.approx(101.25 / 200)
    # The claim says 30-50% utilisation, so 50-70% waste.
    assert (q.static_waste_low, q.static_waste_high) == pytest.approx((0.5, 0.7))
    # 50 tokens in 16-token blocks: 4 blocks, 14 slots empty; a 2,000-token prompt in 512-token chunks: 4.
    assert (q.blocks, q.block_slots_empty, q.prompt_chunks) == (4, 14, 4)
    # A request arriving at step 11 waits for the longest (200) to finish: 189 steps.
    assert q.arrival_wait_steps == 189


def test_prefix_caching_and_speculation(q):
    # 20 turns of 500 tokens: 500 x 20 x 21 / 2 = 105,000 uncached against 10,000 cached, 10.5x.
    assert (q.prefill_tokens_uncached, q.prefill_tokens_cached) == (105_000, 10_000)
    assert q.prefix_cache_saving == pytest.approx(10.5)
    # 4 draft tokens sharing the KV read: 140e9 / (5 x (140e9 + 4 x 80 x 64 x 128 x 4,096) / 295.34 - 1.342e9)
    assert q.spec_break_even == pytest.approx(140e9 / (5 * (140e9 + 10_737_418_240) / (989.4 / 3.35) - 1_342_177_280))
    # a 2,000-token prompt's 655,360,000 B of KV, a quarter per GPU over its own 50e9 B/s NIC: 3.28 ms
    assert q.prompt_kv_transfer_s == pytest.approx(655_360_000 / 4 / 50e9)


def test_request_spread_counts_attention(q):
    # 20 + 5 = 25 tokens against 100,000 + 4,000 = 104,000: 4,160x in tokens.
    assert (q.spread.small_tokens, q.spread.big_tokens) == (25, 104_000)
    assert q.spread.token_ratio == pytest.approx(4160)
    # FLOPs: 2 N n + 2 L H_q d_h n (n + 1), with 2 L H_q d_h = 2 x 80 x 64 x 128 = 1,310,720.
    small = 2 * 70e9 * 25 + 1_310_720 * 25 * 26
    big = 2 * 70e9 * 104_000 + 1_310_720 * 104_000 * 104_001
    assert q.spread.flop_ratio == pytest.approx(big / small)
    # (1.456e16 + 1.418e16) / 3.501e12 = 8,209x: attention about doubles the token ratio.
    assert 8200 < q.spread.flop_ratio < 8220


def test_warm_pool_and_failure(q):
    # 40 replicas forecast, 15% error: ceil(6) = 6 warm replicas of 4 GPUs = 24 GPUs at $2.50 = $60/h.
    assert (q.warm_replicas, q.warm_gpus) == (6, 24)
    assert q.warm_pool_usd_per_hour == pytest.approx(60.0)
    # A replica's 122 sequences each re-prefill 4,096 tokens: 2 x 70e9 x 4,096 = 5.734e14 FLOPs of
    # weights plus causal attention 4 x 64 x 128 x 80 x 4,096 x 4,097 / 2 = 2.200e13, over
    # 4 x 989.4e12 FLOP/s: 150.5 ms each, 18.4 s in all.
    prefill = (2 * 70e9 * 4096 + 2_621_440 * 4096 * 4097 / 2) / (4 * 989.4e12)
    assert q.replica_reprefill_s == pytest.approx(122 * prefill)


def test_h200_comparison(q):
    # 4.8 / 3.35 = 1.433: 43.3% more bandwidth, and the same 4-GPU group at batch 64 on H200s.
    assert q.compared_bandwidth_ratio == pytest.approx(4.8 / 3.35)
    assert q.compared_at_batch_big.gpu == "h200" and q.compared_at_batch_big.batch == 64
    assert q.at_batch_big.decode_step_s / q.compared_at_batch_big.decode_step_s == pytest.approx(4.8 / 3.35)


def test_the_long_conversation_is_about_half_a_gpu_and_the_quoted_figure_is_the_sources(q):
    # 327,680 B x 128,000 = 41.94e9 B: 52.4% of an 80e9 B H100, about half; 39.06 GiB, the source's "39 GB"
    assert q.long_context_gpu_words == "about half a GPU"
    assert q.often_quoted == "39 GB" and q.often_quoted_is_binary.holds
