"""The formulas chapters 4 and 5 added (batching and the toolkit), against hand-derived values.

Each expected value is worked out in the comment above it, never taken from the function
under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from macros.engine import formulas as f
from macros.engine.specs import catalog


def test_static_batch_utilisation_study_guide_example():
    # Output lengths 10, 200, 15, 180: mean = 405 / 4 = 101.25; max = 200;
    # 101.25 / 200 = 0.50625 (50.6%)
    assert f.static_batch_utilisation([10, 200, 15, 180]) == pytest.approx(0.50625)


def test_static_batch_utilisation_arrays_and_edges():
    # Row 1 as above (0.50625); row 2 all equal (1.0): no slot ever idles
    rows = np.array([[10, 200, 15, 180], [50, 50, 50, 50]])
    assert f.static_batch_utilisation(rows) == pytest.approx([0.50625, 1.0])
    # One long tail among short ones: (1 + 1 + 1 + 97) / 4 = 25; 25 / 97 = 0.2577...
    assert f.static_batch_utilisation((1, 1, 1, 97)) == pytest.approx(25 / 97)


def test_reserved_waste_fraction():
    # Reserve 4,096 tokens, write 50: 1 - 50 / 4,096 = 4,046 / 4,096 = 0.98779... (98.8%)
    assert f.reserved_waste_fraction(4096, 50) == pytest.approx(0.987793, abs=1e-6)
    assert f.reserved_waste_fraction(4096, 4096) == 0


def test_blocks_needed_rounds_up():
    # 50 tokens in 16-token blocks: 16 + 16 + 16 = 48 < 50, so 4 blocks (64 slots, 14 empty)
    assert f.blocks_needed(50, 16) == 4
    # Exact multiples need no extra block: 48 / 16 = 3; a 2,000-token prompt in 512-token
    # chunks: 3 x 512 = 1,536 < 2,000 <= 2,048, so 4 chunks
    assert f.blocks_needed(48, 16) == 3
    assert f.blocks_needed(2000, 512) == 4
    assert list(f.blocks_needed(np.array([1, 16, 17]), 16)) == [1, 1, 2]


def test_multi_turn_prefill_tokens():
    # 20 turns of 500 new tokens. Cached: 20 x 500 = 10,000.
    # Uncached: turn n prefills n x 500, so 500 x (1 + 2 + ... + 20) = 500 x 210 = 105,000
    assert f.multi_turn_prefill_tokens(20, 500, prefix_cached=True) == 10_000
    assert f.multi_turn_prefill_tokens(20, 500, prefix_cached=False) == 105_000
    # One turn: nothing to re-prefill, both are 500
    assert f.multi_turn_prefill_tokens(1, 500, False) == f.multi_turn_prefill_tokens(1, 500, True) == 500


def test_speculative_batch_ceiling():
    # H100 balance 989.4e12 / 3.35e12 = 295.34 FLOP/B; 4 draft tokens verify 5 tokens per
    # sequence, so intensity ~ 5b, which reaches 295.34 at b = 59.07
    assert f.speculative_batch_ceiling(989.4e12 / 3.35e12, 4) == pytest.approx(59.07, abs=0.01)
    # No draft tokens: plain decode, ceiling = the balance itself
    assert f.speculative_batch_ceiling(295.0, 0) == 295.0


def test_speculative_break_even_batch():
    # W = 100 B, KV 1 B a sequence, F = 10 FLOP a token, k = 1, balance 4: b x 2 x 10 / 4 = 100 + b
    # -> 5b = 100 + b -> b = 25
    assert f.speculative_break_even_batch(100, 1, 10, 1, 4) == 25
    # A KV read that outweighs the verification FLOPs (2 x 10 / 4 = 5 <= 5 B): never compute-bound
    assert f.speculative_break_even_batch(100, 5, 10, 1, 4) == float("inf")


def test_new_claims_load():
    # The two claims chapter 3 and 5 show: a reading-speed range and a per-GPU NIC line rate
    # (400 Gb/s / 8 = 50 GB/s = 50e9 B/s)
    claims = catalog().claims
    assert (claims["reading-speed"].low, claims["reading-speed"].high) == (4, 7)
    assert claims["nic-bandwidth"].low == 400e9 / 8
