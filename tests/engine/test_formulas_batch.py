"""The batch formulas (macros/engine/formulas/batch.py) against values derived by hand in each test."""

from __future__ import annotations

import numpy as np
import pytest

from macros.engine import formulas as f


def test_the_cosine_day_peaks_at_one_and_its_mean_is_one_over_the_peak_to_mean():
    # p = 1.6: at the peak 1/1.6 + (1 - 1/1.6) * cos 0 = 0.625 + 0.375 = 1;
    # twelve hours on, cos π = -1: 0.625 - 0.375 = 0.25 (= 2/1.6 - 1); six hours on, cos(π/2) = 0: 0.625
    assert f.diurnal_load_fraction(0, 1.6) == pytest.approx(1.0)
    assert f.diurnal_load_fraction(12, 1.6) == pytest.approx(0.25)
    assert f.diurnal_load_fraction(6, 1.6) == pytest.approx(0.625)
    # the mean over 24 evenly spaced hours is 1/p: the cosine terms cancel
    hours = np.arange(24)
    assert f.diurnal_load_fraction(hours, 1.6).mean() == pytest.approx(0.625)
    # a flat day (p = 1) is 1 at every hour
    assert f.diurnal_load_fraction(hours, 1.0) == pytest.approx(np.ones(24))


def test_a_fleet_lends_what_its_load_and_headroom_leave_in_whole_replicas():
    # 144 replicas, 119 busy at the peak, 20% headroom. At the peak it keeps ceil(119 * 1.2) = ceil(142.8)
    # = 143 and lends 1; at a quarter of the peak it keeps ceil(29.75 * 1.2) = ceil(35.7) = 36 and lends 108
    assert f.lendable_replicas(144, 119, 1.0, 0.2) == 1
    assert f.lendable_replicas(144, 119, 0.25, 0.2) == 108
    # a fleet under water lends nothing rather than a negative number
    assert f.lendable_replicas(100, 119, 1.0, 0.2) == 0
    # 10 busy * 1.2 is 12.000000000000002 in floats: it keeps 12, not 13
    assert f.lendable_replicas(20, 10, 1.0, 0.2) == 8


def test_packed_prefill_shares_the_weight_read_until_compute_binds():
    # one prompt: 6 ms of compute against a 17.5 ms weight read -> 17.5 ms (memory-bound)
    assert f.packed_prefill_s(0.006, 0.0175, 1) == pytest.approx(0.0175)
    # two prompts share the read: max(12, 17.5) / 2 = 8.75 ms each
    assert f.packed_prefill_s(0.006, 0.0175, 2) == pytest.approx(0.00875)
    # ten prompts: 60 ms of compute > 17.5 ms of read, so each costs its own 6 ms
    assert f.packed_prefill_s(0.006, 0.0175, 10) == pytest.approx(0.006)


def test_a_request_on_a_kv_bound_replica_costs_its_prompt_and_its_slot_time():
    # α = 10 µs per prompt token, β = 100 µs per output token in a 2,500-token slot.
    # 2,000 in, 500 out: 2,000 * 10 µs + 500 * 100 µs * 2,500 / 2,500 = 20 ms + 50 ms = 70 ms
    assert f.kv_bound_request_cost_s(2000, 500, 10e-6, 100e-6, 2500) == pytest.approx(0.070)
    # 30,000 in, 1,000 out: 0.3 s of prefill; the sequence holds 31,000 / 2,500 = 12.4 slots:
    # 1,000 * 100 µs * 12.4 = 1.24 s; 1.54 s in all
    assert f.kv_bound_request_cost_s(30_000, 1000, 10e-6, 100e-6, 2500) == pytest.approx(1.54)


def test_round_robin_by_requests_gives_the_costliest_tenant_the_most():
    # requests of 1 s and 3 s served one each in turn: the second tenant takes 3/4 of the time
    assert f.round_robin_shares([1.0, 3.0]) == pytest.approx([0.25, 0.75])
    assert sum(f.round_robin_shares([0.2, 0.5, 7.0])) == pytest.approx(1.0)


def test_a_preemption_loses_half_a_generation_and_every_prefill_in_flight():
    # 500 output tokens at 70 ms a step: half a generation is 250 * 70 ms = 17.5 s of replica time;
    # 600 sequences each prefilled in 10 ms: 6 s; 23.5 s lost
    assert f.preemption_lost_s(600, 0.010, 500, 0.070) == pytest.approx(23.5)
