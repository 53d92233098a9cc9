"""The consumer-chat design's figures beyond its plan, against derivations by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

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


def test_the_cache_room_is_what_the_live_sequences_leave_not_the_slo_batch(x):
    # Little's law per replica: 2,314.8 requests/s over the fleet's replicas, each in the system for its planned
    # prefill plus 400 tokens at the planned step. Each live sequence holds 327,680 B x 2,400 tokens =
    # 786,432,000 B at full context; the room is the rest of each replica's KV budget, over the fleet.
    p = x.d.plan
    live = 1e8 / 86_400 * 2 / p.replicas * (p.planned_prefill_s + 400 * p.planned_step_s)
    assert x.live_sequences == pytest.approx(live) and live < p.slo_batch
    assert x.cache_room_bytes == pytest.approx(p.replicas * (p.at_slo.kv_budget_bytes - live * 786_432_000))
    # A replica lost takes its live streams with it: each re-prefills its whole context.
    assert x.reprefill_batch_s == pytest.approx(live * x.reprefill_one_s)


def test_the_retention_words_follow_the_data():
    assert page.retention_words(20, 60).startswith("less than a user's turn gap of 60 s")
    assert page.retention_words(90, 60).startswith("longer than a user's turn gap of 60 s")


def test_retention_is_cache_over_write_rate_and_the_host_tier_extends_it(x):
    assert x.retention_hbm_s == pytest.approx(x.cache_room_bytes / x.kv_write_bytes_per_s)
    # 2,400 GPUs x 200 GB of host memory = 480 TB, added to the HBM room.
    assert x.host_cache_bytes == pytest.approx(2400 * 200e9)
    assert x.retention_with_host_s == pytest.approx((x.cache_room_bytes + 480e12) / x.kv_write_bytes_per_s)
    # The design's point: HBM alone forgets a conversation before its user's next turn; the tier does not.
    assert x.retention_hbm_s < x.inputs["turn_gap_s"] < x.retention_with_host_s


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
    p, cold = x.d.plan, x.d.variants["no-prefix-cache"]
    warm_load, cold_load = p.replica_seconds_per_s, cold.replica_seconds_per_s
    pct = fmt.pct
    # released at once at the peak: the cold load on the warm fleet's replicas, against the warm load
    assert cold_load > p.replicas  # the fleet cannot carry the cold-cache day
    assert x.cold_day_words == (f"The fleet does not have them. Released everywhere at once at the peak, the "
                                f"napkin's fleet would face {pct(cold_load / p.replicas)} of its capacity "
                                f"instead of {pct(warm_load / p.replicas)}, and the queue grows without limit.")
    # the headroom's spare replicas over the extra load a fully cold fleet carries
    assert x.rollout_cold_share_max == pytest.approx((p.replicas - warm_load) / (cold_load - warm_load))
    # a wave of 10% of the replicas: a tenth of the extra load, in ten waves
    wave = (warm_load + 0.1 * (cold_load - warm_load)) / p.replicas
    assert x.wave_words == f"A wave of 10% of the replicas fits: the fleet runs at {pct(wave)} while the wave warms"
    assert x.rollout_waves == 10


def test_the_rollout_words_follow_the_data():
    p = SimpleNamespace(replicas=100, replica_seconds_per_s=80.0)
    # a cold load of 90 busy replicas on 100: the headroom covers it
    assert page.cold_day_words(p, 90.0).startswith("The headroom covers them, just:")
    assert "run at 90% of its capacity instead of 80%" in page.cold_day_words(p, 90.0)
    assert "face 120% of its capacity instead of 80%" in page.cold_day_words(p, 120.0)
    # a 10% wave against at most 5% cold: it does not fit
    assert page.wave_words(0.1, 0.05, 1.05).startswith("A wave of 10% of the replicas does not: it would ask for 105%")
