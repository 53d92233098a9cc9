"""The practice kinds of chapter 6 and the MoE reads (macros/engine/problems/coldstart.py, sizing.py's preemption,
roofline.py's MoE reads): answers derived here by hand, and every generated problem held to the rule its kind
states (the cold start is the autoscaled day's own, the load path the narrower of the source and the PCIe links,
the pool the forecast's error at the minute a replica ordered now serves)."""

from __future__ import annotations

import math

from macros.engine import formulas as f
from macros.engine.autoscale.inputs import ALLOCATION_CLAIM, ColdStart, cold_start, day_inputs
from macros.engine.problems import problems
from macros.engine.problems.coldstart import solve_cold_start
from macros.engine.problems.roofline import solve_moe_reads
from macros.engine.problems.sizing import solve_preemption
from macros.engine.specs import catalog
from macros.engine.workloads import workloads

COLD = dict(params=70e9, bytes_per_weight=2, gpus=4, allocation=30.0, image=10e9, registry=1.25e9, storage=5e9,
            pcie=64e9, startup=30.0, forecast=40, ramp=2, error=0.15)


def test_the_load_path_is_the_narrower_of_the_source_and_the_pcie_links():
    assert f.weight_load_bytes_per_s(5e9, 64e9, 4) == 5e9  # a drive binds before 4 x 64 GB/s of PCIe
    assert f.weight_load_bytes_per_s(307.2e9, 64e9, 2) == 128e9  # host memory: 2 links of 64 GB/s bind
    assert f.weight_load_bytes_per_s(307.2e9, 64e9, 8) == 307.2e9  # 8 links carry 512 GB/s: the memory binds


def test_hand_derived_cold_start_and_warm_pool():
    # 70e9 x 2 B = 140 GB from NVMe at 5 GB/s (4 x 64 GB/s of PCIe is wider) = 28 s; the image 10 GB / 1.25 GB/s
    # = 8 s; 30 s + 8 s + 28 s + 30 s = 96 s: serving after ceil(1.6) = 2 minutes. The forecast then: 40 + 2 x 2 =
    # 44 replicas; ceil(44 x 0.15) = ceil(6.6) = 7 warm replicas.
    s = solve_cold_start(COLD)
    assert s["verdict"] == "source" and s["path"] == 5e9 and math.isclose(s["weight_load"], 28)
    assert math.isclose(s["image_pull"], 8) and math.isclose(s["cold_start"], 96) and s["minutes"] == 2
    assert s["demand"] == 44 and s["answer"] == 7
    # From host memory (307.2 GB/s) the 4 PCIe links bind at 256 GB/s: 0.547 s; 30 + 8 + 0.547 + 30 = 68.5 s, still
    # 2 minutes, still 7. With 60 s of engine start it is 98.5 s, 2 minutes; at 90 s, 128.5 s: 3 minutes, 40 + 6 =
    # 46, ceil(6.9) = 7; at a ramp of 4 a minute, 40 + 12 = 52 and ceil(7.8) = 8.
    host = solve_cold_start(dict(COLD, storage=307.2e9))
    assert host["verdict"] == "PCIe" and host["path"] == 256e9 and math.isclose(host["cold_start"], 68 + 140 / 256)
    assert solve_cold_start(dict(COLD, storage=307.2e9, startup=90.0, ramp=4))["answer"] == 8
    # a flat forecast: the pool is the chapter's ceil(forecast x error), whatever the cold start
    assert solve_cold_start(dict(COLD, ramp=0))["answer"] == f.warm_pool_replicas(40, 0.15) == 6


def test_the_cold_start_is_the_autoscaled_day_s():
    """On the day's own inputs (one link to storage for the image and the weights, nothing faster on PCIe), the
    problem's cold start is autoscale.inputs.cold_start's, to the second and the minute."""
    w, day = workloads(), day_inputs()
    link = w["network_storage_bytes_per_s"]
    g = dict(COLD, allocation=float(catalog().claims[ALLOCATION_CLAIM].low), image=day.image_bytes, registry=link,
             storage=link, pcie=w["pcie_bytes_per_s"], startup=day.engine_start_s)
    s, theirs = solve_cold_start(g), cold_start(140e9, day)
    assert isinstance(theirs, ColdStart) and math.isclose(s["cold_start"], theirs.total_s)
    assert s["minutes"] == theirs.minutes


def test_every_cold_start_problem_keeps_its_own_rule():
    cold = [p for p in problems() if p.kind == "cold-start"]
    assert len(cold) >= 5 and {p.variant for p in cold} == {"source", "PCIe"}
    for p in cold:
        i, s = p.inputs, p.solution
        path = min(i["storage"], i["gpus"] * i["pcie"])  # written out here, apart from the formula
        total = (i["allocation"] + i["image"] / i["registry"] + i["params"] * i["bytes_per_weight"] / path
                 + i["startup"])
        minutes = math.ceil(round(total / 60, 9))
        assert math.isclose(s["cold_start"], total, rel_tol=1e-12) and s["minutes"] == minutes, p.id
        assert p.answer == math.ceil(round((i["forecast"] + i["ramp"] * minutes) * i["error"], 9)) >= 1, p.id
        assert p.variant == ("source" if path == i["storage"] else "PCIe"), p.id


def test_hand_derived_preemption():
    # 70e9 active, 140 GB, 80 layers, 64 query and 8 KV heads of 128, BF16 KV, 4,096 tokens on 4 GPUs of 1e15 and
    # 3.35e12. KV: 2 x 80 x 8 x 128 x 2 B x 4,096 = 1.342 GB; swap 2 x 1.342 GB / 64 GB/s = 41.9 ms. Prefill: 2 x 70e9
    # x 4,096 = 5.734e14, attention 2 x 80 x 64 x 128 x 4,096 x 4,097 = 1,310,720 x 16,781,312 = 2.2e13, 5.954e14
    # over 4e15 = 148.9 ms (the weight read, 140 GB / 13.4 TB/s = 10.4 ms, is shorter): recompute is 3.55x slower.
    g = dict(active_params=70e9, weights=140e9, layers=80, query_heads=64, kv_heads=8, head_dim=128, bytes_per_kv=2,
             seq_len=4096, gpus=4, peak_flops=1e15, bandwidth=3.35e12, pcie=64e9)
    s = solve_preemption(g)
    kv = 2 * 80 * 8 * 128 * 2 * 4096
    flops = 2 * 70e9 * 4096 + 1_310_720 * 16_781_312
    assert math.isclose(s["swap"], 2 * kv / 64e9) and math.isclose(s["recompute"], flops / 4e15)
    assert s["verdict"] == "swap" and math.isclose(s["answer"], flops / 4e15 / (2 * kv / 64e9))
    assert round(s["answer"], 2) == 3.55
    # On 8 GPUs of 4.5e15 the prefill takes 5.954e14 / 3.6e16 = 16.5 ms: recomputing is 2.5x faster than 41.9 ms.
    fast = solve_preemption(dict(g, gpus=8, peak_flops=4.5e15))
    assert fast["verdict"] == "recompute" and math.isclose(fast["answer"], flops / 3.6e16 / (2 * kv / 64e9))


def test_hand_derived_moe_reads():
    # 47e9 parameters, 13e9 active, 2 of 8 experts: e = 34e9 / 6 = 5.667e9, a = 13e9 - 2 e = 1.667e9. At batch 1,
    # u = 8 x (1 - 0.75) = 2: the active 13e9; at batch 4, u = 8 x (1 - 0.75^4) = 5.469: 1.667e9 + 5.469 x 5.667e9
    # = 32.656e9 parameters, 65.31 GB at 2 B.
    g = dict(params=47e9, active_params=13e9, experts=8, experts_per_token=2, bytes_per_weight=2)
    assert math.isclose(solve_moe_reads(dict(g, batch=1))["answer"], 26e9)
    s = solve_moe_reads(dict(g, batch=4))
    by_hand = (13e9 - 2 * 34e9 / 6) + 8 * (1 - 0.75 ** 4) * 34e9 / 6
    assert math.isclose(s["touched"], 5.46875) and math.isclose(s["answer"], 2 * by_hand)
    assert round(s["answer"] / 1e9, 2) == 65.31
    for p in problems():  # a step reads more than one token's weights and at most all of them
        if p.kind == "moe-reads":
            assert p.solution["active_bytes"] <= p.answer <= p.solution["all_bytes"] * (1 + 1e-12), p.id
