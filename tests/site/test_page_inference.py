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
