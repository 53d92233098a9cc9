"""The "Parallelism and placement" page model against placements derived by hand."""

from __future__ import annotations

import pytest

from macros.site.pages import parallelism as page


@pytest.fixture(scope="module")
def q():
    return page.model()


def test_deepseek_v3_under_both_layouts(q):
    d = q.by_key["deepseek-v3"]
    # FP8 on 8 x H200 at 4,096 tokens: under TP the 287.83 MB latent is held 8 times, 425 GB / 2.3027 GB -> 184.
    # Under DP attention each rank holds (671 - 11.41) / 8 + 11.41 = 93.86 GB of weights and 141 - 93.86 - 4
    # = 43.14 GB of cache: floor(43.14 / 0.28783) = 149 per rank, 8 x 149 = 1,192.
    assert (d.weights, d.layouts["tp"].max_batch, d.layouts["dp-attention"].max_batch) == ("fp8", 184, 1192)
    assert d.better == "dp-attention"
    assert q.dsv3_gain == pytest.approx(1192 / 184)
    # 61 x 187,105,280 attention parameters, one byte each in FP8.
    assert d.attention_params == 61 * 187_105_280 and d.attention_bytes == 61 * 187_105_280


def test_gqa_models_keep_tensor_parallelism(q):
    # 405B: 8 KV heads on 16 ranks, two copies, 95 sequences; its 71.9e9 attention parameters on every
    # rank (143.8 GB each in BF16) leave no room under DP attention.
    big = q.by_key["llama-3.1-405b"]
    assert (big.layouts["tp"].kv_copies, big.layouts["tp"].max_batch, big.better) == (2, 95, "tp")
    assert not big.layouts["dp-attention"].fits
    # Qwen3-235B: 4 KV heads on 8 ranks, two copies; TP still holds more than DP attention.
    assert q.by_key["qwen3-235b-a22b"].layouts["tp"].kv_copies == 2
    assert q.by_key["qwen3-235b-a22b"].better == "tp"


def test_attention_intensity(q):
    # MLA absorbed: 2 x 128 x (2 x 512 + 64) x 61 = 16.99 MFLOP per cached token over 70,272 B = 241.8 FLOP/B;
    # the H200's BF16 balance is 989.4 / 4.8 = 206.1.
    assert q.dsv3_attention_per_token == pytest.approx(278_528 * 61)
    assert q.dsv3_attention_per_byte == pytest.approx(278_528 * 61 / 70_272)
    assert q.dsv3_bf16_balance == pytest.approx(989.4 / 4.8)
    # GQA, the anchor in BF16: 2 x 64 / (8 x 2) = 8 FLOP per byte of cache.
    assert q.anchor_attention_per_byte == pytest.approx(8)
