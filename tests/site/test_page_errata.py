"""The errata page model (macros/site/pages/errata.py) against figures derived by hand for the
source's setup: Llama-70B (70e9 parameters, BF16, 80 layers, 64 query heads, 8 KV heads, head dim
128) on 4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense), 4e9 B reserve per GPU, 4,096-token
sequences (1,342,177,280 B of KV each), a 2,000-token prompt."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.lookup import get_gpu, get_model
from macros.engine.model.scenario import scenario
from macros.site.assumptions import Assumption
from macros.site.pages import errata
from macros.site.pages._shared import gpu_share_words, orders_of_magnitude
from macros.site.pages.errata_checks import diagnoses, reproduces
from macros.text import fmt


@pytest.fixture(scope="module")
def q():
    return errata.model()


def test_the_one_fact_on_one_gpu(q):
    # 1.4e11 FLOP / 989.4e12 = 0.1415 ms; 41.79 ms of weight reads over it: 295.3x (not three orders)
    assert q.decode_compute_one_gpu_s == pytest.approx(1.4e11 / 989.4e12)
    assert q.memory_over_compute_one_gpu == pytest.approx(989.4 / 3.35)
    # the source's own 42 ms and 0.07 ms would give 600x
    assert q.source_memory_over_compute == pytest.approx(600)
    # 2,000 / 295.34 = 6.772: rounds to 6.8, not the source's 6.7
    assert q.prompt_over_balance == pytest.approx(6.772, rel=1e-3)


def test_memory_budget_units(q):
    # 327,680 B x 128,000 = 41.94e9 B, 52.4% of an 80e9 B H100
    assert q.kv_long == 327_680 * 128_000
    assert q.kv_long_share_of_gpu == pytest.approx(41.94304e9 / 80e9)
    # MHA: 2 x 80 x 64 x 128 x 2 B = 2,621,440 B per token, 8x GQA's; x 4,096 = 10.7e9 B
    assert q.mha_kv_per_token == 2_621_440
    assert q.mha_over_gqa == 8
    assert q.mha_kv_per_seq == 2_621_440 * 4096
    # read in binary: 4 x 80 GiB - 140e9 - 4 x 4 GiB = 186,417,514,496 B / 1,342,177,280 = 138.9 -> 138
    assert q.max_batch_binary == 138
    assert q.anchor.max_batch == 122 and q.double_context.max_batch == 61  # 164e9 / 2,684,354,560 = 61.1


def test_spread_swap_and_long_prompt(q):
    # (100,000 + 4,000) / (20 + 5) = 4,160
    assert q.request_token_spread == pytest.approx(4160)
    # out and back over 64e9 B/s: 2 x 1,342,177,280 / 64e9 = 41.94 ms
    assert q.swap_round_trip_s == pytest.approx(2 * 1_342_177_280 / 64e9)
    # 327,680 x 100,000 = 32.768e9 B of a 164e9 B budget
    assert q.long_prompt_budget_share == pytest.approx(32.768e9 / 164e9)
    # chapter 7.3 on the group: 140e9 / 13.4e12 = 10.45 ms and 1.4e11 / 3.9576e15 = 0.0354 ms
    assert q.token_memory_group_s == pytest.approx(140e9 / 13.4e12)
    assert q.token_compute_group_s == pytest.approx(1.4e11 / 3.9576e15)


def test_the_source_setup_does_not_follow_the_shared_inputs(q, monkeypatch):
    # The errata correct the source's arithmetic: changing the guide's anchor and worked prompt in
    # workloads.toml must leave the corrections on the source's own setup.
    changed = {**errata.workloads(), "model": "llama-3.1-8b", "gpu": "h200", "gpus": 1, "prompt_tokens": 500}
    monkeypatch.setattr(errata, "workloads", lambda: changed)
    again = errata.model()
    assert (again.anchor.model, again.anchor.gpu, again.anchor.gpus) == ("llama-70b", "h100", 4)
    assert again.prompt_tokens == 2000 and again.prompt.seq_len == 2000
    assert again.request_token_spread == q.request_token_spread


def test_site_corrections():
    """The guide's own earlier figures against today's, derived by hand for the anchor (70B, 4 x H100)."""
    from macros.site.pages import errata

    c = errata.model().site
    # before: the balance 989.4 / 3.35 over k + 1 = 5 -> 59.07; now the KV read shared:
    # 140e9 / (5 x (140e9 + 4 x 80 x 64 x 128 x 4,096) / 295.34 - 1,342,177,280) = 115.7
    assert c.spec_ceiling_weights_only == pytest.approx(989.4 / 3.35 / 5)
    assert c.spec_break_even == pytest.approx(140e9 / (5 * (140e9 + 10_737_418_240) / (989.4 / 3.35) - 1_342_177_280))
    # 655,360,000 B (2,000 tokens) and 32,768,000,000 B (100,000) over one 50e9 B/s NIC: 13.1 ms, 0.655 s;
    # a quarter per GPU: 3.28 ms, 0.164 s. NVLink: 900e9 both ways then, 450e9 one way for a quarter now
    assert (c.old_prompt_network_s, c.old_long_network_s) == pytest.approx((655_360_000 / 50e9, 32_768_000_000 / 50e9))
    assert (c.prompt_network_s, c.long_network_s) == pytest.approx((655_360_000 / 4 / 50e9, 32_768_000_000 / 4 / 50e9))
    assert (c.old_prompt_nvlink_s, c.prompt_nvlink_s) == pytest.approx((655_360_000 / 900e9, 655_360_000 / 4 / 450e9))


def test_corrections_to_this_guide(q):
    c = q.site
    # The quoted earlier figures stay as they were written
    assert (c.before.prompt_prefill_s, c.before.llama405_max_batch, c.before.dsv3_max_batch) == (0.0707, 191, 1476)
    # 2,000-token prefill on 4 x H100, attention now in: 2 x 70e9 x 2,000 = 2.8e14 plus causal attention
    # 2 x 80 x 64 x 128 x 2,000 x 2,001 = 5.2455e12; 2.85245e14 / (4 x 989.4e12) = 72.07 ms (was 70.75 ms)
    assert c.prompt.prefill_s == pytest.approx((2.8e14 + 1_310_720 * 2000 * 2001) / (4 * 989.4e12))
    # 405B on 16 x H100: 8 KV heads on 16 ranks, 2 copies, 95 sequences; DeepSeek-V3 FP8 on 8 x H200: the
    # latent held 8 times, 184; one copy under DP attention, 1,192 (both derived in test_page_parallelism)
    assert (c.llama405.kv_copies, c.llama405.max_batch) == (2, 95)
    assert (c.dsv3_tp.max_batch, c.dsv3_dp.max_batch) == (184, 1192)
    # TPU links per direction: half the two-way figures the site printed before
    assert c.tpu_v5e.interconnect_bytes_per_s == c.before.tpu_v5e_link_bytes_per_s / 2 == 200e9
    assert c.tpu_v5p.interconnect_bytes_per_s == c.before.tpu_v5p_link_bytes_per_s / 2 == 600e9
    # INT4 in groups of 128 with a 16-bit scale and a 4-bit zero point: (4 + 20 / 128) / 8 = 0.5195 B per
    # weight, not 0.5; the anchor's weights 70e9 x 0.5195 = 36.37 GB
    assert c.int4_bytes_per_weight == pytest.approx((4 + 20 / 128) / 8)
    assert c.int4_anchor.weight_bytes == pytest.approx(70e9 * (4 + 20 / 128) / 8)
    # two all-reduces per layer, 80 layers
    assert c.allreduces_per_step == 160
    # swap 2 x 1,342,177,280 B / 64e9 = 41.9 ms against a 150.5 ms recompute
    assert c.swap_round_trip_s == pytest.approx(2 * 1_342_177_280 / 64e9)
    assert c.swap_speedup == pytest.approx(3.587, rel=1e-3)


def test_the_source_is_quoted_from_its_text(q):
    # study guide §3.5: "KV per sequence = 320 KB × 4096 = 1.25 GB", "Max batch = 164 / 1.25 ≈ 131 ..."
    assert q.quote.kv_per_seq == "1.25 GB"
    assert q.quote.max_batch == "Max batch = 164 / 1.25 ≈ 131 concurrent sequences"
    assert q.quote.floor == "time = 304 / […] = 91 ms"


def test_each_diagnosis_holds_on_todays_data(q):
    assert all(fact.holds for fact in vars(q.check).values() if isinstance(fact, Assumption))
    assert q.h200_direction.holds
    # 295.3x is 10^2.47: to the nearest half order, two and a half
    assert q.check.orders_words == "about two and a half orders of magnitude"
    # 44.1 tokens/s per user at the 22.7 ms floor against the source's 11: 4.0x, a quarter
    assert q.check.per_user_share == "a quarter of"
    assert q.check.half_h100_row == '"Half an H100" still holds, roughly.'  # 52.4% and 49.0% visible
    assert q.check.a_fifth == '"A fifth" is right in decimal.'  # 32.77e9 / 164e9 = 20.0%


def test_more_layers_break_the_units_diagnoses(q):
    # 96 layers: KV 2 x 96 x 8 x 128 x 2 = 393,216 B per token (384 KiB, not the source's 320), 1.5 GiB per
    # 4,096-token sequence (not 1.25), and the source's 164 GB over 1.5 gives 109 sequences, not 131.
    model = dataclasses.replace(get_model("llama-70b"), layers=96)
    s = scenario(model, "h100", gpus=4, seq_len=4096)
    figures = {**vars(q), "anchor": s}
    check = diagnoses(figures, q.source)
    assert not check.kv_token.holds and not check.kv_seq.holds and not check.mixed_units.holds
    assert check.kv_seq.evidence == "KV per 4,096-token sequence: 1.5 GiB today, the source printed 1.25 GB"
    assert check.mixed_units.evidence == ("the source's 164 GB over the per-sequence size in GiB: 109 sequences "
                                          "today, the source printed 131")
    # The source's method (304 GB over its H100's 3.35 TB/s = 90.7 ms, about 91) does not involve the layers.
    assert check.one_gpu.holds


def test_a_spec_change_leaves_the_method_diagnoses_alone(q):
    # The H100's bandwidth at 2 TB/s: the floor per user is 2/3.35 of 44.1 = 26.3 tokens/s, 2.4x the source's
    # 11, so the share is said as it is (41.8%); the source's own arithmetic (its 3.35 TB/s) still gives 91 ms.
    gpu = dataclasses.replace(get_gpu("h100"), bandwidth_bytes_per_s=2e12)
    s = scenario("llama-70b", gpu, gpus=4, seq_len=4096)
    check = diagnoses({**vars(q), "anchor": s, "gpu": gpu}, q.source)
    assert check.one_gpu.holds and check.one_gpu_73.holds
    assert check.per_user_share == f"{fmt.pct(11 / s.decode_tokens_per_s_per_user, 2)} of"
    assert 11 / s.decode_tokens_per_s_per_user == pytest.approx(11 / (1 / 0.0227 * 2 / 3.35), rel=0.01)


@pytest.mark.parametrize(("value", "printed", "digit", "holds"), [
    (90.7e-3, 91e-3, 1e-3, True),  # 90.7 ms prints as 91
    (90.4e-3, 91e-3, 1e-3, False),  # 90.4 ms prints as 90
    (30.52, 31, 1, True), (1.5, 1.25, 0.01, False),
])
def test_reproduces_is_to_the_digits_printed(value, printed, digit, holds):
    assert reproduces(value, printed, digit) is holds


@pytest.mark.parametrize(("ratio", "words"), [(295.3, "about two and a half orders of magnitude"),
                                              (147.7, "about two orders of magnitude"),
                                              (1000, "about three orders of magnitude")])
def test_orders_of_magnitude(ratio, words):
    # log10: 2.47 -> 2.5, 2.17 -> 2.0, 3.0
    assert orders_of_magnitude(ratio) == words


@pytest.mark.parametrize(("share", "words"), [(0.524, "about half a GPU"), (0.655, "most of a GPU"),
                                              (0.3, "a fraction of a GPU"), (1.2, "more than a GPU")])
def test_gpu_share_words(share, words):
    assert gpu_share_words(share) == words
    assert gpu_share_words(0.524, "one H100 SXM") == "about half of one H100 SXM"


def test_a_sentence_on_several_facts_breaks_with_any_of_them(q):
    # more layers break the per-token, per-sequence and long-conversation sizes at once: one report, three figures
    model = dataclasses.replace(get_model("llama-70b"), layers=96)
    check = diagnoses({**vars(q), "anchor": scenario(model, "h100", gpus=4, seq_len=4096),
                       "kv_long": 393_216 * 128_000}, q.source)
    assert not check.three_sizes.holds
    assert check.three_sizes.evidence.count("today, the source printed") == 3
    assert q.check.three_sizes.holds and q.check.both_seq.holds and q.check.sparse_times.holds
