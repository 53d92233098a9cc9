"""A change between two plans, against differences taken by hand."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.fleet.plan_change import Change
from macros.engine.fleet.planner import plan, require
from macros.engine.fleet.workload_file import Workload


def test_a_change_adds_gpus_and_cost_or_saves_them():
    w = Workload(name="anchor", model="llama-3.1-70b", gpu="h100", gpus_per_replica=4, peak_requests_per_s=100.0,
                 prompt_tokens=2000, output_tokens=400, ttft_s=2.0, tpot_s=0.05, price_per_gpu_hour=2.0)
    base = require(plan(w), "anchor")
    # The same plan held at 40 and at 64 GPUs, $2 an hour: 24 more GPUs cost 24 x 2 x 24 = $1,152 more a day,
    # a fleet 64 / 40 = 1.6 times the size; the way back saves the same.
    small = dataclasses.replace(base, gpus=40, cost_per_day=40 * 2.0 * 24)
    large = dataclasses.replace(base, gpus=64, cost_per_day=64 * 2.0 * 24)
    up, down = Change(small, large), Change(large, small)
    assert (up.extra_gpus, up.extra_cost_per_day, up.gpu_ratio) == (24, pytest.approx(1152), pytest.approx(1.6))
    assert (down.extra_gpus, down.extra_cost_per_day) == (-24, pytest.approx(-1152))
    # Without a price there is no cost to compare.
    assert Change(dataclasses.replace(small, cost_per_day=None), large).extra_cost_per_day is None
