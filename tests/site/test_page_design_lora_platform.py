"""The LoRA platform design's page model (macros/site/pages/design_lora_platform.py) against hand derivations.

The plan: Llama-3.1-8B (8,030,261,248 parameters, BF16: 16,060,522,496 B; 32 layers, 8 KV heads of 128:
131,072 B of KV per token) on one H100 (80e9 B, 3.35e12 B/s), 4e9 B reserve: a KV budget of
80e9 - 16,060,522,496 - 4e9 = 59,939,477,504 B. Sequences of 1,000 + 200 = 1,200 tokens hold
157,286,400 B each. The planner's SLO batch is 238 (its own tests cover that search), so the step reads
16,060,522,496 + 238 x 157,286,400 = 53,494,685,696 B. A rank-16 adapter on all seven projections is
83,886,080 B (tests/engine/test_formulas_lora.py derives it)."""

from __future__ import annotations

import pytest

from macros.site.pages import design
from macros.site.pages import design_lora_platform as page

ADAPTER = 83_886_080
STEP = 16_060_522_496 + 238 * 157_286_400
BUDGET = 80e9 - 16_060_522_496 - 4e9
KV_SEQ = 157_286_400


@pytest.fixture(scope="module")
def q():
    return page.model()


def test_the_plan_is_the_one_derived_here(q):
    assert q.plan.slo_batch == 238 and q.plan.at_slo.decode_bytes == STEP
    assert q.plan.at_slo.kv_budget_bytes == pytest.approx(BUDGET)


def test_slots_and_what_the_slice_costs_the_batch(q):
    # 10e9 // 83,886,080 = 119 slots at rank 16; 10e9 // 335,544,320 = 29 at rank 64
    assert (q.slots, q.slots_cap) == (119, 29)
    # (59,939,477,504 - 10e9) // 157,286,400 = 317 sequences, more than the SLO batch of 238: the slice is free
    assert q.max_batch_with_slice == 317 > q.plan.slo_batch
    # spare at the SLO batch: 59,939,477,504 - 238 x 157,286,400 = 22,505,314,304 B
    assert q.spare_kv_at_slo == pytest.approx(22_505_314_304)


def test_catalogue_and_loads(q):
    # 5,000 x 83,886,080 = 419.4 GB; at rank 64, 1,677.7 GB, 83.9% of a 2e12 B node
    assert q.catalogue_bytes == 5000 * ADAPTER
    assert q.catalogue_cap_host_share == pytest.approx(5000 * 4 * ADAPTER / 2e12)
    # over PCIe at 64e9 B/s: 1.31 ms; from storage at 1.25e9 B/s: 67.1 ms
    assert q.load_host_s == pytest.approx(ADAPTER / 64e9)
    assert q.load_storage_s == pytest.approx(ADAPTER / 1.25e9)
    # 44 replicas x 119 slots = 5,236 >= 5,000 adapters: affinity routing holds the whole catalogue
    assert q.fleet_slots == 5236 and q.hit_affinity == 1


def test_the_adapter_read_at_the_slo_batch(q):
    # 238 draws from Zipf(1) over 5,000 adapters find about 148 distinct ones, more than the 119 slots,
    # so the step reads all 119: 119 x 83,886,080 = 9,982,443,520 B, 18.7% on top of the base step
    assert q.distinct_random == pytest.approx(148.1, abs=0.1)
    assert q.distinct == 119
    assert q.slots_words == "more than the 119 slots, so the step can read the whole slice"
    assert q.adapter_read_bytes == 119 * ADAPTER
    assert q.adapter_read_share == pytest.approx(119 * ADAPTER / STEP)
    # floor (53,494,685,696 + 9,982,443,520) / 3.35e12 = 18.95 ms; planned / 0.4 = 47.4 ms > 40 ms target
    assert q.step_floor_s == pytest.approx((STEP + 119 * ADAPTER) / 3.35e12)
    assert q.step_planned_s == pytest.approx((STEP + 119 * ADAPTER) / 3.35e12 / 0.4) and q.step_planned_s > 0.04
    # the efficiency that absorbs it: 0.4 x 53.49 / 63.48 = 0.337; the variant's typed 0.34 must match it
    assert q.derated_efficiency == pytest.approx(0.4 * STEP / (STEP + 119 * ADAPTER))
    assert q.reads.workload.efficiency == pytest.approx(q.derated_efficiency, abs=0.005)
    # adapter FLOPs: 2 x 41,943,040 against 2 x 8,030,261,248: 0.52%
    assert q.adapter_flop_share == pytest.approx(41_943_040 / 8_030_261_248)


def test_hit_rates_and_hot_adapters(q):
    # Zipf(1) over 5,000: H = sum 1/i = 9.094; the top 119 carry H_119 / H = 5.360 / 9.094 = 58.9%
    harmonic = sum(1 / i for i in range(1, 5001))
    assert q.hit_random == pytest.approx(sum(1 / i for i in range(1, 120)) / harmonic)
    # the top adapter: 1 / 9.094 = 11.0% of traffic; 36.2 busy replicas x 11.0% = 3.98 replicas of load
    assert q.top_share == pytest.approx(1 / harmonic)
    assert q.top_load_replicas == pytest.approx(q.plan.replica_seconds_per_s / harmonic)
    # adapters with more than one replica of load: 36.2 / (i x 9.094) > 1 for i <= 3
    assert q.hot_count == 3 and q.hot_share == pytest.approx((1 + 1 / 2 + 1 / 3) / harmonic)
    # at the mean, ceil(44 / 2.5) = 18 replicas hold 2,142 adapters: 1 - H_2142 / H misses
    assert q.mean_replicas == 18
    assert q.miss_at_mean == pytest.approx(1 - sum(1 / i for i in range(1, 2143)) / harmonic)


def test_merging_the_hot_adapters(q):
    # merged: ceil(p_i x 36.2 x 1.2) for p_i = 11.0%, 5.5%, 3.7%: 4.78, 2.39, 1.59 -> 5 + 3 + 2 = 10;
    # pooled: ceil((1 - 20.2%) x 44.5 busy replicas of the adapter-reads variant x 1.2) = 43; 53 against 54
    assert q.merged_replicas == 10 and q.pooled_replicas == 43
    assert q.reads.gpus == 54 and q.merge_saves_gpus == 1 and q.tax_gpus == 10


def test_quotas_and_failures(q):
    # a quarter of (59.94 GB - 10 GB) = 12.48 GB: 79 sequences of 157,286,400 B
    assert q.quota_bytes == pytest.approx(0.25 * (BUDGET - 10e9))
    assert q.quota_sequences == 79
    # a lost replica's 10e9 B slice: 156 ms over PCIe, 8 s from storage; a node's eight: 64 s
    assert q.slice_reload_host_s == pytest.approx(10e9 / 64e9)
    assert q.node_reload_storage_s == pytest.approx(8 * 10e9 / 1.25e9)
    # its live sequences re-prefilled elsewhere, by Little's law: its share of the peak arrivals times the
    # planned time in system (prefill, then the output at the planned step), fewer than the SLO batch of 238
    p, w = q.plan, q.plan.workload
    live = w.peak_requests_per_s / p.replicas * (p.planned_prefill_s + w.output_tokens * p.planned_step_s)
    assert q.live_per_replica == pytest.approx(live) and live < 238 == p.slo_batch
    assert q.reprefill_replica_s == pytest.approx(live * p.planned_prefill_s)


def test_inputs_come_from_the_design_file(tmp_path, monkeypatch):
    # A bigger rank in the file changes the adapter: the page model reads the file, not constants.
    source = (design.DESIGNS_DIR / "lora-platform.toml").read_text()
    assert "rank = 16 " in source
    monkeypatch.setattr(page, "inputs", lambda slug=page.SLUG: {**design.inputs(slug, page.INPUTS), "rank": 32})
    assert page.model().adapter.bytes == 2 * ADAPTER


def test_a_new_replica_and_a_rebooted_node(q):
    # the base model, 16,060,522,496 B: 251 ms over PCIe at 64e9 B/s, 12.8 s from storage at 1.25e9 B/s
    assert q.base_load_host_s == pytest.approx(16_060_522_496 / 64e9)
    assert q.base_load_storage_s == pytest.approx(16_060_522_496 / 1.25e9)
    # the catalogue, 5,000 x 83,886,080 B = 419.4 GB, from storage: 335.5 s
    assert q.catalogue_storage_s == pytest.approx(5000 * ADAPTER / 1.25e9)


def test_a_deleted_tenant_s_copies(q):
    # 44 one-GPU replicas on 8-GPU nodes: ceil(44 / 8) = 6 nodes, each holding the whole catalogue in RAM;
    # 5,000 adapters over 1,000 tenants = 5 a tenant, so 5 x 6 = 30 copies of one tenant's adapters in host memory
    assert q.d.plan.gpus == 44
    assert q.nodes == 6
    assert q.tenant_adapters == pytest.approx(5)
    assert q.tenant_host_copies == pytest.approx(30)
