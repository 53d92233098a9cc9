"""Chapter 11's formulas (macros/engine/formulas/kv_tiers.py), each against a value derived here by hand, and
each refusing an input that cannot be."""

from __future__ import annotations

import math

import pytest

from macros.engine.formulas import kv_tiers as kt


def test_reload_time():
    # 2,000 tokens of the 70B's KV (327,680 B each) split over 4 GPUs: 163.84e6 B a GPU over 52.8e9 B/s is
    # 3.103 ms, plus a 10 µs setup
    assert kt.reload_time_s(327_680 * 2000 / 4, 52.8e9, 1e-5) == pytest.approx(163.84e6 / 52.8e9 + 1e-5)
    assert kt.reload_time_s(0, 1e9) == 0
    with pytest.raises(ValueError, match="bandwidth"):
        kt.reload_time_s(1e9, 0)
    with pytest.raises(ValueError, match="latency"):
        kt.reload_time_s(1e9, 1e9, -1e-6)


def test_recompute_time():
    # 1,000 tokens of a 70e9 model on 4 GPUs: 1.4e14 FLOP at 600e12 FLOP/s each is 58.33 ms; attention
    # 2 x 80 x 64 x 128 x 1,000 x 1,001 = 1.3120e12 FLOP at 650e12 each is 0.5046 ms
    linear, attention = 2 * 70e9 * 1000, 2 * 80 * 64 * 128 * 1000 * 1001
    assert attention == 1_312_030_720_000
    assert kt.recompute_time_s(linear, attention, 4, 600e12, 650e12) == pytest.approx(
        1.4e14 / 2.4e15 + 1_312_030_720_000 / 2.6e15)
    with pytest.raises(ValueError, match="GPU count"):
        kt.recompute_time_s(linear, attention, 0, 600e12, 650e12)
    with pytest.raises(ValueError, match="attention's rate"):
        kt.recompute_time_s(linear, attention, 4, 600e12, 0)


def test_break_even_bandwidth():
    # The anchor per GPU: 327,680 / 4 = 81,920 B a token against 2 x 70e9 / 4 = 35e9 FLOP at 615e12 FLOP/s,
    # 56.9 µs: 81,920 / 56.91e-6 = 1.4395e9 B/s
    assert kt.reload_break_even_bandwidth(81_920, 35e9, 615e12) == pytest.approx(81_920 * 615e12 / 35e9)
    assert kt.reload_break_even_bandwidth(81_920, 35e9, 615e12) == pytest.approx(1.4395e9, rel=1e-4)
    with pytest.raises(ValueError):
        kt.reload_break_even_bandwidth(81_920, 0, 615e12)


def test_crossover_set_by_the_latency():
    # r = 1 µs, a = 10 µs, no attention, λ = 90 µs: 90 + s = 10 s at s = 10 tokens
    assert kt.reload_crossover_tokens(1e-6, 90e-6, 10e-6, 0) == pytest.approx(10)
    # a reload never cheaper per token, and no attention term: never
    assert kt.reload_crossover_tokens(10e-6, 90e-6, 1e-6, 0) == math.inf


def test_crossover_set_by_attention():
    # r = 20 µs, a = 16 µs, h = 0.5 ns a pair, no latency: 20 s = 16 s + 0.25e-3 s (s + 1) in µs, so
    # s + 1 = 4 / 0.00025 = 16,000: s = 15,999
    s = kt.reload_crossover_tokens(20e-6, 0, 16e-6, 0.5e-9)
    assert s == pytest.approx(15_999)
    # at that length the two sides are equal, and a little past it reloading is cheaper
    def reload(n):
        return 20e-6 * n

    def recompute(n):
        return 16e-6 * n + 0.5e-9 * n * (n + 1) / 2

    assert reload(s) == pytest.approx(recompute(s))
    assert reload(s + 10) < recompute(s + 10) and reload(s - 10) > recompute(s - 10)
    with pytest.raises(ValueError, match="negative"):
        kt.reload_crossover_tokens(-1e-6, 0, 1e-6, 1e-9)


def test_prefill_capacity_multiplier():
    # DeepSeek's 56.3% of prompt tokens from the cache: 1 / 0.437 = 2.288x the prompts for the same compute
    assert kt.prefill_capacity_multiplier(0.563) == pytest.approx(1 / 0.437)
    assert kt.prefill_capacity_multiplier(0) == 1
    for bad in (1, 1.2, -0.1):
        with pytest.raises(ValueError, match="hit rate"):
            kt.prefill_capacity_multiplier(bad)


def test_tier_residence():
    # 1 TB of host DRAM written at 5.76 GB/s: 173.6 s before an untouched entry is pushed out
    assert kt.tier_residence_s(1e12, 5.76e9) == pytest.approx(1e12 / 5.76e9)
    with pytest.raises(ValueError, match="write rate"):
        kt.tier_residence_s(1e12, 0)


def test_attention_overtakes():
    # Llama-3.1-70B: 70,553,706,496 / (80 x 64 x 128) - 1 = 70,553,706,496 / 655,360 - 1 = 107,654.41
    assert kt.attention_overtakes_tokens(70_553_706_496, 80, 4 * 64 * 128) == pytest.approx(
        70_553_706_496 / 655_360 - 1)
    with pytest.raises(ValueError):
        kt.attention_overtakes_tokens(70e9, 80, 0)


def test_gpus_for_prefill():
    # 1.452e18 FLOP within 60 s at 650e12 FLOP/s a GPU: 37.23 -> 38 GPUs; exactly 37 GPUs' worth is 37
    assert kt.gpus_for_prefill(1.452e18, 60, 650e12) == 38
    assert kt.gpus_for_prefill(37 * 60 * 650e12, 60, 650e12) == 37
    with pytest.raises(ValueError, match="target"):
        kt.gpus_for_prefill(1e18, 0, 650e12)


def test_ring_min_tokens():
    # 8 KV heads, 64 query heads, 2 B, 668e12 FLOP/s, a 450e9 B/s link: non-causal 8 x 2 x 668e12 / (2 x 64 x
    # 450e9) = 185.6 tokens; causal (half of each block computed) twice that, 371.1
    assert kt.ring_min_tokens_per_gpu(64, 8, 2, 668e12, 450e9, causal=False) == pytest.approx(
        8 * 2 * 668e12 / (2 * 64 * 450e9))
    assert kt.ring_min_tokens_per_gpu(64, 8, 2, 668e12, 450e9) == pytest.approx(371.1, rel=1e-3)
    with pytest.raises(ValueError, match="bandwidth"):
        kt.ring_min_tokens_per_gpu(64, 8, 2, 668e12, 0)


def test_ring_bytes_and_decode_partials():
    # a ring of 8 passes 7/8 of 41 GB on: 35.875 GB a GPU
    assert kt.ring_bytes_sent_per_gpu(41e9, 8) == pytest.approx(41e9 * 7 / 8)
    assert kt.ring_bytes_sent_per_gpu(41e9, 1) == 0
    # 80 layers x 64 heads x (128 x 2 B + 4 B) = 1,331,200 B a decode step
    assert kt.cp_decode_partial_bytes(80, 64, 128) == 1_331_200


def test_mamba_state():
    # Jamba-v0.1: 28 Mamba layers x (2 x 4,096) channels x (16 + 4 - 1) x 2 B = 8,716,288 B
    assert kt.mamba_state_bytes(28, 4096, 2, 16, 4, 2) == 8_716_288
