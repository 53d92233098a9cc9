"""The completion formulas (macros/engine/formulas/completion.py) against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine import formulas as f


def test_end_to_end_and_its_budget_are_inverses():
    # 50 ms + 80 ms + (16 - 1) x 8 ms = 250 ms; and 250 ms leaves (250 - 50 - 80) / 15 = 8 ms per token
    assert f.end_to_end_s(0.05, 0.08, 16, 0.008) == pytest.approx(0.25)
    assert f.tpot_budget_s(0.25, 0.05, 0.08, 16) == pytest.approx(0.008)
    # the p95 completion of 48 tokens: 120 ms / 47 = 2.5532 ms
    assert f.tpot_budget_s(0.25, 0.05, 0.08, 48) == pytest.approx(0.12 / 47)


def test_debounce_sends_the_keystrokes_whose_next_gap_outlasts_it():
    # exp(-75 / 250) = exp(-0.3) = 0.740818; no debounce sends every keystroke
    assert f.debounce_sent_share(0.075, 0.25) == pytest.approx(0.7408182206817179)
    assert f.debounce_sent_share(0.0, 0.25) == 1.0
    assert np.allclose(f.debounce_sent_share(np.array([0.0, 0.25]), 0.25), [1.0, math.exp(-1)])


def test_cancelled_share_is_the_chance_of_a_keystroke_within_the_latency():
    # 1 - exp(-250 / 250) = 1 - 1/e = 0.632121
    assert f.cancelled_share(0.25, 0.25) == pytest.approx(0.6321205588285577)
    assert f.cancelled_share(0.0, 0.25) == 0.0


def test_decoded_tokens_per_request():
    # 16 x (1 - 0.6321 x (1 - 0.5)) = 16 x 0.68394 = 10.943; a lost cancel (f = 1) decodes all 16
    assert f.decoded_tokens_per_request(16, 0.6321205588285577, 0.5) == pytest.approx(10.943035529)
    assert f.decoded_tokens_per_request(16, 0.63, 1.0) == 16
    assert f.decoded_tokens_per_request(16, 1.0, 0.0) == 0


def test_speculative_tokens_per_step():
    # a = 0.6, k = 4: 1 + 0.6 + 0.36 + 0.216 + 0.1296 = 2.3056 (the geometric series, k + 1 terms)
    assert f.speculative_tokens_per_step(0.6, 4) == pytest.approx(2.3056)
    # a = 0.3: 1 + 0.3 + 0.09 + 0.027 + 0.0081 = 1.4251
    assert f.speculative_tokens_per_step(0.3, 4) == pytest.approx(1.4251)
    assert f.speculative_tokens_per_step(0.0, 4) == 1
    assert f.speculative_tokens_per_step(1.0, 4) == 5
    assert np.allclose(f.speculative_tokens_per_step(np.array([0.0, 0.6, 1.0]), 4), [1.0, 2.3056, 5.0])
