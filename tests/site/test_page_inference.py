"""Chapter 1's page model (macros/site/pages/inference.py) against figures derived by hand for the
anchor: Llama-70B (70e9 parameters, 80 layers, 64 query heads, 8 KV heads, head dim 128, 131,072
tokens of context) on 4 x H100 (3.35e12 B/s, 989.4e12 FLOP/s dense BF16), a 2,000-token prompt."""

from __future__ import annotations

import pytest

from macros.site.pages import inference


@pytest.fixture(scope="module")
def q():
    return inference.model()


def test_token_flops_and_attention(q):
    # 2N = 2 x 70e9 = 1.4e11 FLOP per token
    assert q.token_flops == pytest.approx(1.4e11)
    # 4 L H_q d_h s = 4 x 80 x 64 x 128 x 4,096 = 10,737,418,240; / 1.4e11 = 0.076696 (+7.7%)
    assert q.attention_flops_context == pytest.approx(10_737_418_240)
    assert q.attention_share_context == pytest.approx(0.0766958, rel=1e-5)
    # at 131,072 tokens: 2,621,440 x 131,072 = 343,597,383,680 FLOP; / 1.4e11 = 2.454x
    assert q.attention_ratio_long == pytest.approx(2.4542670, rel=1e-6)


def test_kv_per_sequence(q):
    # 2 x 80 x 8 x 128 x 2 B = 327,680 B per token; x 4,096 = 1,342,177,280 B; x 131,072 = 42.9 GB
    assert q.kv_seq_context == 1_342_177_280
    assert q.kv_seq_long == 327_680 * 131_072


def test_prefill_and_decode_floor_on_the_anchor(q):
    # prefill, causal attention included: 2 x 70e9 x 2,000 = 2.8e14 FLOP plus 4 x 64 x 128 FLOP per
    # (query, key) pair x 80 layers x 2,000 x 2,001 / 2 pairs = 5.2455e12 FLOP; over 4 x 989.4e12 FLOP/s
    # that is 72.08 ms, far above the weight read of 140e9 / (4 x 3.35e12) = 10.45 ms
    assert q.prompt.gpus == 4
    assert q.prompt.prefill_s == pytest.approx((2.8e14 + 5.24550e12) / 3.9576e15, rel=1e-6)
    # decode at batch 1: (140e9 + 327,680 x 2,000) B / (4 x 3.35e12 B/s) = 140.65536e9 / 13.4e12 = 10.50 ms
    assert q.prompt.decode_step_s == pytest.approx(140.65536e9 / 13.4e12)
    assert (q.next_token, q.cached_tokens) == (501, 500)


def test_one_request_end_to_end(q):
    # 72.08 ms prefill + 499 steps of 140.65536e9 / 13.4e12 = 10.497 ms: 5.310 s for a 500-token answer
    step = 140.65536e9 / 13.4e12
    assert q.request_s == pytest.approx(q.prompt.prefill_s + 499 * step)
    assert 5.30 < q.request_s < 5.32
    assert q.prefill_in_steps == pytest.approx(q.prompt.prefill_s / step)


def test_problems(q):
    p = q.problems
    # P1, Llama-3.1-8B: 2 x 8,030,261,248 = 16,060,522,496 FLOP; attention 4 x 32 x 32 x 128 = 524,288 FLOP
    # a token of context; equal at 16,060,522,496 / 524,288 = 30,633 tokens
    assert p.small_flops == 16_060_522_496
    assert p.attention_per_context_token == 524_288
    assert p.crossover_context == pytest.approx(30_633.0156, rel=1e-6)
    # P2: 2 x 32 x 8 x 128 x 2 B = 131,072 B a token; x 8,192 = 1,073,741,824 B, 4.47% of 24e9 B;
    # the anchor's 327,680 B is 2.5x that
    assert p.small_kv_seq == 131_072 * 8192
    assert p.small_kv_share_of_gpu == pytest.approx(1_073_741_824 / 24e9)
    assert p.anchor_over_small_kv == 2.5
    # P3, one L4 (121e12 FLOP/s, 0.3e12 B/s): prefill (2 x 8.03e9 x 2,000 + 2 x 32 x 32 x 128 x 2,000 x 2,001)
    # / 121e12 = (3.2121e13 + 1.0491e12) / 121e12 = 274.1 ms; decode (16,060,522,496 + 131,072 x 2,000) / 0.3e12
    # = 54.41 ms; 500 tokens: 0.2741 + 499 x 0.05441 = 27.42 s
    ttft = (2 * 8_030_261_248 * 2000 + 2 * 32 * 32 * 128 * 2000 * 2001) / 121e12
    tpot = (16_060_522_496 + 131_072 * 2000) / 0.3e12
    assert p.request.ttft_s == pytest.approx(ttft)
    assert p.request.tpot_s == pytest.approx(tpot)
    assert p.request.total_s == pytest.approx(ttft + 499 * tpot)
    # P4, DeepSeek-V3: 2 x 37e9 = 74e9 FLOP a token, 74 / 140 = 52.9% of the anchor's
    assert p.moe_flops == 74e9
    assert p.moe_over_anchor == pytest.approx(74 / 140)
