"""The numbers sheet's page model (macros/site/pages/numbers.py) against figures derived by hand: the
anchor Llama-70B (70e9 parameters, BF16: 140e9 B; 80 layers, 8 KV heads of 128: 327,680 B of KV per
token; max context 131,072) on H100s (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense BF16), the H200
(141e9 B, 4.8e12 B/s), a 4e9 B reserve per GPU, sequences of 4,096 tokens (1,342,177,280 B of KV)."""

from __future__ import annotations

import pytest

from macros.site.pages import numbers


@pytest.fixture(scope="module")
def q():
    return numbers.model()


def test_reference_group(q):
    # 64 sequences need 64 x 1,342,177,280 = 85.9e9 B of KV: 2 GPUs leave 160e9 - 140e9 - 8e9 = 12e9,
    # 4 leave 164e9 (122 sequences), so the group is 4
    assert (q.s.gpus, q.s.max_batch) == (4, 122)
    # twice the context: 164e9 / 2,684,354,560 = 61.09 -> 61
    assert q.s_long.max_batch == 61


def test_whiteboard_on_one_gpu(q):
    # weights 140e9 / 3.35e12 = 41.79 ms; one token 1.4e11 FLOP / 989.4e12 = 0.1415 ms; ratio 295.34
    assert q.one_gpu.read_s == pytest.approx(140e9 / 3.35e12)
    assert q.one_gpu.token_compute_s == pytest.approx(1.4e11 / 989.4e12)
    assert q.one_gpu.memory_over_compute == pytest.approx(989.4 / 3.35)
    # a 2,000-token prefill: 2.8e14 FLOP, 283.0 ms, 283.0 / 41.79 = 6.77x compute-bound
    assert q.one_gpu.prompt_flops == 2.8e14
    assert q.one_gpu.prompt_over_read == pytest.approx((2.8e14 / 989.4e12) / (140e9 / 3.35e12))
    # 131,072 tokens x 327,680 B = 42,949,672,960 B, 53.69% of 80e9
    assert q.kv_max_context == 131_072 * 327_680
    assert q.kv_max_context_share == pytest.approx(0.536871, rel=1e-6)


def test_derived_rules(q):
    # the cache outweighs the weights above 140e9 / 1,342,177,280 = 104.31 sequences
    assert q.crossover == pytest.approx(104.308, rel=1e-5)
    # weights-only intensity 2 x 70e9 x b / 140e9 = b at batch 1, 64 and the max batch 122
    assert [(r.s.batch, r.weights_only) for r in q.intensity_rows] == [(1, 1), (64, 64), (122, 122)]
    # (80e9 - 4e9) / 3.35e12 = 22.69 ms; (141e9 - 4e9) / 4.8e12 = 28.54 ms
    assert q.full_memory_step_s == pytest.approx(76e9 / 3.35e12)
    assert q.full_memory_step_h200_s == pytest.approx(137e9 / 4.8e12)
    # FP8 weights free 140e9 - 70e9 = 70e9 B
    assert q.fp8_weight_saving == 70e9


def test_h200_against_h100(q):
    # 4.8 / 3.35 - 1 = 43.28% more bandwidth; batch 64 is memory-bound on both, so the step ratio is it
    assert q.bandwidth_gain == pytest.approx(0.432836, rel=1e-5)
    assert q.s64.decode_step_s / q.s64_h200.decode_step_s == pytest.approx(4.8 / 3.35)
    assert q.balances["h100"] == pytest.approx(295.343, rel=1e-5)


def test_tpu_links_per_direction(q):
    # Google's older pages: v5e 1,600 Gb/s = 200 GB/s, v5p 4,800 Gb/s = 600 GB/s, one direction; the newer
    # pages print both directions added, 400 and 1,200 GB/s: halved, the same 200 and 600 GB/s.
    assert q.tpu_v5e.interconnect_bytes_per_s == pytest.approx(1600e9 / 8) == pytest.approx(400e9 / 2)
    assert q.tpu_v5p.interconnect_bytes_per_s == pytest.approx(4800e9 / 8) == pytest.approx(1200e9 / 2)
