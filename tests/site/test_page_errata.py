"""The errata page model (macros/site/pages/errata.py) against figures derived by hand for the
source's setup: Llama-70B (70e9 parameters, BF16, 80 layers, 64 query heads, 8 KV heads, head dim
128) on 4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense), 4e9 B reserve per GPU, 4,096-token
sequences (1,342,177,280 B of KV each), a 2,000-token prompt."""

from __future__ import annotations

import pytest

from macros.site.pages import errata


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
