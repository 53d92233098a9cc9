"""The formulas the overview and chapters 0-2 added (the roofline term by term, attention FLOPs),
against hand-derived values.

Each expected value is worked out in the comment above it, never taken from the function under
test. Anchors: reference/seed-errata.md claims 6-15 and 40.
"""

from __future__ import annotations

import numpy as np
import pytest

from macros.engine import formulas as f

H100_BW = 3.35e12  # B/s, datasheet
H100_BF16 = 989.4e12  # FLOP/s, dense
H200_BW = 4.8e12  # B/s, datasheet


def test_memory_time_seed_single_gpu_and_tp4():
    # 70e9 x 2 B = 140e9 B; 140e9 / 3.35e12 = 0.041791 s (the seed's "42 ms", errata #6)
    assert f.memory_time_s(140e9, 1, H100_BW) == pytest.approx(0.0417910, rel=1e-5)
    # TP4: each GPU reads a quarter: 140e9 / (4 x 3.35e12) = 0.0104478 s (errata #6, "10.4 ms")
    assert f.memory_time_s(140e9, 4, H100_BW) == pytest.approx(0.0104478, rel=1e-5)
    # Same bytes on an H200: 140e9 / 4.8e12 = 0.0291667 s (errata #6, "29.2 ms")
    assert f.memory_time_s(140e9, 1, H200_BW) == pytest.approx(0.0291667, rel=1e-5)


def test_compute_time_batch1_and_prefill():
    # 2 x 70e9 = 140e9 FLOP; 140e9 / 989.4e12 = 1.41500e-4 s (errata #7/#8: 0.1415 ms, not 0.07)
    assert f.compute_time_s(140e9, 1, H100_BF16) == pytest.approx(1.41500e-4, rel=1e-4)
    # 2 x 70e9 x 2000 = 2.8e14 FLOP; 2.8e14 / 989.4e12 = 0.283000 s (errata #13: 283 ms)
    assert f.compute_time_s(2.8e14, 1, H100_BF16) == pytest.approx(0.283000, rel=1e-4)


def test_memory_over_compute_equals_machine_balance_at_batch_1():
    # (140e9 / 3.35e12) / (140e9 / 989.4e12) = 989.4 / 3.35 = 295.343 (errata #9: 295x)
    ratio = f.memory_time_s(140e9, 1, H100_BW) / f.compute_time_s(140e9, 1, H100_BF16)
    assert ratio == pytest.approx(295.343, rel=1e-5)
    assert ratio == pytest.approx(f.machine_balance(H100_BF16, H100_BW))


def test_compute_idle_fraction():
    # Batch 1: I = 1 against 295.343: 1 - 1 / 295.343 = 0.996614 (errata #11: "~99%")
    assert f.compute_idle_fraction(1, 295.343) == pytest.approx(0.996614, rel=1e-6)
    # Batch 64: 1 - 64 / 295.343 = 1 - 0.216697 = 0.783303 (64 is 4.61x below the balance)
    assert f.compute_idle_fraction(64, 295.343) == pytest.approx(0.783303, rel=1e-5)
    # Prefill of 2,000 tokens: I = 2000 > balance, so nothing is idle by this measure
    assert f.compute_idle_fraction(2000, 295.343) == 0
    # Arrays broadcast: [1, 295.343, 600] -> [0.996614, 0, 0]
    got = f.compute_idle_fraction(np.array([1.0, 295.343, 600.0]), 295.343)
    assert got == pytest.approx([0.996614, 0.0, 0.0], abs=1e-6)


def test_attention_flops_per_token_llama70b():
    # 4 x 80 layers x 64 query heads x 128 head dim = 2,621,440 FLOP per token of context;
    # x 4,096 = 10,737,418,240 (errata #40: "+10.7 GFLOP at 4k context, +7.7%" of 140 GFLOP)
    assert f.attention_flops_per_token(80, 64, 128, 4096) == 10_737_418_240
    assert 10_737_418_240 / 140e9 == pytest.approx(0.0767, abs=5e-4)
    # x 131,072 = 343,597,383,680 (errata #40: "+344 GFLOP at 128k, about 2.5x the 2N term")
    assert f.attention_flops_per_token(80, 64, 128, 131_072) == 343_597_383_680
    assert 343_597_383_680 / 140e9 == pytest.approx(2.454, abs=1e-3)


def test_attention_flops_causal():
    # n = 2,000: 2 x 80 x 64 x 128 x 2000 x 2001 = 1,310,720 x 4,002,000 = 5.24550e12 FLOP,
    # 1.87% of the 2.8e14 linear FLOPs (errata #12: "2.8e14 (+1.9% attention)")
    got = f.attention_flops_causal(80, 64, 128, 2000)
    assert got == 1_310_720 * 4_002_000
    assert got / 2.8e14 == pytest.approx(0.01873, abs=1e-4)
    # It is the per-token cost summed over positions 1..n: n = 3 -> 2,621,440 x (1 + 2 + 3)
    assert f.attention_flops_causal(80, 64, 128, 3) == 2_621_440 * 6
    # Arrays: n = [1, 2] -> 2,621,440 x [1, 3]
    assert list(f.attention_flops_causal(80, 64, 128, np.array([1, 2]))) == [2_621_440, 2_621_440 * 3]
