"""One lever switched off (macros/engine/fleet/plan_levers.py): the prefix cache's fleet, and the load when a share of
the traffic runs cold, derived by hand on small plans."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from macros.engine.fleet import plan_levers as lv
from macros.engine.fleet.planner import plan, require
from macros.engine.fleet.workload_file import design as load_design


def _plan(replicas: int, load: float, gpus_per_replica: int = 4) -> SimpleNamespace:
    return SimpleNamespace(replicas=replicas, replica_seconds_per_s=load, gpus_per_replica=gpus_per_replica,
                           gpus=replicas * gpus_per_replica)


def test_a_cold_share_adds_its_part_of_the_extra_load():
    warm, cold = _plan(100, 80.0), _plan(150, 120.0)
    # 80 busy replicas warm, 120 cold: a quarter of the traffic cold adds 0.25 x 40 = 10
    assert lv.load_with_cold_share(warm, cold, 0.25) == pytest.approx(90.0)
    assert lv.load_with_cold_share(warm, cold, 1.0) == pytest.approx(120.0)
    # 100 - 80 = 20 spare replicas absorb 20 / 40 = half the traffic cold
    assert lv.largest_cold_share(warm, cold) == pytest.approx(0.5)
    # a headroom that covers the whole cold load: all of it
    assert lv.largest_cold_share(_plan(130, 80.0), cold) == 1.0
    assert lv.fleet_ratio(warm, cold) == pytest.approx(1.5)  # 600 GPUs against 400


def test_plans_on_different_replicas_are_refused():
    with pytest.raises(ValueError, match=r"the plans' replicas differ \(4 and 8 GPUs\)"):
        lv.largest_cold_share(_plan(100, 80.0), _plan(75, 60.0, gpus_per_replica=8))


def test_without_the_prefix_cache_prefills_every_prompt_token():
    w, _ = load_design("consumer-chat")
    cold = require(lv.without_prefix_cache(w), "consumer-chat without its cache")
    assert cold.prefix_hit_rate == 0 and cold.uncached_prompt_tokens == w.prompt_tokens
    # a workload with no cache to lose plans the same fleet
    none = dataclasses.replace(w, prefix_hit_rate=0.0)
    assert require(lv.without_prefix_cache(none), "").gpus == require(plan(none), "").gpus
