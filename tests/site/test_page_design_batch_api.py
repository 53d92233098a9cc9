"""The batch API design's page model (macros/site/pages/design_batch_api.py) against hand derivations
from the design file's assumptions and the planner's figures."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from conftest import ROOT

from macros.engine.lookup import get_gpu, get_model
from macros.site.pages import design
from macros.site.pages import design_batch_api as page

FILE = ROOT / "macros" / "data" / "designs" / "batch-api.toml"


@pytest.fixture(scope="module")
def t():
    return page.model()


def test_the_trough_lends_what_the_interactive_fleet_leaves_over_its_headroom(t):
    iv = t.interactive
    # a cosine day with a 1.6 peak-to-mean: the trough is 2 / 1.6 - 1 = 0.25 of the peak
    assert t.trough_load == pytest.approx(0.25)
    busy = iv.replica_seconds_per_s
    assert t.trough_lendable == iv.replicas - math.ceil(busy * 0.25 * 1.2)  # 20% headroom kept
    assert t.peak_lendable == max(0, iv.replicas - math.ceil(busy * 1.2))
    # the file's volume fits: the trough absorbs all of it, using a fraction of what it offers
    assert t.absorbed == 1.0
    assert t.trough_used == pytest.approx(t.batch_replica_hours / t.lendable_replica_hours)
    assert 0 < t.trough_used < 1


def test_batch_costs_a_fraction_of_interactive_per_token(t):
    # both fleets at $3.80 a GPU-hour: batch 112 GPUs for 10M x 500 output tokens a day, interactive
    # 1,152 GPUs for 30M x 500; the ratio is 112 * 3 / 1,152 = 0.2917, whatever the price
    p, iv = t.plan, t.interactive
    assert (p.gpus, iv.gpus) == (112, 1152)
    assert t.batch_ratio == pytest.approx(112 * 3 / 1152)
    # the interactive fleet pays for its peak all day: 1.6x its cost per token at the peak
    assert t.interactive_daily_over_peak == pytest.approx(1.6)


def test_packed_prefill_is_the_compute_term(t):
    # 1,400 uncached tokens, 2 x 37e9 active parameters per token, on 8 H200 in FP8, at 40% efficiency;
    # the causal attention of those tokens over a 2,000-token prompt comes on top, under a tenth more
    m, g = get_model("deepseek-v3"), get_gpu("h200")
    compute = 2 * m.active * 1400 / (8 * g.fp8_flops) / 0.4
    assert compute < t.packed_prefill_s < 1.1 * compute
    assert t.packed_prefill_s < t.alone_prefill_s
    # alone, the prompt waits on one read of 671 GB over 8 x 4.8 TB/s, then / 40%
    assert t.alone_prefill_s == pytest.approx(m.params * 1.0 / (8 * g.bandwidth_bytes_per_s) / 0.4, rel=0.01)
    assert t.packed.replicas < t.plan.replicas


def test_the_two_tenants_costs_and_shares(t):
    a, b, slot = t.alpha_s, t.beta_s, 2500
    light = 500 * a + 50 * b * 550 / slot
    heavy = 30_000 * a + 1000 * b * 31_000 / slot
    assert (t.light.cost_s, t.heavy.cost_s) == (pytest.approx(light), pytest.approx(heavy))
    assert t.heavy_share_by_requests == pytest.approx(heavy / (light + heavy))
    assert t.heavy_share_by_tokens == pytest.approx((heavy / 31_000) / (light / 550 + heavy / 31_000))
    assert t.heavy_share_by_requests > t.heavy_share_by_tokens > 0.5


def test_the_file_floor_the_drain_and_the_reload(t):
    p = t.plan
    # one request: 1,400 uncached prompt tokens at α and 500 output tokens at β in a full slot
    assert t.request_s == pytest.approx(1400 * t.alpha_s + 500 * t.beta_s)
    assert t.floor_replicas == math.ceil(50_000 * t.request_s / 3600)
    assert t.drain_s == pytest.approx(500 * p.planned_step_s)
    # 671 GB over 8 GPUs at 2 GB/s each: about 42 s
    assert t.reload_s == pytest.approx(671e9 / 8 / 2e9, rel=0.01)
    assert t.lost_s == pytest.approx(500 * p.planned_step_s / 2 + p.slo_batch * t.packed_prefill_s)


def test_a_missing_input_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    broken = re.sub(r"^file_requests = .*$", "", FILE.read_text(), flags=re.M)
    (tmp_path / "batch-api.toml").write_text(broken)
    monkeypatch.setattr(design, "DESIGNS_DIR", tmp_path)
    with pytest.raises(design.DesignError, match=r"\[design.inputs\] is missing file_requests$"):
        page.inputs()
