"""The reality check's page model (macros/site/pages/reality_check.py) against figures derived by hand
from the data: Llama-2-70B (68,976,648,192 parameters, 80 layers, 8 KV heads of 128), Llama-3.1-70B
(70,553,706,496 parameters, the same geometry), H100 (80e9 B, 3.35e12 B/s, 1978.9e12 FLOP/s dense FP8),
H200 (141e9 B, 4.8e12 B/s, the same compute), a 4e9 B reserve per GPU."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.specs import catalog
from macros.site.pages import reality_check


@pytest.fixture(scope="module")
def q():
    return reality_check.model()


def test_decode_at_concurrency_one(q):
    # NIM, Llama-3.1-70B FP8 on 2 x H100, 5,000 in / 500 out: mean context 5,000 + 250 = 5,250 tokens.
    # FP8 KV: 2 x 80 x 8 x 128 x 1 = 163,840 B/token x 5,250 = 860,160,000 B; weights 70,553,706,496 B.
    # Step floor (70,553,706,496 + 860,160,000) / (2 x 3.35e12) = 10.659 ms; measured 18.58 ms: eta 0.5737
    assert q.nim1.efficiency == pytest.approx(71_413_866_496 / 6.7e12 / 18.58e-3, rel=1e-9)


def test_prefill_miss(q):
    # TensorRT-LLM, Llama-2-70B FP8 on 4 x H100, 2,048-token prompt: 2 x 68,976,648,192 x 2,048
    # = 2.8253e14 FLOP, plus causal attention 4 x 64 x 128 x 80 x 2,048 x 2,049 / 2 = 5.5003e12 FLOP;
    # 2.8803e14 / (4 x 1978.9e12) = 36.39 ms (compute-bound: the weight read is 5.15 ms);
    # measured 109 ms, so the floor is missed by 109 / 36.39 = 3.00x
    floor = (2 * 68_976_648_192 * 2048 + 4 * 64 * 128 * 80 * 2048 * 2049 / 2) / (4 * 1978.9e12)
    assert q.prefill_miss == pytest.approx(109e-3 / floor, rel=1e-9)


def test_fp8_cache_needed(q):
    # BF16 KV of Llama-2-70B: 327,680 B/token. FP8 weights 68.98e9 B.
    # TP2 batch 1,024 at 256 tokens: (160e9 - 68.98e9 - 8e9) / 83,886,080 = 989 < 1,024: needs FP8
    # TP4 batch 480 at 2,176: (320e9 - 68.98e9 - 16e9) / 713,031,680 = 329 < 480: needs FP8
    # TP2 batch 64 at 4,096: 83.02e9 / 1,342,177,280 = 61 < 64: needs FP8
    # one H200 batch 512 at 256: (141e9 - 68.98e9 - 4e9) / 83,886,080 = 810 >= 512: BF16 holds it
    assert (q.fp8_needed, q.fp8_total) == (3, 4)


def test_h200_launch_at_an_equal_batch(q):
    # Llama-2-70B FP8 on one GPU, batch 8, 2,048 in / 128 out; context 2,048 + 64 = 2,112 tokens.
    # KV 8 x 163,840 x 2,112 = 2,768,240,640 B; step bytes 68,976,648,192 + that = 71,744,888,832 B.
    # Prefill 2 x 68,976,648,192 x 8 x 2,048 / 1978.9e12 = 1.14211 s on both (compute-bound).
    # H100: 128 steps x 71.7449e9 / 3.35e12; H200: / 4.8e12. Tokens/s = 8 x 128 / (prefill + 128 x step).
    prefill = 2 * 68_976_648_192 * 8 * 2048 / 1978.9e12
    h100 = 1024 / (prefill + 128 * 71_744_888_832 / 3.35e12)
    h200 = 1024 / (prefill + 128 * 71_744_888_832 / 4.8e12)
    same_batch = reality_check.launch_floor("h200", 8) / reality_check.launch_floor("h100", 8)
    assert same_batch == pytest.approx(h200 / h100, rel=1e-9)  # 1.27x, not 1.43x
    assert f"at an equal batch of 8 it predicts only {h200 / h100:.2g}×" in q.launch_floor_words  # 1.3×
    assert q.launch_batch_ratio == 4  # batch 32 against batch 8
    assert q.bandwidth_ratio == pytest.approx(4.8 / 3.35)


def test_cost_factors_follow_the_throughput_runs(q):
    # eta 0.4 against the median and the worst whole-run efficiency: cost scales by their ratio
    assert q.eta == 0.4
    assert q.cost_factor_median == pytest.approx(0.4 / q.thr["median"])
    assert q.cost_factor_worst == pytest.approx(0.4 / q.thr["min"])
    assert q.thr["min"] <= q.thr["median"] <= q.thr["max"] and q.thr["n"] == 4


def test_the_launch_comparison_says_when_the_h100_run_no_longer_fits(monkeypatch: pytest.MonkeyPatch):
    # A 64 GB H100: Llama-2-70B's FP8 weights (68,976,648,192 B) and the 4e9 B reserve are 72.98 GB, so not
    # even one sequence fits on one GPU, let alone the launch run's 8. The H200 (141 GB) still holds both of
    # its runs: 141e9 - 72.98e9 = 68.02 GB over 163,840 x 2,112 = 346,030,080 B a sequence is 196 >= 32.
    gpus = catalog().gpus
    monkeypatch.setitem(gpus, "h100", dataclasses.replace(gpus["h100"], memory_bytes=64e9))
    assert reality_check.launch_floor("h100", 8) is None and reality_check.launch_floor("h200", 32) is not None
    q = reality_check.model()
    assert q.launch_floor_words == ("has no figure on this data: Llama-2-70B in FP8 with a batch of 8 does not fit on "
                                    "one H100 SXM at 64 GB")
    assert all(value is not None for value in vars(q).values())
