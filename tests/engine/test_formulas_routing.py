"""The routing formulas (macros/engine/formulas/routing.py) against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine import formulas as f


def test_spread_hit_rate_is_the_shared_part_plus_one_chance_in_n_of_home():
    # 12.5% shared everywhere; 70% held by one cache of 8: 0.125 + 0.70 / 8 = 0.2125
    assert f.spread_hit_rate(0.125, 0.70, 8) == pytest.approx(0.2125)
    # one cache: everything hits that can
    assert f.spread_hit_rate(0.125, 0.70, 1) == pytest.approx(0.825)


def test_lru_residency_is_capacity_over_insert_rate():
    # 300 GB of cache filled at 3 GB/s: an untouched entry lasts 100 s
    assert f.lru_residency_s(300e9, 3e9) == pytest.approx(100)


def test_warm_probability_is_one_minus_exp_of_residency_over_gap():
    # T = g: 1 - 1/e = 0.632121; T = 3g: 1 - e^-3 = 0.950213
    assert f.warm_probability(60, 60) == pytest.approx(0.632121, abs=1e-6)
    assert f.warm_probability(180, 60) == pytest.approx(0.950213, abs=1e-6)
    assert f.warm_probability(np.array([60.0, 180.0]), 60) == pytest.approx([0.632121, 0.950213], abs=1e-6)


def test_home_load_cv_of_a_compound_poisson_count():
    # 100 in flight, one request per session: 1 / 10; in clumps of 4: sqrt(4 / 100) = 0.2
    assert f.home_load_cv(100, 1) == pytest.approx(0.1)
    assert f.home_load_cv(100, 4) == pytest.approx(0.2)


def test_clumped_gaps_vary_as_sqrt_2k_minus_1():
    # k = 4: three gaps of 0 in four, one exponential of mean 4 / r: E[g] = 1 / r, E[g^2] = 1/4 x 2 x 16 / r^2
    # = 8 / r^2, variance 7 / r^2, so cv = sqrt(7); k = 1 is Poisson's 1
    assert f.clumped_gap_cv(4) == pytest.approx(math.sqrt(7))
    assert f.clumped_gap_cv(1) == 1.0


def test_overflow_fraction_is_the_normal_loss_function():
    # c = 1: v * phi(0) = 0.2 / sqrt(2 pi) = 0.0797885
    assert f.overflow_fraction(1.0, 0.2) == pytest.approx(0.2 / math.sqrt(2 * math.pi))
    # c = 1 + v, so z = 1: v * (phi(1) - (1 - Phi(1))) = 0.2 * (0.2419707 - 0.1586553) = 0.0166631
    assert f.overflow_fraction(1.2, 0.2) == pytest.approx(0.0166631, abs=1e-6)
    # a loose bound sends almost nothing on: z = 5 gives about 5e-8 of the load
    assert f.overflow_fraction(2.0, 0.2) < 1e-6
    got = f.overflow_fraction(np.array([1.0, 1.2]), 0.2)
    assert got == pytest.approx([0.0797885, 0.0166631], abs=1e-6)


def test_overflow_falls_as_the_bound_loosens():
    bounds = np.linspace(1.0, 2.0, 21)
    assert np.all(np.diff(f.overflow_fraction(bounds, 0.25)) < 0)
