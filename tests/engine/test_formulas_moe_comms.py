"""Chapter 10's napkin (macros/engine/formulas/moe_comms.py) against values derived by hand: DeepSeek-V3's
exchange (hidden 7,168, top-8) at 128 tokens a GPU, in an 8-GPU NVLink node (450 GB/s a direction), across 400 Gb/s
NICs (50 GB/s), with a 5 us latency; the overlap, the hottest GPU, and the two pools' sizing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine import formulas as f
from macros.engine.formulas import moe_comms as mc

# 128 tokens x 8 experts x 7,168 elements x 1 byte (FP8 dispatch) = 7,340,032 B; the BF16 combine twice that.
DISPATCH = 7_340_032
NODE = dict(gpus=8, domain_gpus=8, domain_bytes_per_s=450e9, network_bytes_per_s=50e9, latency_s=5e-6)


def test_the_payload_is_tokens_times_experts_times_hidden_times_bytes():
    assert mc.ep_payload_bytes(128, 8, 7168, 1) == DISPATCH
    assert mc.ep_payload_bytes(128, 8, 7168, 2) == 2 * DISPATCH


def test_an_exchange_inside_one_node_crosses_nvlink():
    # 7 of the 8 GPUs are remote: 7,340,032 x 7/8 = 6,422,528 B over 450e9 B/s = 14.272 us, plus 5 us
    assert mc.ep_exchange_s(128, 8, 7168, 1, **NODE) == pytest.approx(5e-6 + 6_422_528 / 450e9)
    assert mc.ep_exchange_s(128, 8, 7168, 1, **NODE) == pytest.approx(19.272e-6, rel=1e-4)


def test_an_exchange_across_nodes_is_set_by_the_nic():
    # 72 GPUs in nodes of 8: 7/72 of the payload over NVLink (1.586 us), 64/72 over the NIC: 6,524,473 B / 50e9 =
    # 130.49 us, the slower of the two, plus 5 us
    cross = dict(NODE, gpus=72)
    assert mc.ep_exchange_s(128, 8, 7168, 1, **cross) == pytest.approx(5e-6 + DISPATCH * 64 / 72 / 50e9)
    assert mc.ep_exchange_s(128, 8, 7168, 1, **cross) == pytest.approx(135.49e-6, rel=1e-4)
    # the same 72 GPUs in one NVL72 domain at 900e9 B/s: 7,340,032 x 71/72 / 900e9 = 8.042 us, plus 5 us
    rack = dict(cross, domain_gpus=72, domain_bytes_per_s=900e9)
    assert mc.ep_exchange_s(128, 8, 7168, 1, **rack) == pytest.approx(5e-6 + DISPATCH * 71 / 72 / 900e9)


def test_one_gpu_exchanges_nothing_and_arrays_broadcast():
    assert mc.ep_exchange_s(128, 8, 7168, 1, **dict(NODE, gpus=1)) == 0
    got = mc.ep_exchange_s(128, 8, 7168, 1, **dict(NODE, gpus=np.array([1, 8, 72])))
    # one GPU: 0; eight: 19.272 us; 72: 135.49 us
    assert got == pytest.approx([0, 5e-6 + 6_422_528 / 450e9, 5e-6 + DISPATCH * 64 / 72 / 50e9])


def test_a_layer_is_a_dispatch_and_a_combine():
    # FP8 dispatch 19.272 us + BF16 combine 5 + 12,845,056 / 450e9 = 33.544 us: 52.816 us
    layer = mc.ep_layer_alltoall_s(128, 8, 7168, 1, 2, 8, 8, 450e9, 50e9, 5e-6)
    assert layer == pytest.approx(10e-6 + 3 * 6_422_528 / 450e9)


def test_the_overlap_takes_the_longer_side():
    # in a node: C 446 us, W 321 us, A 52.8 us: max(767, 62.8) = 767 us, worse than C + A = 498.8 us
    assert mc.two_batch_overlap_s(446e-6, 321e-6, 52.8e-6, 5e-6) == pytest.approx(767e-6)
    # across nodes: C 196 us, W 70 us, A 401 us: max(266, 411) = 411 us, better than C + A = 597 us
    assert mc.two_batch_overlap_s(196e-6, 70e-6, 401e-6, 5e-6) == pytest.approx(411e-6)


def test_the_hottest_gpu_sets_the_step():
    # 256 experts on 72 GPUs: e = 3.5556; one at 4x the mean: (3.5556 - 1 + 4) / 3.5556 = 1.84375
    assert mc.hottest_gpu_load(256 / 72, 4) == pytest.approx(1.84375)
    # four copies take 1x each: the hot GPU is an ordinary one again
    assert mc.hottest_gpu_load(256 / 72, 4, 4) == pytest.approx(1)
    # 128 experts on 32 GPUs, the hot expert in two copies: (4 - 1 + 2) / 4 = 1.25
    assert mc.hottest_gpu_load(4, 4, 2) == pytest.approx(1.25)
    # more copies than needed leave the busiest GPU at the mean, not below it
    assert mc.hottest_gpu_load(4, 4, 8) == 1


def test_the_md1_utilisation_meets_the_target_exactly():
    # S = 0.1 s, T = 0.5 s: x = 4, rho = 8 / 9; then S + the M/D/1 wait at rho is T
    rho = mc.md1_max_utilisation(0.1, 0.5)
    assert rho == pytest.approx(8 / 9)
    assert 0.1 + f.md1_wait_s(rho / 0.1, 0.1) == pytest.approx(0.5)
    assert mc.md1_max_utilisation(0.5, 0.5) == 0 and mc.md1_max_utilisation(0.6, 0.5) == 0


def test_the_pools():
    # prefill: 10 requests/s x 0.1 s x 8 GPUs / 0.8 = 10 GPUs
    assert mc.prefill_pool_gpus(10, 0.1, 8, 0.8) == pytest.approx(10)
    # the anchor's TPOT batch: (0.05 x 0.4 x 4 x 3.35e12 - 140e9) / 1,342,177,280 = 95.37 -> 95
    assert mc.tpot_bound_batch(0.05, 0.4, 4, 3.35e12, 140e9, 1_342_177_280) == 95
    assert mc.tpot_bound_batch(0.01, 0.4, 4, 3.35e12, 140e9, 1_342_177_280) == 0  # the weights alone miss it
    # decode: 10 requests/s x 400 later tokens x 0.05 s = 200 in flight, 100 to a replica of 4: 8 GPUs
    assert mc.decode_pool_gpus(10, 401, 0.05, 100, 4) == pytest.approx(8)
    assert mc.units_for_rate(608e9 / 86400, 73.7e3) == pytest.approx(95.482, rel=1e-4)


def test_a_handoff_sent_layer_by_layer():
    # the link keeps up (X 10 ms, prefill 100 ms, 10 layers): only the last layer's 1 ms follows the prefill
    assert mc.layerwise_exposed_s(0.010, 0.100, 10) == pytest.approx(0.001)
    # it does not (X 100 ms, prefill 50 ms): 100 - 50 x 9 / 10 = 55 ms after the prefill
    assert mc.layerwise_exposed_s(0.100, 0.050, 10) == pytest.approx(0.055)


@pytest.mark.parametrize("call", [
    lambda: mc.ep_exchange_s(128, 8, 7168, 1, **dict(NODE, gpus=0)),
    lambda: mc.ep_exchange_s(128, 8, 7168, 1, **dict(NODE, network_bytes_per_s=0)),
    lambda: mc.ep_exchange_s(128, 8, 7168, 1, **dict(NODE, domain_bytes_per_s=math.nan)),
    lambda: mc.ep_exchange_s(128, 8, 7168, 1, **dict(NODE, gpus=np.array([8, 0]))),
    lambda: mc.hottest_gpu_load(4, 4, copies=0),
    lambda: mc.md1_max_utilisation(0, 0.5),
    lambda: mc.prefill_pool_gpus(10, 0.1, 8, 0),
    lambda: mc.tpot_bound_batch(0.05, 0.4, True, 3.35e12, 140e9, 1e9),
    lambda: mc.decode_pool_gpus(10, 401, 0.05, 0, 4),
    lambda: mc.layerwise_exposed_s(0.01, 0.1, -1),
    lambda: mc.units_for_rate(1.0, math.inf),
])
def test_a_bad_input_raises(call):
    with pytest.raises(ValueError, match="must be a finite number above zero"):
        call()
