"""The calculator page's model (macros/site/pages/calculator.py) against figures derived by hand:
the anchor Llama-70B (70e9 parameters, BF16) on 4 x H100 (80e9 B, 3.35e12 B/s), the headline GPU
H200 (141e9 B, 4.8e12 B/s), a 4e9 B reserve per GPU, the default context of 4,096 tokens."""

from __future__ import annotations

import pytest

from macros.engine import formulas as f
from macros.site.pages import calculator


@pytest.fixture(scope="module")
def q():
    return calculator.model()


def test_full_memory_step_formula():
    # (80e9 - 4e9) / 3.35e12 = 22.687 ms: a GPU reading all of its memory but the reserve
    assert f.full_memory_step_s(80e9, 4e9, 3.35e12) == pytest.approx(76e9 / 3.35e12)
    # no reserve: the whole memory, 80e9 / 3.35e12 = 23.88 ms
    assert f.full_memory_step_s(80e9, 0, 3.35e12) == pytest.approx(0.023881, rel=1e-4)


def test_headline_step_is_the_h200_full_memory_read(q):
    # (141e9 - 4e9) / 4.8e12 = 137e9 / 4.8e12 = 28.54 ms
    assert q.headline_gpu.name == "H200 SXM"
    assert q.full_memory_step_s == pytest.approx(0.0285417, rel=1e-5)


def test_inputs(q):
    # twice the default 4,096-token context; --reserve in gigabytes: 4e9 B = 4
    assert q.long_ctx == 8192
    assert q.reserve_gb == 4
    assert q.batch == 64


def test_anchor_is_four_h100s(q):
    # budget 4 x 80e9 - 140e9 - 4 x 4e9 = 164e9 B; KV per sequence 327,680 x 4,096 = 1,342,177,280 B
    # -> 122 sequences; step (140e9 + 122 x 1,342,177,280) / (4 x 3.35e12) = 22.67 ms
    a = q.anchor
    assert (a.model, a.gpu, a.gpus, a.max_batch) == ("llama-70b", "h100", 4, 122)
    assert a.decode_step_s == pytest.approx((140e9 + 122 * 1_342_177_280) / 13.4e12)
