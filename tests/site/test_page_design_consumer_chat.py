"""The consumer-chat design's figures beyond its plan, against derivations by hand."""

from __future__ import annotations

import math

import pytest

from macros.engine.fleet import plan_levers as lv
from macros.engine.model.scenario import scenario
from macros.site.pages import design_consumer_chat as page
from macros.text import fmt


@pytest.fixture(scope="module")
def x():
    return page.model()


def test_kv_write_rate_is_new_tokens_times_kv_per_token(x):
    # Llama-3.1-70B, BF16 KV: 80 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 B = 327,680 B a token,
    # one copy under TP on 4 GPUs. Peak: 1e8 requests a day / 86,400 s x 2 = 2,314.8 requests/s, each
    # with 2,000 x (1 - 0.5) = 1,000 uncached prompt tokens and 400 output tokens.
    requests = 1e8 / 86_400 * 2
    assert x.kv_write_bytes_per_s == pytest.approx(requests * (1000 + 400) * 327_680, rel=1e-9)


def test_the_cache_room_is_what_the_answer_s_live_sequences_leave(x):
    # The answer's replicas, not the napkin's: each holds the live sequences of its simulated run (Little's law:
    # its 2,314.8 requests/s share times a request's mean time in the system), fewer than the napkin's SLO batch.
    # Each live sequence holds 327,680 B x 2,400 tokens = 786,432,000 B at full context (one copy under TP); the
    # room is the rest of each replica's KV budget, over the answer's replicas.
    a, p = x.d.answer, x.d.plan
    assert a.gpus_per_replica <= 8  # 8 KV heads: one copy of each under TP up to 8 GPUs
    live = a.live_concurrency_per_replica
    assert x.live_sequences == live and live < p.slo_batch
    assert x.requests_per_replica_s == pytest.approx(1e8 / 86_400 * 2 / a.replicas)
    assert x.time_in_system_s * x.requests_per_replica_s == pytest.approx(live)
    w = x.d.workload  # the KV budget of the answer's replica, which may be wider than the napkin's
    budget = scenario(w.model, w.gpu, gpus=a.gpus_per_replica, seq_len=p.seq_len, weights=w.weights, kv=w.kv,
                      layout=w.layout).kv_budget_bytes
    assert x.cache_room_bytes == pytest.approx(a.replicas * (budget - live * 786_432_000))
    # A replica lost takes its live streams with it: each re-prefills its whole context.
    assert x.reprefill_batch_s == pytest.approx(live * x.reprefill_one_s)
    # ... and it is one of the answer's replicas, which have no spare at the peak.
    assert x.failed_share == pytest.approx(1 / a.replicas)
    assert x.failure_words.startswith(f"one replica is {fmt.pct(1 / a.replicas)} of the fleet, and the answer has")
    assert f"One spare replica, {fmt.usd(a.cost_per_day / a.replicas)} a day, covers it" in x.failure_words


def test_the_retention_words_follow_the_data():
    # warm 0.5 of returning turns, a prefix of 0.9 of the prompt: at most 0.45 of prompt tokens
    words = page.retention_words(0.5, 60, 0.9)
    assert words.startswith("against a mean turn gap of 60 s: with gaps at random, a returning turn finds its prefix "
                            "with probability 50%, and the prefix is 90% of its prompt")
    assert "HBM alone serves at most 45% of prompt tokens" in words


def test_the_hit_rate_bounds_follow_the_che_approximation_and_the_host_tier_carries_the_design_s(x):
    # A returning turn's prompt: 2,000 tokens, of which the user's new message is 150, so 1,850 / 2,000 = 92.5 % was
    # in the last turn's KV; it is still cached with probability 1 - exp(-T / 60 s) for a residency T (Che).
    share = 1 - 150 / 2000
    assert x.hit_bound_hbm == pytest.approx(share * (1 - math.exp(-x.retention_hbm_s / 60)))
    assert x.hit_bound_host == pytest.approx(share * (1 - math.exp(-x.retention_with_host_s / 60)))
    assert x.tier_words == page.tier_words(0.5, page.needed_tier(0.5, x.hit_bound_hbm, x.hit_bound_host))
    assert x.host_carries == ("carries it" if 0.5 <= x.hit_bound_host else "falls short of it")


def test_the_tier_words_follow_the_bounds():
    # 0.5 is above HBM's bound 0.494 and below the host tier's 0.924: the host tier; below 0.754 too: HBM; above
    # both 0.2 and 0.4: neither.
    assert page.needed_tier(0.5, 0.494, 0.924) == "host"
    assert page.needed_tier(0.5, 0.754, 0.925) == "hbm"
    assert page.needed_tier(0.5, 0.2, 0.4) == ""
    assert page.tier_words(0.5, "host") == "That is why the 50% hit rate needs a host-memory tier"
    assert page.tier_words(0.5, "hbm").startswith("HBM alone could carry the 50% hit rate at the bound")
    assert page.tier_words(0.5, "").startswith("Not even a host-memory tier reaches the 50% hit rate")


def test_retention_is_cache_over_write_rate_and_the_host_tier_extends_it(x):
    assert x.retention_hbm_s == pytest.approx(x.cache_room_bytes / x.kv_write_bytes_per_s)
    # The answer's GPUs x 200 GB of host memory each, added to the HBM room.
    assert x.host_cache_bytes == pytest.approx(x.d.answer.gpus * 200e9)
    assert x.retention_with_host_s == pytest.approx((x.cache_room_bytes + x.host_cache_bytes) / x.kv_write_bytes_per_s)
    # The tier extends it; whether HBM alone outlasts a user's turn gap is the page's tier_words' to say (the bounds)
    assert x.retention_hbm_s < x.retention_with_host_s


def test_a_cached_prefix_reloads_over_pcie_faster_than_it_recomputes(x):
    # 1,000 cached tokens x 327,680 B = 327.68 MB over 64 GB/s = 5.12 ms.
    assert x.cached_prefix_bytes == pytest.approx(327.68e6)
    assert x.host_reload_s == pytest.approx(5.12e-3)
    assert x.host_reload_s < x.cached_prefix_prefill_s


def test_the_store_and_the_pools(x):
    # 1e8 turns a day x (150 typed + 400 generated tokens) x 4 B = 220 GB of text a day.
    assert x.store_bytes_per_day == pytest.approx(220e9)
    # The pools are the serving model's answers for each share of the traffic (not the napkin's plans), against
    # one pool serving everyone, the design's answer: at $2.50 per H100-hour, 24 hours.
    free, paid = x.d.answers["free"], x.d.answers["paid"]
    assert x.pools_gpus == free.gpus + paid.gpus < x.d.answer.gpus
    assert x.pools_gpus != x.free.gpus + x.paid.gpus  # the napkin's pools differ: a regression to them fails
    assert x.pools_saving_per_day == pytest.approx((x.d.answer.gpus - x.pools_gpus) * 2.5 * 24)
    assert "| Free |" in x.pools_table and "| Paid |" in x.pools_table
    assert f"| {free.replicas:,} × {free.gpus_per_replica} | {free.gpus:,} |" in x.pools_table


def test_the_shape_words_follow_the_answers():
    x = page.model()
    # the answer searched every shape; the 8-GPU variant's answer against it, and the napkin's change beside it
    a, tp8 = x.d.answer, x.d.answers["tp8"]
    assert x.tp8_extra_gpus == tp8.gpus - a.gpus
    if tp8.gpus > a.gpus:
        assert f"the serving model does not: {tp8.gpus:,} GPUs, {tp8.gpus - a.gpus:,} more" in x.shape_words
    else:
        assert "the serving model agrees" in x.shape_words
    assert x.shape_words.startswith("The planner's answer already tried every shape up to a node")


def test_what_binds_is_said_from_the_plan():
    import dataclasses

    from macros.site.pages import design

    p = design.model("consumer-chat").plan
    # today the 50 ms target stops the batch below the KV cap (161 of 207 sequences)
    assert p.slo_batch < p.max_batch and p.binding == "tpot"
    assert design.binds(p, "tpot").holds and not design.binds(p, "kv").holds
    assert design.binds_words(p) == "the time-per-token target, not memory"
    capped = dataclasses.replace(p, binding="kv", slo_batch=p.max_batch)
    assert design.binds_words(capped) == "memory, not the time-per-token target"
    evidence = design.binds(capped, "tpot").evidence
    assert evidence == f"batch {p.max_batch} of a possible {p.max_batch}: the KV budget caps it"


def test_the_rollout_s_cold_cache_day_and_its_waves():
    x = page.model()
    # The serving model's answers with the cache and without it, on the same replica shape: the cold search's own
    # run on the answer's replicas when it found another shape cheaper.
    g = x.d.answer.gpus_per_replica
    warm, cold = x.d.answer.replicas, lv.on_shape(x.d.answers["no-prefix-cache"], g).replicas
    pct = fmt.pct
    if cold is None:  # on this data no count of the answer's replicas meets the targets cold: said, not counted
        assert x.cold_day_words == page.cold_day_words(warm, None) and x.rollout_cold_share_max == 0.0
        assert x.wave_words == page.wave_words(0.1, 0.0, None)
        assert x.rollout_waves == 10
        return
    assert cold > warm  # the answer cannot carry the cold-cache day
    assert x.cold_day_words.startswith(f"The answer does not have them: it is the smallest fleet that meets the "
                                       f"targets warm, and cold the same peak needs {fmt.count(cold)} replicas")
    # At the mean (a peak twice the mean): half the peak's traffic, a share c cold needs
    # 0.5 (warm + c (cold - warm)) replicas of the warm answer's, so c <= warm (1 - 0.5) / (0.5 (cold - warm)).
    assert x.rollout_cold_share_max == pytest.approx(warm * 0.5 / (0.5 * (cold - warm)))
    # a wave of 10% of the replicas at the peak: a tenth of the cold answer's extra replicas
    extra = math.ceil(0.1 * (cold - warm))
    assert x.wave_words.startswith(f"At the peak the answer has no spare (it is the smallest fleet that meets the "
                                   f"targets): a wave of 10% of the replicas running cold there needs about "
                                   f"{fmt.count(extra)} more replicas while it warms")
    assert x.wave_words.endswith("At the mean rate the fleet held at peak size has room for it") == (
        0.1 <= x.rollout_cold_share_max)
    assert x.rollout_waves == 10
    assert pct(x.rollout_cold_share_max)


def test_the_rollout_words_follow_the_data():
    # (the share that fits at a load: tests/engine/test_plan_levers.py)
    assert page.cold_day_words(100, 300).endswith("(3×), so released everywhere at once at the peak the queue "
                                                  "grows without limit.")
    assert page.cold_day_words(100, 100).startswith("The answer covers them")
    # a 10% wave against at most 5% cold at the mean: it does not fit even there
    assert page.wave_words(0.1, 0.05, 20.0).endswith("even at the mean rate the fleet held at peak size has no room "
                                                     "for it")
    assert "needs about 20 more replicas" in page.wave_words(0.1, 0.5, 20.0)
    # a spec what-if where no count of the answer's replicas meets the targets cold: said, not a count
    assert "no count of its replicas meets the targets" in page.cold_day_words(100, None)
    assert page.wave_words(0.1, 0.0, None).startswith("Cold, no count of the answer's replicas meets the targets, "
                                                      "so a wave of 10% of them misses them")




def test_the_shape_trade_off_follows_the_answers():
    from types import SimpleNamespace

    four = SimpleNamespace(gpus_per_replica=4, cost_per_day=130_000.0)
    eight = SimpleNamespace(gpus_per_replica=8, cost_per_day=127_000.0)
    assert page.shape_tradeoff(four, eight) == ("4 against 8 GPUs per replica, $130,000 against $127,000 a day on "
                                                "the answers")
    assert page.shape_tradeoff(eight, eight).startswith("the answer already runs 8 GPUs per replica")
