"""The figures chapters 4.5 and 6.4 take from the anchor sweep (macros/site/pages/_sweep.py), on sweeps made
by hand: the knee's limit and place, the last rate within a TPOT target, the replica's tokens/s, and the page
models' comparisons built on them."""

from __future__ import annotations

import pytest

from macros.engine.serving import sweep
from macros.engine.serving.sweep import LoadPoint
from macros.site.pages import _sweep, autoscaling, batching

START = {"model": "llama-3.1-70b", "gpu": "h100", "gpus": 4, "engine": "vllm", "input_tokens": 2000,
         "output_tokens": 200}


def point(rate: float, ttft_p99: float, tpot_p99: float, ttft_p50: float = 0.3, served: float | None = None,
          per_gpu: float = 10.0, batch: float = 1.0) -> LoadPoint:
    return LoadPoint(rate_per_s=rate, requests_per_s=rate if served is None else served, ttft_p50_s=ttft_p50,
                     ttft_p99_s=ttft_p99, tpot_p50_s=tpot_p99 / 2, tpot_p99_s=tpot_p99,
                     output_tokens_per_s_per_gpu=per_gpu, utilisation=rate / 4, mean_batch=batch)


# p99 TTFT 1.0 s at the lightest rate: the limit is 2 x 1.0 = 2.0 s. 1.5 and 1.9 stay under it, 2.1 passes:
# the knee is the third point (rate 3), the first past it the fourth (rate 4). p99 TPOT 20, 30, 50, 60, 200 ms
# against a 50 ms target: 50 ms does not pass it, 60 ms does, so the third point is the last within it.
POINTS = (point(1, 1.0, 0.02), point(2, 1.5, 0.03), point(3, 1.9, 0.05, ttft_p50=0.4, batch=6.0),
          point(4, 2.1, 0.06), point(6, 5.0, 0.2, ttft_p50=3.0, served=4.5))


def swept(points: tuple[LoadPoint, ...] = POINTS) -> _sweep.AnchorSweep:
    return _sweep.AnchorSweep(START, 4.0, points, sweep.knee(list(points)))


def test_knee_on_a_hand_made_sweep():
    k = _sweep.knee_figures(swept())
    assert k.limit_s == pytest.approx(2.0)
    assert k.knee.rate_per_s == 3 and k.past_knee.rate_per_s == 4
    assert (k.light.rate_per_s, k.heavy.rate_per_s) == (1, 6)


def test_no_point_past_the_knee():
    # p99 TTFT never reaches 2 x 1.0 s: sweep.knee gives the heaviest rate, and nothing is past it
    k = _sweep.knee_figures(swept((point(1, 1.0, 0.02), point(2, 1.9, 0.03))))
    assert k.knee.rate_per_s == 2 and k.past_knee is None


def test_last_rate_within_the_tpot_target():
    x = _sweep.load_figures(0.05, swept())
    assert x.within_tpot.rate_per_s == 3 and x.over_tpot.rate_per_s == 4
    # every point within 1 s: the heaviest is within, none over
    x = _sweep.load_figures(1.0, swept())
    assert x.within_tpot.rate_per_s == 6 and x.over_tpot is None
    # the lightest already over 10 ms: none within
    x = _sweep.load_figures(0.01, swept())
    assert x.within_tpot is None and x.over_tpot.rate_per_s == 1


def test_replica_tokens_per_s():
    # 10 tokens/s per GPU on 4 GPUs: 40 from the replica
    assert _sweep.replica_tokens_per_s(POINTS[0], 4) == pytest.approx(40.0)


def test_batching_load_curve_against_the_floor():
    c = batching.load_curve(0.05, swept())
    # Llama-3.1-70B (70,553,706,496 parameters, BF16: 141.107e9 B) on 4 x H100 (13.4e12 B/s), 2,000 + 200 =
    # 2,200 tokens a sequence: 327,680 x 2,200 = 720,896,000 B of KV each. A 50 ms planned step at 40% is a
    # 20 ms floor: 13.4e12 x 0.02 = 268e9 B, so b <= (268e9 - 141.107e9) / 720.896e6 = 176.02 -> 176.
    assert c.context == 2200
    assert c.floor.batch == 176
    assert c.within_tokens_per_s == pytest.approx(40.0)
    assert c.below_floor.holds  # the hand-made sweep's mean batch 6 within the target, against 176
    # at the knee p99 TTFT 1.9 s over p50 0.4 s = 4.75; from the lightest, p99 grew 1.9x and p50 1.33x
    assert c.knee_tail_ratio == pytest.approx(4.75)
    assert c.tail_first.holds


def test_autoscaling_knee_ratios():
    k = autoscaling.utilisation_knee(swept())
    # knee at rate 3 (served 3, p99 1.9 s), heaviest at rate 6 (served 4.5, p99 5.0 s)
    assert k.offered_gain == pytest.approx(2.0)
    assert k.served_gain == pytest.approx(1.5)
    assert k.ttft_gain == pytest.approx(5.0 / 1.9)


def test_the_anchor_sweep_is_the_load_explorers():
    # one sweep per build: the chapters and the Load explorer read the same object
    assert _sweep.anchor_sweep() is _sweep.anchor_sweep()
    k = _sweep.knee_figures()
    assert k.knee == sweep.knee(list(k.sweep.points))
