"""The capacity formulas (macros/engine/formulas/capacity.py) against values derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine import formulas as f


def test_diurnal_rate_is_the_peak_at_zero_the_trough_at_twelve_and_the_mean_between():
    # mean (600 + 150) / 2 = 375, amplitude 225: 600 at t = 0, 150 at t = 12 h, 375 at t = 6 h (cos = 0).
    assert f.diurnal_rate(0, 600, 150) == pytest.approx(600)
    assert f.diurnal_rate(12, 600, 150) == pytest.approx(150)
    assert f.diurnal_rate(6, 600, 150) == pytest.approx(375)
    # cos(2π · 3 / 24) = cos(π / 4) = √2 / 2: 375 + 225 · 0.70711 = 534.10
    assert f.diurnal_rate(3, 600, 150) == pytest.approx(375 + 225 * math.sqrt(2) / 2)
    assert f.diurnal_rate(np.array([0, 12]), 600, 150) == pytest.approx([600, 150])


def test_hourly_peak_rates_provision_each_hour_for_its_higher_end():
    rates = f.hourly_peak_rates(600, 150)
    assert len(rates) == 24
    # Hour 0-1 starts at the peak; hour 23-24 ends at it; hour 11-12 ends at the trough, so its higher end is
    # t = 11: 375 + 225 cos(2π · 11 / 24) = 375 − 225 · 0.96593 = 157.67; hour 12-13 likewise at t = 13.
    assert rates[0] == pytest.approx(600) and rates[23] == pytest.approx(600)
    assert rates[11] == pytest.approx(375 - 225 * math.cos(math.pi / 12)) == rates[12]
    assert min(rates) > 150  # the trough itself falls on an hour's edge and is never the hour's highest rate


def test_warm_pool_is_the_error_share_of_the_forecast_rounded_up():
    # 150 × 0.12 = 18 exactly (18.000000000000004 in floating point): 18, not 19. 40 × 0.12 = 4.8: 5.
    assert f.warm_pool_replicas(150, 0.12) == 18
    assert f.warm_pool_replicas(40, 0.12) == 5
    assert f.warm_pool_replicas(0, 0.12) == 0


def test_fanout_rounds_double_the_holders_each_round():
    # 1 holder, 167 new: holders 1, 2, 4, ... 256 ≥ 168 after 8 rounds (128 < 168).
    assert f.fanout_rounds(167, 1) == 8
    # 40 holders, 110 new: 80 after one round, 160 ≥ 150 after two.
    assert f.fanout_rounds(110, 40) == 2
    # 38 holders, 38 new: exactly one doubling; 39 new needs a second round.
    assert f.fanout_rounds(38, 38) == 1 and f.fanout_rounds(39, 38) == 2
    assert f.fanout_rounds(0, 5) == 0
    with pytest.raises(ValueError):
        f.fanout_rounds(3, 0)


def test_whole_counts_ignore_float_noise_and_a_day_of_gpus_is_priced_by_the_hour():
    # 10 x 1.2 is 12.000000000000002 in floats: 12 whole replicas, not 13; 12.1 needs 13.
    assert f.whole_count(10 * 1.2) == 12 and f.whole_count(12.1) == 13
    # 16 GPUs at $2.50 an hour for 24 hours: 16 x 2.5 x 24 = $960; a day is 24 x 3,600 = 86,400 s.
    assert f.cost_per_day(16, 2.5) == 960 and f.SECONDS_PER_DAY == 86_400


def test_the_cost_of_a_token_over_the_day_is_the_day_s_cost_over_its_tokens():
    # 600 GPUs at $2.50 for 24 h = $36,000 a day; 100 million requests x 400 output tokens = 4e10 tokens a day:
    # $36,000 / 4e10 x 1e6 = $0.90 per million. At a peak twice the mean the peak hour's rate is twice the mean,
    # so the peak's cost per token is half this: $0.45.
    day = f.cost_per_day(600, 2.5)
    assert day == 36_000
    assert f.cost_per_million_tokens_over_day(day, 100e6 * 400) == pytest.approx(0.90)
