"""One lever switched off (macros/engine/fleet/plan_levers.py): the prefix cache's fleet, and the replicas when a share
of the traffic runs cold, derived by hand on small fleets."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from macros.engine.fleet import plan_levers as lv
from macros.engine.fleet.planner import plan, require
from macros.engine.fleet.workload_file import design as load_design


def _fleet(replicas: int, gpus_per_replica: int = 4) -> SimpleNamespace:
    return SimpleNamespace(replicas=replicas, gpus_per_replica=gpus_per_replica, gpus=replicas * gpus_per_replica)


def test_a_cold_share_adds_its_part_of_the_replicas_the_cold_fleet_adds():
    warm, cold = _fleet(100), _fleet(300)
    # 100 replicas warm, 300 cold: a quarter of the traffic cold needs 100 + 0.25 x 200 = 150
    assert lv.replicas_with_cold_share(warm, cold, 0.25) == pytest.approx(150.0)
    assert lv.replicas_with_cold_share(warm, cold, 1.0) == pytest.approx(300.0)
    # at the peak the warm fleet has no room for any; at half the peak, a share c fits while
    # 0.5 (100 + 200 c) <= 100, so c <= 0.5; at 0.3 of the peak a fully cold fleet fits (0.3 x 300 = 90 <= 100)
    assert lv.largest_cold_share(warm, cold) == pytest.approx(0.0)
    assert lv.largest_cold_share(warm, cold, load=0.5) == pytest.approx(0.5)
    assert lv.largest_cold_share(warm, cold, load=0.3) == 1.0
    assert lv.largest_cold_share(warm, _fleet(100)) == 1.0  # a cache worth nothing: all of it
    assert lv.fleet_ratio(warm, cold) == pytest.approx(3.0)  # 1,200 GPUs against 400


def test_fleets_on_different_replicas_are_refused():
    with pytest.raises(ValueError, match=r"the fleets' replicas differ \(4 and 8 GPUs\)"):
        lv.largest_cold_share(_fleet(100), _fleet(75, gpus_per_replica=8))


def test_an_answer_on_another_shape_is_compared_by_its_run_on_the_same_replicas():
    # A cold answer that found 8-GPU replicas cheapest (75 of them) also ran 4-GPU ones (160): against a warm fleet of
    # 100 four-GPU replicas the comparison takes the 160, never the 75. At 0.8 of the peak a cold share c fits while
    # 0.8 (100 + 60 c) <= 100: c <= 20 / 48.
    run_on_4 = _fleet(160)
    cold = SimpleNamespace(replicas=75, gpus_per_replica=8, shapes={4: run_on_4, 8: _fleet(75, 8)})
    assert lv.on_shape(cold, 4) is run_on_4 and lv.on_shape(cold, 8) is cold
    assert lv.largest_cold_share(_fleet(100), lv.on_shape(cold, 4), load=0.8) == pytest.approx(20 / 48)
    with pytest.raises(ValueError, match="not simulated on 2-GPU replicas"):
        lv.on_shape(cold, 2)


def test_without_the_prefix_cache_prefills_every_prompt_token():
    w, _ = load_design("consumer-chat")
    cold = require(lv.without_prefix_cache(w), "consumer-chat without its cache")
    assert cold.prefix_hit_rate == 0 and cold.uncached_prompt_tokens == w.prompt_tokens
    # a workload with no cache to lose plans the same fleet
    none = dataclasses.replace(w, prefix_hit_rate=0.0)
    assert require(lv.without_prefix_cache(none), "").gpus == require(plan(none), "").gpus
