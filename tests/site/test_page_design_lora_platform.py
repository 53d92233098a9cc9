"""The LoRA platform design's page model (macros/site/pages/design_lora_platform.py) against hand derivations.

The plan: Llama-3.1-8B (8,030,261,248 parameters, BF16: 16,060,522,496 B; 32 layers, 8 KV heads of 128:
131,072 B of KV per token) on one H100 (80e9 B, 3.35e12 B/s), 4e9 B reserve: a KV budget of
80e9 - 16,060,522,496 - 4e9 = 59,939,477,504 B. Sequences of 1,000 + 200 = 1,200 tokens hold
157,286,400 B each. The planner's SLO batch is 238 (its own tests cover that search), so the step reads
16,060,522,496 + 238 x 157,286,400 = 53,494,685,696 B. A rank-16 adapter on all seven projections is
83,886,080 B (tests/engine/test_formulas_lora.py derives it).

The fleet the page states (its replicas, slots, the replicas at the mean, hot adapters, nodes) is the serving
model's answer (q.d.answer), a simulation, not a hand derivation: those tests derive the figure from the answer
and check that the page model uses it, not the napkin's 44 replicas. The serving model's step reads the adapters
(tests/engine/test_serving_adapters.py derives that term): the read's cost is the answer against the merged
variant's, and the merge is priced at the rates the two answers meet the targets at."""

from __future__ import annotations

import math

import pytest

from macros.site.pages import design, design_noise
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
    # the answer's replicas x 119 slots, homed by affinity: the most popular adapters that fit (not the napkin's
    # 44 x 119 = 5,236, which would hold the whole catalogue)
    replicas = q.d.answer.replicas
    assert replicas != q.plan.replicas == 44
    assert q.fleet_slots == replicas * 119
    harmonic = sum(1 / i for i in range(1, 5001))
    assert q.hit_affinity == pytest.approx(sum(1 / i for i in range(1, min(replicas * 119, 5000) + 1)) / harmonic)
    assert q.adapters_per_replica == pytest.approx(5000 / replicas)


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
    # adapter FLOPs: 2 x 41,943,040 against 2 x 8,030,261,248: 0.52%
    assert q.adapter_flop_share == pytest.approx(41_943_040 / 8_030_261_248)


def test_hit_rates_and_hot_adapters(q):
    # Zipf(1) over 5,000: H = sum 1/i = 9.094; the top 119 carry H_119 / H = 5.360 / 9.094 = 58.9%
    harmonic = sum(1 / i for i in range(1, 5001))
    assert q.hit_random == pytest.approx(sum(1 / i for i in range(1, 120)) / harmonic)
    # the top adapter: 1 / 9.094 = 11.0% of traffic, the load of 11.0% of the answer's replicas (each carries an
    # equal share of the peak at the targets), with a home for each replica of it, rounded up
    replicas = q.d.answer.replicas
    assert q.top_share == pytest.approx(1 / harmonic)
    assert q.top_load_replicas == pytest.approx(replicas / harmonic)
    assert q.top_replicas == math.ceil(replicas / harmonic)
    # hot adapters carry more than one of the answer's replicas: replicas / (i x 9.094) > 1
    hot = [i for i in range(1, 5001) if replicas / (i * harmonic) > 1]
    assert q.hot_count == len(hot) and q.hot_share == pytest.approx(sum(1 / i for i in hot) / harmonic)
    # at the mean, ceil(replicas / 2.5) of the answer's replicas hold 119 adapters each: 1 - H_slots / H misses
    mean = math.ceil(replicas / 2.5)
    assert q.mean_replicas == mean and q.mean_slots == mean * 119
    assert q.miss_at_mean == pytest.approx(1 - sum(1 / i for i in range(1, mean * 119 + 1)) / harmonic)


def test_merging_the_hot_adapters(q):
    # priced at the rates the serving model's answers meet the targets at, peak / replicas: each hot adapter on
    # ceil(p_i x peak / merged rate) merged replicas, the rest in ceil((1 - their share) x peak / answer's rate)
    harmonic = sum(1 / i for i in range(1, 5001))
    hot = [1 / (i * harmonic) for i in range(1, q.hot_count + 1)]
    a, merged, peak = q.d.answer, q.merged, q.workload.peak_requests_per_s
    assert q.merged_replicas == sum(math.ceil(p * merged.replicas) for p in hot)
    assert q.pooled_replicas == math.ceil((1 - sum(hot)) * a.replicas)
    assert q.split_gpus == q.merged_replicas + q.pooled_replicas
    assert q.merge_words.startswith(f"{q.split_gpus} GPUs")
    # a different count inside the span the calibrated band gives the answer is a tie, not a saving or a cost
    fewest, most = design_noise.span(a)
    assert ("a tie" in q.merge_words) == (q.split_gpus != a.gpus and fewest <= q.split_gpus <= most)
    # the merged variant has no adapter to read, and the answer pays for its read
    assert merged.simulated.workload.adapters == 0 and a.simulated.workload.adapters == 5000
    assert q.read_cost_gpus == a.gpus - merged.gpus >= 0
    assert merged.simulated_requests_per_s_per_replica == pytest.approx(peak / merged.replicas)


def test_quotas_and_failures(q):
    # a quarter of (59.94 GB - 10 GB) = 12.48 GB: 79 sequences of 157,286,400 B
    assert q.quota_bytes == pytest.approx(0.25 * (BUDGET - 10e9))
    assert q.quota_sequences == 79
    # a lost replica's 10e9 B slice: 156 ms over PCIe, 8 s from storage; a node's eight: 64 s
    assert q.slice_reload_host_s == pytest.approx(10e9 / 64e9)
    assert q.node_reload_storage_s == pytest.approx(8 * 10e9 / 1.25e9)
    # its live sequences re-prefilled elsewhere: the answer's sequences in flight per replica (its run, by
    # Little's law; not the napkin's), fewer than the SLO batch of 238, each at the planned prefill
    p = q.plan
    live = q.d.answer.live_concurrency_per_replica
    assert q.live_per_replica == live and live < 238 == p.slo_batch and live != pytest.approx(p.live_sequences)
    assert q.reprefill_replica_s == pytest.approx(live * p.planned_prefill_s)


def test_inputs_come_from_the_design_file(tmp_path, monkeypatch):
    # A bigger rank in the file changes the adapter: the page model reads the file, not constants.
    source = (design.DESIGNS_DIR / "lora-platform.toml").read_text()
    assert "adapter_rank = 16 " in source
    monkeypatch.setattr(page, "inputs", lambda slug=page.SLUG, real=page.inputs: {**real(slug), "rank": 32})
    assert page.model().adapter.bytes == 2 * ADAPTER


def test_a_new_replica_and_a_rebooted_node(q):
    # the base model, 16,060,522,496 B: 251 ms over PCIe at 64e9 B/s, 12.8 s from storage at 1.25e9 B/s
    assert q.base_load_host_s == pytest.approx(16_060_522_496 / 64e9)
    assert q.base_load_storage_s == pytest.approx(16_060_522_496 / 1.25e9)
    # the catalogue, 5,000 x 83,886,080 B = 419.4 GB, from storage: 335.5 s
    assert q.catalogue_storage_s == pytest.approx(5000 * ADAPTER / 1.25e9)


def test_a_deleted_tenant_s_copies(q):
    # the answer's GPUs on 8-GPU nodes (the napkin's 44 would fill 6), each node holding the whole catalogue in
    # RAM; 5,000 adapters over 1,000 tenants = 5 a tenant, one copy per node
    gpus = q.d.answer.gpus
    assert q.d.plan.gpus == 44 != gpus
    assert q.nodes == math.ceil(gpus / 8)
    assert q.tenant_adapters == pytest.approx(5)
    assert q.tenant_host_copies == pytest.approx(5 * math.ceil(gpus / 8))


def test_the_fleet_the_page_states_is_the_serving_model_s(q):
    # Every replica count and price is the answer's: a regression to the napkin (44 replicas) fails here.
    d = q.d
    assert q.fleet_slots == q.slots * d.answer.replicas != q.slots * d.plan.replicas
    assert q.salted_extra_gpus == d.answers["tenant-salted"].gpus - d.answer.gpus
    assert q.salted_extra_cost_per_day == pytest.approx(d.answers["tenant-salted"].cost_per_day - d.answer.cost_per_day)
    assert q.copy_words == ("one base copy per GPU serves every tenant" if d.answer.gpus_per_replica == 1 else
                            f"one base copy per {d.answer.gpus_per_replica}-GPU replica serves every tenant")
    # the words follow the comparisons: the answer's slots against the catalogue, the p95 request's luck
    assert q.catalogue_words.startswith("enough" if q.fleet_slots >= 5000 else "fewer than the catalogue's 5,000")
    assert q.peak_miss_words.startswith("more than" if q.miss_at_peak > 0.05 else "fewer than")
    # the catalogue homed on the answer's replicas, and the KV its sequences in flight leave at the peak
    assert q.catalogue_slice_bytes == pytest.approx(5000 * ADAPTER / d.answer.replicas)
    assert q.room_at_peak_bytes == pytest.approx(BUDGET - d.answer.live_concurrency_per_replica * KV_SEQ)


def test_the_salted_price_follows_the_tie(q):
    # the revision's table calls the fleets a tie when the salted one lies inside the answer's band; the price
    # sentence then says the difference is inside it
    tie = design_noise.tie(q.d.answer, q.d.answers["tenant-salted"])
    assert q.salted_verdict == ("inside the band: worth paying" if tie else "I would pay it")


def test_the_read_cost_words_follow_the_comparison(q):
    assert q.read_cost_words == page.read_cost_words(q.d.answer.gpus, q.merged.gpus)
    assert page.read_cost_words(26, 25).endswith("the read costs 1 GPU")
    assert page.read_cost_words(30, 25).endswith("the read costs 5 GPUs")
    assert page.read_cost_words(25, 25).endswith("costs no GPU at this peak")
    # the napkin's read is the larger: its SLO batch (238) against the answer's sequences in flight
    assert q.napkin_read_words.startswith("The napkin's read is the larger")
    assert q.napkin_read_words == page.napkin_read_words(238, q.d.answer.live_concurrency_per_replica)
    assert page.napkin_read_words(101, 235).startswith("The napkin's read is the smaller: its SLO batch of 101")


def test_a_cold_request_s_ttft_adds_a_reported_load_to_the_answer_s():
    # 164 ms + ServerlessLLM's 83.5-370 ms = 247.5-534 ms against 500 ms: 534 / 500 - 1 = 6.8% over at the slow end;
    # + LoRAX's 0.5-1 s = 664 ms to 1.16 s: 32.8% to 133% over
    assert page.cold_ttft_words(0.164, 0.0835, 0.37, 0.5) == (
        "247 ms to 534 ms, inside it at the fast end and over it by 6.8% at the slow end")
    assert page.cold_ttft_words(0.164, 0.5, 1.0, 0.5) == "664 ms to 1.16 s, over it by 32.8% to 133%"
    assert page.cold_ttft_words(0.164, 0.05, 0.1, 0.5) == "214 ms to 264 ms, inside it"


def test_one_spare_replica_costs_a_replica_s_day(q):
    # one H100 at $2.50 an hour for 24 hours: $60
    assert q.spare_cost_per_day == pytest.approx(q.d.answer.cost_per_day / q.d.answer.replicas)
    assert q.spare_cost_per_day == pytest.approx(q.d.answer.gpus_per_replica * 2.5 * 24)
