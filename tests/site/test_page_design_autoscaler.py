"""Worked design 6's page model (macros/site/pages/design_autoscaler.py) against hand derivations.

Inputs, from the data: Llama-3.1-70B (70,553,706,496 parameters) in FP8, 1 B each, on 2 × H200 per
replica; the design file's peak of 600 requests/s, trough of 150, 15% headroom, and its
[design.inputs] (forecast error 12%, naive 20%, shock 35%, store 25 GB/s); data/autoscale.toml's engine
start (30 s); the shared link rates: network storage 1.25 GB/s, NVMe 5 GB/s, PCIe 64 GB/s per GPU, NIC
50 GB/s per GPU.
"""

from __future__ import annotations

import math
import shutil

import pytest

from macros.site.pages import design, design_autoscaler

W = 70_553_706_496  # FP8 weight bytes of Llama-3.1-70B


@pytest.fixture(scope="module")
def q():
    return design_autoscaler.model()


def test_cold_start_from_each_source(q):
    # One link for the store and NVMe; one link per GPU (two) from host RAM and from peers.
    assert q.network.load_s == pytest.approx(W / 1.25e9)  # 56.4 s
    assert q.nvme.load_s == pytest.approx(W / 5e9)  # 14.1 s
    assert q.host.load_s == pytest.approx(W / 2 / 64e9)  # 0.551 s
    assert q.peer.load_s == pytest.approx(W / 2 / 50e9)  # 0.706 s
    assert q.network.lead_s == pytest.approx(W / 1.25e9 + 30)


def test_the_day_follows_the_planner_linearly_and_the_pool_the_error(q):
    p = q.p
    assert (q.hourly[0], q.hourly[23]) == (p.replicas, p.replicas) == (150, 150)
    # The planner is linear in the rate: replicas = ceil(rate × replica-seconds per request × 1.15).
    per_request = p.replica_seconds_per_s / 600
    for h, n in enumerate(q.hourly):
        rate = 375 + 225 * max(math.cos(2 * math.pi * h / 24), math.cos(2 * math.pi * (h + 1) / 24))
        assert n == math.ceil(round(rate * per_request * 1.15, 9)), h
    # Pool: ceil(150 × 0.12) = 18 at the peak; reservation 168 replicas, 4,032 replica-hours a day.
    assert (q.pool_peak, q.fleet, q.all_day_replica_hours) == (18, 168, 168 * 24)
    assert q.spare_replica_hours == 168 * 24 - sum(q.hourly) - sum(q.pools)
    assert q.spare_usd_per_day == pytest.approx(q.spare_replica_hours * 2 * 3.80)
    assert q.requests_per_day == pytest.approx(375 * 86_400)


def test_ramp_return_and_rollout_against_the_store_and_by_fan_out(q):
    assert q.flips_per_day == 150 - min(q.hourly)
    # 168 replicas × 70.55 GB through 25 GB/s = 474 s; the returning replicas likewise.
    assert q.rollout_store_s == pytest.approx(168 * W / 25e9)
    assert q.return_store_s == pytest.approx(max(W / 1.25e9, q.flips_per_day * W / 25e9))
    # From one seeded replica, 167 others: 2^8 = 256 ≥ 168 > 128, 8 rounds of one peer load each.
    assert q.rollout_rounds == 8 and q.rollout_peer_s == pytest.approx(8 * W / 2 / 50e9)


def test_admission_under_a_shock_and_the_cost_of_preemption(q):
    per_request = q.p.replica_seconds_per_s / 600
    assert q.shock_rate == pytest.approx(600 * 1.35)
    assert q.excess_rate == pytest.approx(810 - 168 / per_request)
    assert q.shed_per_network_lead == pytest.approx(q.excess_rate * (W / 1.25e9 + 30))
    assert q.kill_replica_s == pytest.approx(q.batch.max_batch * q.cold.planned_prefill_s)
    assert q.drain_s == pytest.approx(350 * q.batch.planned_step_s)
    # Seasonal naive: ceil(150 × 0.2) = 30, 12 more than 18, at 2 GPUs × $3.80 × 24 h each.
    assert (q.naive_pool_peak, q.naive_pool_extra) == (30, 12)
    assert q.naive_pool_usd_per_day == pytest.approx(12 * 2 * 3.80 * 24)


def test_batch_requests_at_the_interactive_and_the_batch_cost(q):
    assert q.naive_batch_requests == pytest.approx(q.spare_replica_hours * 3600 / q.per_request_s)
    assert q.batch_requests == pytest.approx(q.spare_replica_hours * 3600 / q.batch_per_request_s)
    assert q.batch_per_request_s < q.per_request_s  # the KV-bound batch costs less per request


def test_a_missing_input_is_one_line_naming_the_file(tmp_path, monkeypatch):
    text = (design.DESIGNS_DIR / "autoscaler.toml").read_text()
    shutil.copy(design.DESIGNS_DIR / "defects.toml", tmp_path / "defects.toml")
    (tmp_path / "autoscaler.toml").write_text(text.replace("surprise = ", "surprised = "))
    monkeypatch.setattr(design, "DESIGNS_DIR", tmp_path)
    with pytest.raises(design.DesignError, match=r"autoscaler.toml: \[design.inputs\] is missing surprise$"):
        design_autoscaler.inputs()
