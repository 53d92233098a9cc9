"""Chapter 5's page model (macros/site/pages/toolkit.py) against figures derived by hand for the anchor:
Llama-70B (70e9 parameters, BF16: 140e9 B; 80 layers; 327,680 B of KV per token) on 4 x H100 (80e9 B,
3.35e12 B/s, 989.4e12 FLOP/s dense BF16, 900e9 B/s NVLink), a 4e9 B reserve per GPU, sequences of
4,096 tokens (1,342,177,280 B of KV); 20 turns of 500 tokens, 4 draft tokens, a 2,000-token and a
100,000-token prompt, a 50e9 B/s NIC."""

from __future__ import annotations

import pytest

from macros.site.pages import toolkit


@pytest.fixture(scope="module")
def q():
    return toolkit.model()


def test_prefix_caching(q):
    # uncached 500 x (1 + ... + 20) = 105,000 tokens, cached 10,000: 10.5x
    assert (q.uncached, q.cached, q.cache_gain) == (105_000, 10_000, 10.5)
    # compute-bound on 4 x 989.4e12: 2 x 70e9 x 105,000 = 1.47e16 FLOP -> 3.714 s; 1.4e15 -> 0.354 s
    assert q.uncached_prefill_s == pytest.approx(1.47e16 / 3.9576e15)
    assert q.cached_prefill_s == pytest.approx(1.4e15 / 3.9576e15)
    # the last turn's 10,000-token prefix: 3,276,800,000 B, 2.44 sequences of 4,096 tokens
    assert q.last_prefix_kv == 3_276_800_000
    assert q.last_prefix_in_sequences == pytest.approx(3_276_800_000 / 1_342_177_280)
    # reloading it from host memory, a quarter per GPU over PCIe at 64e9 B/s: 819.2e6 / 64e9 = 12.8 ms,
    # against prefilling 10,000 tokens: 2 x 70e9 x 10,000 / 3.9576e15 = 0.354 s
    assert q.prefix_reload_s == pytest.approx(3_276_800_000 / 4 / 64e9)
    assert q.prefix_prefill_s == pytest.approx(1.4e15 / 3.9576e15)


# The anchor's per-token FLOPs at 4,096 tokens: 2 x 70e9 plus attention 4 x 80 x 64 x 128 x 4,096
ATTN_4K = 4 * 80 * 64 * 128 * 4096  # 10,737,418,240
F_4K = 140e9 + ATTN_4K
KV_4K = 1_342_177_280
BALANCE = 989.4 / 3.35


def test_speculative_decoding(q):
    # balance 989.4 / 3.35 = 295.34: batch 1 leaves 1 - 1 / 295.34 = 99.66% idle
    assert q.idle_at_batch_one == pytest.approx(1 - 3.35 / 989.4)
    # 4 drafts verify 5 tokens over one weight read and one KV read: b x 5 x F / 295.34 = 140e9 + b x KV
    # at b = 140e9 / (5 x 150.74e9 / 295.34 - 1.342e9) = 115.7, below the max batch of 122
    assert q.spec_break_even == pytest.approx(140e9 / (5 * F_4K / BALANCE - KV_4K))
    assert q.spec_break_even == pytest.approx(115.73, abs=0.01)
    # one quantity, one figure: the problem quotes the anchor's break-even from the same computation
    assert q.problems.spec_anchor.spec_break_even == q.spec_break_even
    # the old weights-only rule gave 295.34 / 5 = 59.07
    assert q.spec_ceiling_weights_only == pytest.approx(989.4 / 3.35 / 5)
    # at 122: intensity 122 F / (140e9 + 122 KV) = 60.5 FLOP/B, 79.5% idle; verifying is 5 x 60.5 / 295.34
    # = 1.025 times the plain step
    intensity = 122 * F_4K / (140e9 + 122 * KV_4K)
    assert q.spec_idle == pytest.approx(1 - intensity / BALANCE)
    assert q.spec_verify_step_ratio == pytest.approx(5 * intensity / BALANCE)
    # at 32,768 tokens: KV 10,737,418,240 B a sequence, 164e9 / it -> 15 sequences; F = 140e9 + 85.9e9;
    # verification leaves 1 - 5 x 15 F / (140e9 + 15 KV) / 295.34 = 80.9% idle, and never turns compute-bound
    kv_32k, f_32k = 10_737_418_240, 140e9 + 8 * ATTN_4K
    assert q.spec_long.s.batch == 15
    assert q.spec_long.spec_verify_idle == pytest.approx(1 - 5 * 15 * f_32k / (140e9 + 15 * kv_32k) / BALANCE)
    assert q.spec_long.spec_break_even == float("inf")


def test_quantization(q):
    # weights 140e9, 70e9 B, and INT4 with its group-128 FP16 scale and 4-bit zero point:
    # 70e9 x (4 + 20 / 128) / 8 B = 70e9 x 0.51953125 = 36.367e9 B; budgets 320e9 - weights - 16e9
    # over 1,342,177,280 B: 164e9 -> 122, 234e9 -> 174, 267.63e9 -> 199 sequences
    rows = [(r.name, r.full.weight_bytes, r.full.max_batch) for r in q.quantization_rows]
    assert rows == [("BF16", 140e9, 122), ("FP8", 70e9, 174), ("INT4 (group 128)", 70e9 * 0.51953125, 199)]
    # batch 1 in BF16: (140e9 + 1,342,177,280) / 13.4e12 = 10.55 ms
    assert q.quantization_rows[0].one.decode_step_s == pytest.approx(141_342_177_280 / 13.4e12)
    # an FP8 cache on BF16 weights: 164e9 / 671,088,640 -> 244
    assert q.s_kv8.max_batch == 244
    # FP4 blocks: MXFP4 is 32 four-bit values and one 8-bit scale, 4 + 8/32 = 4.25 bits per value;
    # NVFP4 is 16 values and one 8-bit FP8 scale, 4 + 8/16 = 4.5 bits
    mx, nv = q.fp4_formats.mxfp4, q.fp4_formats.nvfp4
    assert (mx.block_size, mx.scale_bits, mx.bits_per_value) == (32, 8, 4.25)
    assert (nv.block_size, nv.scale_bits, nv.bits_per_value) == (16, 8, 4.5)


def test_parallelism(q):
    # 80 layers over 4 stages: 1-20, 21-40; an NVL72 rack holds 72 x 186e9 = 13.392e12 B of HBM
    assert (q.stage_layers, q.second_stage_first, q.second_stage_last) == (20, 21, 40)
    assert (q.nvlink_node, q.nvlink_rack) == (8, 72)
    assert q.rack_memory == pytest.approx(13.392e12)
    # two all-reduces per layer: 2 x 80 = 160 per step; at batch 122 on 4 GPUs, 450 GB/s each way and
    # 5 us per collective: (2 x 3/4 x 122 x 8,192 x 2 B / 450e9 + 5 us) x 160 = 1.866 ms
    assert q.allreduces_per_step == 160
    assert q.s.tp_allreduce_s == pytest.approx(1.866e-3, rel=1e-3)
    # TP across a 72-GPU rack with 8 KV heads holds each head 72 / 8 = 9 times
    assert q.rack_kv_copies == 9


def test_disaggregation(q):
    # 4 x H200: 564e9 - 140e9 - 16e9 = 408e9 B -> 303 sequences; 4.8 / 3.35 - 1 = 43.3% more bandwidth
    assert q.s_decode.max_batch == 303
    assert q.decode_bandwidth_gain == pytest.approx(4.8 / 3.35 - 1)
    # KV of 2,000 tokens 655,360,000 B; of 100,000 tokens 32,768,000,000 B. Each of the 4 GPUs holds a
    # quarter and sends it over its own 50e9 B/s NIC: 3.28 ms, 0.164 s; over its own NVLink at 450e9 B/s,
    # one direction: 0.364 ms
    assert q.prompt_kv_per_gpu == 163_840_000
    assert q.prompt_kv_network_s == pytest.approx(655_360_000 / 4 / 50e9)
    assert q.long_kv_network_s == pytest.approx(32_768_000_000 / 4 / 50e9)
    assert q.prompt_kv_nvlink_s == pytest.approx(655_360_000 / 4 / 450e9)


# The problems: other models and GPUs. H200: 141e9 B, 4.8e12 B/s, the H100's 989.4e12 FLOP/s.
H200_BALANCE = 989.4 / 4.8  # 206.125


def test_problem_speculation_on_h200(q):
    p = q.problems
    # 4 x H200: 564e9 - 140e9 - 16e9 = 408e9 B over 1,342,177,280 B -> 303 sequences
    assert p.spec.s.max_batch == 303
    # 140e9 / (5 x 150.74e9 / 206.125 - 1.342e9) = 140e9 / (3.6565e9 - 1.3422e9) = 60.49
    assert p.spec.flops_per_token == F_4K
    assert p.spec.spec_break_even == pytest.approx(140e9 / (5 * F_4K / H200_BALANCE - KV_4K))
    assert p.spec.spec_break_even == pytest.approx(60.49, abs=0.01)
    assert p.verified_tokens == 5
    # at 303 the verification step is compute-bound: 5 x 303 F / 3.9576e15 against the plain step's
    # (140e9 + 303 x KV) / 19.2e12
    verify = 5 * 303 * F_4K / (4 * 989.4e12)
    plain = (140e9 + 303 * KV_4K) / (4 * 4.8e12)
    assert p.spec.spec_verify_step_ratio == pytest.approx(verify / plain)
    assert p.spec_anchor.spec_break_even == pytest.approx(q.spec_break_even)


def test_problem_conversation_on_l4(q):
    p = q.problems
    # Llama-3.1-8B: 8,030,261,248 parameters, 16,060,522,496 B in BF16; L4 24e9 B, 300e9 B/s, 121e12 FLOP/s
    assert p.chat.weight_bytes == 2 * 8_030_261_248
    assert p.chat.kv_budget_bytes == pytest.approx(24e9 - 16_060_522_496 - 4e9)
    # 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B a token; 4,096 tokens 536,870,912 B -> 7 sequences
    assert p.chat.max_batch == 7
    # 2 x 8.03e9 x 105,000 / 121e12 = 13.94 s; 10,000 tokens: 1.327 s (compute-bound)
    assert p.chat_uncached_s == pytest.approx(2 * 8_030_261_248 * 105_000 / 121e12)
    assert p.chat_cached_s == pytest.approx(2 * 8_030_261_248 * 10_000 / 121e12)
    # the 10,000-token prefix: 1,310,720,000 B, a third of 3,939,477,504 B
    assert p.chat_prefix_kv == 131_072 * 10_000
    assert p.chat_prefix_share == pytest.approx(1_310_720_000 / 3_939_477_504)


def test_problem_tp_against_ep(q):
    p = q.problems
    # DeepSeek-V3 FP8: 671e9 B; MLA KV 61 x (512 + 64) x 2 B = 70,272 B a token, 287,834,112 B a sequence
    seq = 70_272 * 4096
    # TP: 8 x 141e9 - 671e9 - 32e9 = 425e9 B over 8 copies: 184.6 -> 184
    assert p.moe_tp.kv_budget_bytes == pytest.approx(425e9)
    assert p.moe_tp.max_batch == int(425e9 // (8 * seq)) == 184
    # DP attention: about 11.4e9 attention parameters copied on the 7 other ranks
    per_rank_attention = p.moe_attention_held / 7
    assert per_rank_attention == pytest.approx(11.4e9, rel=0.01)
    budget = 8 * 141e9 - 671e9 - 7 * per_rank_attention - 32e9
    assert p.moe_dp.max_batch == 8 * int(budget / 8 // seq) == 1192
    assert p.moe_batch_gain == pytest.approx(1192 / 184)


def test_problem_mla_transfer(q):
    p = q.problems
    # 2,000 tokens x 70,272 B = 140,544,000 B against 655,360,000 B: 4.66x; over one 50e9 B/s link: 2.81 ms
    assert p.mla_kv == 140_544_000
    assert p.mla_kv_saving == pytest.approx(655_360_000 / 140_544_000)
    assert p.mla_kv_network_s == pytest.approx(140_544_000 / 50e9)


def test_one_break_even_everywhere(q):
    # chapters 2.6 and 5.2 and chapter 5's problem quote the anchor's speculative break-even: one quantity, one
    # computation, shown to the same three figures on every page (116, not 120 in one place and 116 in another)
    from macros.site.pages import roofline

    assert roofline.model().spec_break_even == q.spec_break_even == q.problems.spec_anchor.spec_break_even
    import pathlib

    docs = pathlib.Path(__file__).resolve().parents[2] / "docs"
    quoted = [line for name in ("guide/roofline.md", "guide/toolkit.md", "questions.md", "errata.md")
              for line in (docs / name).read_text().splitlines() if "spec_break_even |" in line]
    # the anchor's (q.spec_break_even, p.spec_anchor...) at three figures; the H200 problem's (p.spec.) is another
    anchor_quotes = [line for line in quoted if "p.spec." not in line]
    assert anchor_quotes and all("spec_break_even | num(3)" in line for line in anchor_quotes)
