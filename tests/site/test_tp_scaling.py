"""Chapter 5.4's all-reduce derivation and TP scaling (macros/site/pages/toolkit.py's tp, _tp_scaling.py)
against figures derived by hand, and the widest-useful-split rule on steps made by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from macros.engine.serving.calibration import params_for
from macros.site.pages import _tp_scaling as tp
from macros.site.pages import toolkit


@pytest.fixture(scope="module")
def t():
    return toolkit.model().tp


def test_anchor_allreduce_derivation(t):
    # 4 x H100 at batch 122, hidden 8,192, BF16: ring factor 2 x 3 / 4 = 1.5; each GPU sends
    # 1.5 x 122 x 8,192 x 2 B = 2,998,272 B, over 450e9 B/s one way = 6.663 us; plus 5 us = 11.663 us;
    # 2 x 80 = 160 of them: 1.866 ms, the figure the section quotes beside the floor
    assert t.ring_factor == pytest.approx(1.5)
    assert t.sent_bytes == pytest.approx(2_998_272)
    assert t.wire_s == pytest.approx(2_998_272 / 450e9)
    assert t.one_s == pytest.approx(2_998_272 / 450e9 + 5e-6)
    assert 160 * t.one_s == pytest.approx(toolkit.model().s.tp_allreduce_s)
    assert 160 * t.one_s == pytest.approx(1.866e-3, rel=1e-3)


def test_the_setup_is_the_measured_one(t):
    # GPT-OSS-120B on B200 under vLLM at concurrency 4, 1,024 / 1,024: InferenceMAX measured TP 1, 2 and 4
    assert [s.gpus for s in t.splits] == [1, 2, 4, 8]
    assert [s.measured is not None for s in t.splits] == [True, True, True, False]
    assert {s.measured.id for s in t.splits if s.measured} == {"ix-t0089", "ix-t0095", "ix-t0101"}
    # lengths drawn from 0.8x to 1x: mean 0.9 x 1,024 = 921.6 of prompt, and half of 921.6 of reply on average
    assert tp.mean_context() == pytest.approx(0.9 * 1024 * 1.5)


def test_terms_divide_fixed_does_not_and_allreduces_grow(t):
    one, two, four, eight = t.splits
    # weights, experts and attention divide by the group; the fixed cost does not; one GPU has no all-reduce
    for key in ("dense", "experts", "attention"):
        assert two.classes_s[key] == pytest.approx(one.classes_s[key] / 2)
        assert eight.classes_s[key] == pytest.approx(one.classes_s[key] / 8)
    assert {s.classes_s["fixed"] for s in t.splits} == {one.classes_s["fixed"]}
    assert one.classes_s["communication"] == 0
    # TP 8: 2 x 36 all-reduces, each 2 x 7 hops of alpha plus 2 x 7/8 x 4 x 2,880 x 2 B over 900e9 B/s
    alpha = params_for("b200", "vllm", "gqa").link_latency_s
    assert eight.classes_s["communication"] == pytest.approx(72 * (14 * alpha + 2 * 7 / 8 * 4 * 2880 * 2 / 900e9))
    assert t.hop_latency_s == alpha


def _split(gpus: int, step_s: float) -> SimpleNamespace:
    return SimpleNamespace(gpus=gpus, estimate=SimpleNamespace(step_s=step_s))


def test_widest_useful_rule():
    # 10 -> 8 (20% less) -> 7.5 (6.25% less) -> 7.4 (1.3% less): TP 4 is the widest reached by 5% cuts
    splits = [_split(1, 10.0), _split(2, 8.0), _split(4, 7.5), _split(8, 7.4)]
    assert tp.widest_useful(splits).gpus == 4
    # a 4% cut at the first doubling stops there, whatever comes after
    assert tp.widest_useful([_split(1, 10.0), _split(2, 9.6), _split(4, 5.0)]).gpus == 1
    # exactly 5% counts
    assert tp.widest_useful([_split(1, 10.0), _split(2, 9.5)]).gpus == 2


def test_widest_useful_on_the_setup(t):
    # modelled (3.83, 3.22, 2.97, 2.97 ms): 16% and 7.7% cuts, then 0.2% -> TP 4; from TP 1 the step falls
    # 1 - 2.973 / 3.834 = 22.4%; measured 1 - 2.992 / 3.821 = 21.7%
    assert t.widest.gpus == 4 and t.wider.gpus == 8
    assert t.widest_gain == pytest.approx(1 - t.widest.estimate.step_s / t.narrowest.estimate.step_s)
    assert t.measured_gain == pytest.approx(1 - 0.0029915523817837988 / 0.003821234877825763)
    assert t.wider_gain < tp.MIN_GAIN <= 1 - t.widest.estimate.step_s / t.splits[1].estimate.step_s
    # Doubling again: the divided terms save something, the all-reduces add something, and the sentence's
    # "at least half" is that comparison.
    d = t.doubling_again
    assert d.saved_s > 0 and d.comm_grown_s > 0 and d.comm_takes_most == (d.comm_grown_s >= d.saved_s / 2)
