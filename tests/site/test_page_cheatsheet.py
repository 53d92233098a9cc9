"""The cheat sheet's page model (macros/site/pages/cheatsheet.py) against figures derived by hand: the
anchor Llama-70B (70e9 parameters, BF16: 140e9 B; 80 layers, 64 query heads, 8 KV heads of 128; max
context 131,072) on 4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense, 1978.9e12 with sparsity),
a 4e9 B reserve per GPU, sequences of 4,096 tokens (327,680 x 4,096 = 1,342,177,280 B of KV)."""

from __future__ import annotations

import pytest

from macros.site.pages import cheatsheet


@pytest.fixture(scope="module")
def q():
    return cheatsheet.model()


def test_units_trap(q):
    # budget 164e9 B; 1,342,177,280 B is exactly 1.25 GiB, read as 1.25 GB: 164 / 1.25 = 131.2 -> 131,
    # against the 122 that fit
    assert (q.s.max_batch, q.max_batch_mixed_units) == (122, 131)


def test_one_gpu_bandwidth_trap(q):
    # step bytes 140e9 + 122 x 1,342,177,280 = 303,745,628,160 B over one GPU's 3.35e12 B/s: 90.67 ms
    assert q.step_one_gpu_bandwidth_s == pytest.approx(303_745_628_160 / 3.35e12)
    assert q.step_one_gpu_bandwidth_s == pytest.approx(4 * q.s.decode_step_s)


def test_sparsity_trap(q):
    # 1.4e11 FLOP at the sparse 1978.9e12 FLOP/s: 0.0707 ms; a 2,000-token prefill 2.8e14 / 1978.9e12 = 141.5 ms
    assert q.one_gpu.token_compute_sparse_s == pytest.approx(1.4e11 / 1978.9e12)
    assert q.one_gpu.prompt_compute_sparse_s == pytest.approx(2.8e14 / 1978.9e12)


def test_mla_has_no_factor_of_two(q):
    # DeepSeek-V3: 61 layers x (512 + 64) x 2 B = 70,272 B per token; doubled 140,544
    assert (q.mla_kv_per_token, q.mla_kv_doubled) == (70_272, 140_544)


def test_attention_at_full_context(q):
    # 4 x 80 x 64 x 128 x 131,072 = 343,597,383,680 FLOP per token (3.44e11); / (2 x 70e9) = 2.454x the 2N term
    assert q.attention_long_flops == 343_597_383_680
    assert q.attention_over_2n == pytest.approx(2.454267, rel=1e-6)
    # the KV cache at that context: 131,072 x 327,680 = 42,949,672,960 B
    assert q.kv_long == 42_949_672_960


def test_rules(q):
    # crossover 140e9 / 1,342,177,280 = 104.3; doubling the context: 164e9 / 2,684,354,560 -> 61
    assert q.crossover == pytest.approx(104.308, rel=1e-5)
    assert q.s_long.max_batch == 61
    assert q.bandwidth_ratio == pytest.approx(4.8 / 3.35)
