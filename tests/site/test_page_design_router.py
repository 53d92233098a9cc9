"""The router design's page model (macros/site/pages/design_router.py) against figures derived by hand.

The workload: Qwen3-235B-A22B (94 layers, 4 KV heads of 128) with an FP8 KV cache, so
2 x 94 x 4 x 128 x 1 B = 96,256 B per token and 16,300 x 96,256 = 1,568,972,800 B per sequence, held twice
under tensor parallelism over 8 GPUs (each of the 4 heads on 2), once under data-parallel attention;
100e6 requests a day x 1.5 / 86,400 s = 1,736.1 requests/s at the peak; prompts of 16,000 tokens, of
which 2,000 shared and 1,600 new; answers of 300. The plan's own figures (replicas, SLO batch, KV budget,
planned times) are the planner's, tested in tests/engine/test_planner.py; this file checks the
arithmetic the page model does on top of them.
"""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest

from macros.site.pages import design as design_page
from macros.site.pages import design_noise, design_router

KV_PER_TOKEN = 2 * 94 * 4 * 128 * 1
TP_KV_PER_TOKEN = 2 * KV_PER_TOKEN  # 8 GPUs, 4 KV heads: every head on two of them
PEAK_RPS = 100e6 / 86_400 * 1.5


@pytest.fixture(scope="module")
def q():
    return design_router.model()


def test_the_prompt_splits_into_shared_history_and_new(q):
    assert q.p.kv_bytes_per_token == TP_KV_PER_TOKEN == 192_512
    assert q.d.variants["dp-attention"].kv_bytes_per_token == KV_PER_TOKEN == 96_256
    assert q.shared_fraction == pytest.approx(2000 / 16000)  # 12.5%
    assert q.history_tokens == 16000 - 2000 - 1600 == 12_400
    # 7 of 8 requests continue a session: 12,400 / 16,000 x 7/8 = 0.678125
    assert q.affine_fraction == pytest.approx(0.678125)
    assert q.history_kv == pytest.approx(14_400 * KV_PER_TOKEN)  # one copy of each head


def test_the_cache_keeps_a_session_for_capacity_over_insert_rate(q):
    p = q.p
    assert p.replicas == 284 and p.slo_batch == 169  # the planner's, at 78.6% of 16,000 cached
    # The HBM left is what the live sequences leave, not the SLO batch: Little's law gives 1,736.1 / 284
    # requests/s per replica, each in the system for its planned prefill and 300 tokens at the planned step.
    live = PEAK_RPS / 284 * (p.planned_prefill_s + 300 * p.planned_step_s)
    assert live < 169 / 1.2  # at most the SLO batch over the headroom
    spare = p.at_slo.kv_budget_bytes - live * 16_300 * TP_KV_PER_TOKEN  # every copy of a live sequence's KV
    c = q.cache
    assert c.ranks == 1 and c.hbm_cache_bytes == pytest.approx(spare)
    # 1,736.1 / 284 = 6.113 requests/s per replica, each writing 16,000 x 0.214 + 300 = 3,724 tokens of KV, twice
    insert = PEAK_RPS / 284 * (16000 * (1 - 0.786) + 300) * TP_KV_PER_TOKEN
    assert c.insert_bytes_per_s == pytest.approx(insert)
    assert c.residency_s == pytest.approx((spare + 1e12) / insert)
    # exponential gaps of 60 s: warm with probability 1 - exp(-T / 60)
    assert c.warm == pytest.approx(1 - math.exp(-(spare + 1e12) / insert / 60))
    assert c.hit_home == pytest.approx(0.125 + 0.678125 * c.warm)


def test_data_parallel_attention_holds_twice_the_tokens_and_earns_its_own_hit_rate(q):
    # Its 8 ranks are 8 caches, each with 1/8 of the replica's room and 1/8 of its inserts: the same residency as
    # one cache of the whole. Each token's KV is held once, so for the same bytes a session stays about twice as
    # long, on the data-parallel napkin's own replicas.
    v, c = q.d.variants["dp-attention"], q.dp_cache
    assert v.layout == "dp-attention" and c.ranks == 8
    insert = PEAK_RPS / v.replicas * (16000 * (1 - 0.779) + 300) * KV_PER_TOKEN
    assert c.insert_bytes_per_s == pytest.approx(insert)
    assert c.residency_s == pytest.approx((v.cache_room_bytes + 1e12) / insert)
    assert c.residency_s > q.cache.residency_s
    # under the same bound of 1.25, on its own answer's fleet: cv sqrt(4 / in flight), spread over 8 ranks a replica
    dp = q.d.answers["dp-attention"]
    cv = math.sqrt(4 / dp.live_concurrency_per_replica)
    z = 0.25 / cv
    loss = cv * math.exp(-z * z / 2) / math.sqrt(2 * math.pi) - 0.25 * 0.5 * math.erfc(z / math.sqrt(2))
    home = 0.125 + 0.678125 * c.warm
    spread = 0.125 + 0.678125 * c.warm / (math.ceil(dp.replicas / 3) * 8)
    assert q.dp_hit == pytest.approx(home - loss * (home - spread))
    assert v.prefix_hit_rate == pytest.approx(q.dp_hit, abs=0.01) and q.dp_agrees.holds
    # and the serving model prices it: more GPUs than the tensor-parallel answer, which the page adopts
    assert q.tp_holds.holds == (dp.gpus > q.d.answer.gpus) and q.tp_holds.holds
    assert q.dp_gpu_ratio == pytest.approx(dp.gpus / q.d.answer.gpus)


def test_round_robin_finds_home_one_time_in_the_regions_replicas(q):
    # The ring is the answer's (the fleet that runs): its replicas over 3 regions, one cache each. The
    # napkin's 284 replicas (95 a region) are kept for the first-order cache derivation only.
    a = q.d.answer
    per_region = math.ceil(a.replicas / 3)
    assert q.replicas_per_region == per_region == q.caches_per_region
    assert q.napkin_replicas_per_region == 95
    assert q.hit_spread == pytest.approx(0.125 + 0.678125 * q.cache.warm / per_region)
    # the file's round-robin variant states it to the point
    assert q.d.variants["round-robin"].prefix_hit_rate == pytest.approx(q.hit_spread, abs=0.01)
    # the router's worth, on the serving model's answers: the cache-blind fleet against the design's
    blind = q.d.answers["round-robin"]
    if blind.feasible:
        assert q.router_gpus_saved == blind.gpus - a.gpus
        assert q.router_gpu_ratio == pytest.approx(blind.gpus / a.gpus)
    else:  # no cache-blind fleet at all: the page prices no saving and says so
        assert q.router_gpus_saved is None and q.router_gpu_ratio is None
        assert q.blind_words.startswith("the serving model finds no cache-blind fleet at all")
    assert q.napkin_router_gpu_ratio == pytest.approx(q.d.variants["round-robin"].gpus / 2272)


def test_the_load_bound_sends_on_the_normal_loss_of_home_load(q):
    p = q.p
    # The napkin's requests in flight (the cache's first-order room) ...
    in_flight = PEAK_RPS / 284 * (p.planned_prefill_s + 300 * p.planned_step_s)
    assert q.in_flight == pytest.approx(in_flight)
    # ... but the spread is the answer's, the fleet that runs: fewer in flight on each of its replicas, so wider
    assert q.answer_in_flight < in_flight
    cv = math.sqrt(4 / q.answer_in_flight)
    assert q.cv == pytest.approx(cv)
    for bound in (q.chosen, q.revised):
        z = (bound.c - 1) / cv
        loss = cv * math.exp(-z * z / 2) / math.sqrt(2 * math.pi) - (bound.c - 1) * 0.5 * math.erfc(z / math.sqrt(2))
        assert bound.overflow == pytest.approx(loss)
        assert bound.hit == pytest.approx(q.cache.hit_home - loss * (q.cache.hit_home - q.hit_spread))
    assert (q.chosen.c, q.revised.c) == (1.25, 1.15)
    # the mean replica at the peak runs at busy / replicas; the bound multiplies it
    assert q.mean_utilisation == pytest.approx(p.replica_seconds_per_s / 284)
    assert q.bound_utilisation == pytest.approx(1.25 * q.mean_utilisation)
    assert q.largest_bound == pytest.approx(1.2)
    assert [b.c for b in q.bounds] == [1.05, 1.1, 1.15, 1.25, 1.5]
    assert all(a.plan.gpus >= b.plan.gpus for a, b in zip(q.bounds, q.bounds[1:]))


def test_clumped_sessions_are_priced_as_arrivals_of_their_own(q):
    # 4 requests a session landing together: gaps with cv sqrt(2 x 4 - 1) = sqrt(7) = 2.6458, the variant's
    # burstiness; its answer is the serving model's on those gaps, against the Poisson answer
    assert q.clumped_cv == pytest.approx(math.sqrt(7))
    assert q.d.variants["clumped"].workload.burstiness == pytest.approx(math.sqrt(7), abs=1e-4)
    assert q.clumped.simulated.workload.burstiness == pytest.approx(math.sqrt(7), abs=1e-4)
    assert q.clumped.feasible and q.clumped_ratio == q.clumped.gpus / q.d.answer.gpus
    assert q.clumped.replicas > q.d.answer.replicas  # clumps queue longer than Poisson arrivals at the same rate


def test_a_lost_region_lands_cold_on_two_survivors(q):
    p = q.p
    # the napkin's survivors (95 a region), in its own units of work, kept for the failure-modes page
    assert q.survivors == 2 and q.survivor_replicas == 190
    assert q.failed_requests_per_s == pytest.approx(PEAK_RPS / 3)
    # cold: only the 2,000 shared tokens hit, so 14,000 are prefilled
    assert q.cold_uncached_tokens == pytest.approx(14_000)
    assert q.cold_tokens_per_s == pytest.approx(PEAK_RPS / 3 * 14_000)
    cold_load = p.peak_output_tokens_per_s / p.decode_tokens_per_s_per_replica + PEAK_RPS * q.cold_prefill_s
    window = p.replica_seconds_per_s * 2 / 3 + cold_load / 3
    assert q.window_load == pytest.approx(window)
    assert q.window_utilisation == pytest.approx(window / 190)
    # N+1: the peak at 3/2 (peak-to-mean 1.5 x 3/2 = 2.25); survivors keep 2 regions' share of the larger fleet,
    # priced on the serving model's answers: the variant's fleet costs more than the design's
    assert q.np1_load == pytest.approx(1.5) and q.np1.workload.peak_to_mean == pytest.approx(2.25)
    assert q.np1_extra_per_day == pytest.approx(q.d.answers["n-plus-one"].cost_per_day - q.d.answer.cost_per_day)
    assert q.np1_extra_per_day > 0
    assert q.np1_survivor_replicas == math.ceil(q.np1.replicas / 3) * 2
    assert q.np1_shed == pytest.approx(1 - q.np1_survivor_replicas / window)
    assert q.cold_window_s == 180 and q.still_cold == pytest.approx(math.exp(-3))
    assert q.failover_ttft_s == pytest.approx(q.cold_prefill_s + 0.1)
    # a session's 14,400 tokens of KV, one copy, over 1.25 GB/s
    assert q.history_transfer_s == pytest.approx(14_400 * 96_256 / 1.25e9)


def test_inputs_that_no_longer_match_the_file_break_the_sentences_that_use_its_hit_rates(tmp_path):
    q = design_router.model()
    assert q.spread_agrees.holds and q.chosen_agrees.holds and q.revised_agrees.holds
    raw = dict(design_router.inputs())
    raw["shared_prefix_tokens"] = 4000  # the round-robin variant's 13.1% is now wrong: 4,000 / 16,000 = 25% at least
    q = design_router.model(raw)
    assert not q.spread_agrees.holds
    assert re.search(r"round-robin\] prefix_hit_rate in macros/data/designs/router.toml is 13.1%, derived 2\d",
                     q.spread_agrees.evidence), q.spread_agrees.evidence
    source = (design_page.DESIGNS_DIR / "router.toml").read_text()
    path = tmp_path / "router.toml"
    path.write_text(re.sub(r"^turn_gap_s = .*$", "", source, flags=re.M))
    with pytest.raises(design_page.DesignError, match=r"\[design.inputs\] is missing turn_gap_s"):
        design_router.inputs(path)


def test_the_fleet_figures_in_the_prose_are_the_serving_models_not_the_napkins(q):
    # The page's ring, its loads per replica, the regional failover and every revision's price come from the
    # serving model's answers (347 replicas on this data, 116 a region), not the napkin's (284, 95 a region): a
    # regression to the napkin fails here.
    a, p = q.d.answer, q.p
    assert q.replicas_per_region == math.ceil(a.replicas / 3) != math.ceil(p.replicas / 3)
    assert q.answer_in_flight == pytest.approx(a.live_concurrency_per_replica)
    assert q.answer_streams_lost == pytest.approx(a.live_concurrency_per_replica * a.replicas / 3)
    # failover: the survivors' replicas against the answer's whole fleet, which the peak needs once warm; in the
    # cold window two thirds of the peak warm and the lost region's third cold, a cold request priced on the
    # serving model as the round-robin answer prices its whole peak (its replicas over the answer's), not by the
    # napkin's work ratio (kept beside it)
    survivors = 2 * math.ceil(a.replicas / 3)
    assert q.answer_survivors == survivors
    assert q.answer_warm_utilisation == pytest.approx(a.replicas / survivors)
    assert q.window_ratio == pytest.approx(q.window_load / q.warm_survivor_load) and q.window_ratio > 1
    assert q.napkin_window_utilisation == pytest.approx(a.replicas * q.window_ratio / survivors)
    np1 = q.d.answers["n-plus-one"]
    np1_survivors = 2 * math.ceil(np1.replicas / 3)
    assert q.np1_answer_survivors == np1_survivors
    # two thirds of a fleet sized for 3/2 of the peak is the peak's own fleet, to the two searches' rounding
    assert np1_survivors == pytest.approx(a.replicas, rel=0.05)
    blind = q.d.answers["round-robin"]
    assert q.window_priced == blind.feasible
    if blind.feasible:
        cold = blind.replicas / a.replicas
        assert q.cold_per_request == pytest.approx(cold) and cold > q.window_ratio
        window = (2 + cold) / 3
        assert q.answer_window_ratio == pytest.approx(window)
        assert q.answer_window_utilisation == pytest.approx(a.replicas * window / survivors)
        assert q.np1_answer_shed == pytest.approx(1 - np1_survivors / (a.replicas * window))
    else:  # no cache-blind fleet: the window has no price on the serving model, and the page says so
        assert q.answer_window_ratio is None and q.np1_answer_shed is None
        assert "finds no fleet for a peak that arrives cold" in q.window_words
    # the tighter bound, priced on the answers (the revision's table), not on the napkin
    assert q.revised_extra_gpus == q.d.answers["bound-1-15"].gpus - a.gpus
    # and the revised fleet is sized so that a replica at the bound (1.15 x the mean) meets the targets: its
    # variant plans the peak times the bound, 1.5 x 1.15 = 1.725
    assert q.d.variants["bound-1-15"].workload.peak_to_mean == pytest.approx(1.5 * 1.15) == pytest.approx(
        q.w.peak_to_mean * q.revised.c)
    assert "Napkin GPUs" in q.bounds_table


def test_the_words_follow_the_answers():

    def run(metric, words, rate, live, budget=8192):
        target = SimpleNamespace(metric=metric, words=words)
        return SimpleNamespace(feasible=True, simulated=SimpleNamespace(binding=target), token_budget=budget,
                               simulated_requests_per_s_per_replica=rate, live_concurrency_per_replica=live)

    base = run("ttft", "p95 TTFT", 7.52, 101)
    gap = design_router.blind_words(base, run("itl", "p95 gap between tokens", 1.27, 8.37), 14_000)
    assert gap.startswith("the p95 gap between tokens sets the count: each replica takes 1.27 requests a second")
    assert "prefills 14,000 tokens in 2 steps of 8,192 tokens" in gap
    ttft = design_router.blind_words(base, run("ttft", "p95 TTFT", 2.0, 20), 14_000)
    assert "steps of" not in ttft
    assert design_router.residency_words(8.9, 7.52).endswith("the estimate is conservative")
    assert design_router.residency_words(8.9, 9.5).endswith("the estimate is optimistic")


def test_the_layout_words_follow_the_serving_models_comparison(q):
    # Tensor parallel: 2,776 GPUs, its caches keep a session 359 s and earn 78.6 %; data-parallel attention keeps it
    # 513 s and earns 77.9 % (its replicas hold fewer calls each, so the bound sends more away), and needs 4,280
    # GPUs: 4,280 / 2,776 = 1.54x. The points are rounded: 0.779 - 0.786 = -0.7, one point fewer.
    tp, dp = SimpleNamespace(gpus=2776, feasible=True), SimpleNamespace(gpus=4280, feasible=True)
    tp_c, dp_c = SimpleNamespace(residency_s=359), SimpleNamespace(residency_s=513)
    words = design_router.layout_words(tp, dp, tp_c, dp_c, 0.786, 0.779)
    assert "keep an untouched session 513 s against 359 s" in words
    assert "earn 77.9% against 78.6%, 1 point fewer." in words
    assert words.endswith("the serving model needs 4,280 GPUs, 1.54× these.")
    same = design_router.layout_words(tp, dp, tp_c, dp_c, 0.786, 0.788)
    assert "the same to within a point" in same
    more = design_router.layout_words(tp, dp, tp_c, dp_c, 0.786, 0.81)
    assert "2 points more" in more
    assert q.layout_words == design_router.layout_words(q.d.answer, q.dp, q.cache, q.dp_cache, q.chosen.hit, q.dp_hit)


def test_the_host_tier_fleet_is_priced_on_the_answers():
    from macros.engine.fleet.answer import answer

    q = design_router.model()
    # the page's ratio is the serving model's fleet for the same workload over the design's answer; the napkin's
    # is kept beside it
    assert q.host_tier_ratio == pytest.approx(answer(q.hbm_only).gpus / q.d.answer.gpus)
    assert q.host_tier_ratio >= 1 and q.host_tier_napkin_ratio >= 1  # losing hits never shrinks the fleet


def test_the_fleet_with_both_adopted_revisions_is_priced(q):
    # N+1 regions (3/2 of the peak) at a load bound of 1.15: 1.5 x 1.5 x 1.15 = 2.5875 times the mean, at the
    # bound's hit rate; the page names its fleet and its ratio to the answer's
    adopted, a = q.d.answers["adopted"], q.d.answer
    assert q.d.variants["adopted"].workload.peak_to_mean == pytest.approx(1.5 * 1.5 * 1.15)
    assert q.d.variants["adopted"].workload.prefix_hit_rate == q.d.variants["bound-1-15"].workload.prefix_hit_rate
    assert adopted.gpus > q.d.answers["n-plus-one"].gpus > a.gpus
    # in whole replicas per region: each of the 3 regions holds ceil(replicas / 3), the summary's fleet to build
    per_region = math.ceil(adopted.replicas / 3)
    built = f"3 regions × {per_region} × 8 H200 SXM = {24 * per_region:,} GPUs"
    row = next(line for line in q.summary.splitlines() if "The fleet to build" in line)
    assert built in row and f"{24 * per_region / a.gpus:.3g}× the answer above" in row


def test_the_gap_s_knife_edge_and_its_two_cures_are_priced_on_the_fresh_draws(q):
    # The answer (the engine's default budget, the planner's pick) run again on seeds 5 to 14: the draws whose p95 gap
    # misses its 100 ms target, the largest p95 gap among them, and a draw that holds the gap but misses another
    # target named by it. The margin: the fewest replicas above the answer meeting every target on all ten draws
    # (every count between misses on one). The other cure: the workload at 4,096 tokens a step, its own answer.
    from macros.engine.fleet import planner_simulated as ps
    from macros.engine.fleet.answer import default_budget

    a, g = q.d.answer, q.gap
    assert default_budget(q.w) == 8192 and a.token_budget <= 8192  # the budget search's pick
    draws = ps.fresh_draws(a.simulated.workload, a.gpus_per_replica, a.replicas)
    gaps = [c.stats["itl_s"]["p95"] for c in draws]
    assert g.target_s == 0.1 and g.draws == 10
    assert g.misses == sum(x > 0.1 for x in gaps) and g.worst_s == max(gaps)
    assert g.knife.holds == (g.misses > 0)
    other = sum(bool(c.misses) and all(t.metric != "itl" for t in c.misses) for c in draws)
    assert sum(int(n) for n in re.findall(r"(\d+) miss", g.others)) == other
    assert g.misses + other + g.held == g.draws
    assert all(c.meets for c in ps.fresh_draws(a.simulated.workload, a.gpus_per_replica, g.margin))
    margin, sunk = design_noise.margin_scan(a)
    assert margin == g.margin and sorted(sunk) == list(range(a.replicas, g.margin))
    for n, seed in sunk.items():  # each count below the margin misses on the draw the scan names
        assert seed in ps.FRESH_SEEDS and not ps.meets_on_draw(a.simulated.workload, a.gpus_per_replica, n, seed)
    assert g.margin_ratio == pytest.approx(g.margin / a.replicas)
    b = g.budget_answer
    assert b.token_budget == 4096 and g.budget_ratio == pytest.approx(b.gpus / a.gpus)
    assert g.budget_held == sum(c.meets for c in ps.fresh_draws(b.simulated.workload, b.gpus_per_replica, b.replicas))
    assert g.margin_cheaper.holds == (g.margin < b.replicas)


def test_homing_by_geography_alone_would_size_each_region_for_its_own_peak(q):
    # The fleet follows the global curve (1.5 x the mean, a third a region), since the front door homes a new
    # session where there is room; homed by geography alone, each region holds its own working day's peak,
    # 2.5 x its mean, all three summed: 100e6 x 2.5 / 86,400 = 2,893.5 requests/s, more GPUs on the serving model.
    geo = q.d.answers["geo-homed"]
    assert geo.simulated.workload.peak_to_mean == pytest.approx(2.5)
    assert geo.peak_requests_per_s == pytest.approx(100e6 * 2.5 / 86_400)
    assert q.geo_gpu_ratio == pytest.approx(geo.gpus / q.d.answer.gpus) and q.geo_costs_more.holds
    assert "geo-homed" in design_page.meta("router").sizing_variants


def test_the_cold_window_is_priced_by_the_cache_blind_answer_or_said_to_have_no_price():
    # An answer of 300 replicas and a cache-blind one of 900: a cold request costs 900 / 300 = 3 of the answer's
    # replicas per request. Three regions, one lost: the window needs (2 + 3) / 3 = 5/3 of the warm fleet, a load of
    # 300 x 5/3 = 500 replicas, 500 / 200 = 2.5 of 200 survivors and 500 / 300 of N+1's 300, which shed
    # 1 - 300 / 500 = 40 % of it.
    a = SimpleNamespace(replicas=300)
    w = design_router.cold_window(a, SimpleNamespace(feasible=True, replicas=900), 3, 200, 300)
    assert w.priced and w.cold_per_request == 3 and w.ratio == pytest.approx(5 / 3)
    assert w.utilisation == pytest.approx(2.5) and w.np1_utilisation == pytest.approx(5 / 3)
    assert w.np1_shed == pytest.approx(0.4)
    assert "250% of their capacity" in design_router.window_words(w, 1.2, 1.8)
    assert "defers about 40% of the work" in design_router.shed_words(w, 300)
    # No cache-blind fleet: nothing is priced, and the words say what the model does say, with the napkin's ratio
    none = design_router.cold_window(a, SimpleNamespace(feasible=False), 3, 200, 300)
    assert not none.priced and none.ratio is None and none.utilisation is None and none.np1_shed is None
    words = design_router.window_words(none, 1.2, 1.8)
    assert "finds no fleet for a peak that arrives cold" in words and "1.2×" in words and "180%" in words
    assert "cannot serve the cold sessions" in design_router.shed_words(none, 300)
