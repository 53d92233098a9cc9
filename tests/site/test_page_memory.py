"""Chapter 3's page model (macros/site/pages/memory.py) against figures derived by hand for the anchor:
Llama-70B (70e9 parameters, BF16: 140e9 B; 80 layers, 64 query heads, 8 KV heads of 128: 327,680 B of
KV per token) on 4 x H100 (80e9 B each, 85,520,809,984 B visible, 3.35e12 B/s), a 4e9 B reserve per
GPU, sequences of 4,096 tokens (1,342,177,280 B of KV)."""

from __future__ import annotations

import pytest

from macros.site.pages import memory


@pytest.fixture(scope="module")
def q():
    return memory.model()


def test_weights_and_groups(q):
    # 140e9 B over 80e9 B per GPU: at least 2 GPUs
    assert q.min_gpus == 2
    # budgets: 2 GPUs 160e9 - 140e9 - 8e9 = 12e9 -> 8 sequences; 4: 164e9 -> 122; 8: 468e9 -> 348
    assert [(r.s.gpus, r.s.max_batch) for r in q.groups] == [(2, 8), (4, 122), (8, 348)]
    assert [r.weight_per_gpu for r in q.groups] == [70e9, 35e9, 17.5e9]


def test_kv_shares_of_one_gpu(q):
    # 128,000 tokens x 327,680 B = 41,943,040,000 B: 52.4% of 80e9, 49.0% of the 85.52e9 visible
    assert q.kv_long == 41_943_040_000
    assert q.share_long == pytest.approx(0.524288)
    assert q.share_long_visible == pytest.approx(41_943_040_000 / 85_520_809_984)
    # one token: 327,680 / 80e9 = 0.0004096%
    assert q.share_token == pytest.approx(4.096e-6)


def test_attention_designs_against_the_budget(q):
    # MHA 2 x 80 x 64 x 128 x 2 = 2,621,440 B/token (8x GQA); MQA 2 x 80 x 1 x 128 x 2 = 40,960 B.
    # At 4,096 tokens in 164e9 B: MHA 164e9 / 10,737,418,240 = 15.3 -> 15; GQA 122;
    # MQA 164e9 / 167,772,160 = 977.5 -> 977
    assert q.mha_over_gqa == 8 and q.queries_per_kv_head == 8
    assert [(r.label, r.per_token, r.max_batch) for r in q.attention_rows] == [
        ("MHA", 2_621_440, 15), ("GQA (this model)", 327_680, 122), ("MQA", 40_960, 977)]


def test_the_source_slips(q):
    # step bytes 140e9 + 122 x 1,342,177,280 = 303,745,628,160 B over one GPU: 90.67 ms, 4x the floor;
    # 122 / 90.67 ms = 1,345.5 tokens/s in aggregate, 11.03 per user
    assert q.single_gpu_step_s == pytest.approx(303_745_628_160 / 3.35e12)
    assert q.single_gpu_slowdown == pytest.approx(4)
    assert q.single_gpu_tokens_per_s == pytest.approx(122 * 3.35e12 / 303_745_628_160)
    # decimal budget over the binary size read as decimal: 164 / 1.25 = 131.2 -> 131
    assert q.max_batch_mixed_units == 131


def test_per_user_sanity_range(q):
    # floor per user 4 x 3.35e12 / 303,745,628,160 = 44.11 tokens/s; measured 1.7-2.2x slower: 20.05-25.95
    per_user = 13.4e12 / 303_745_628_160
    assert q.per_user_measured_low == pytest.approx(per_user / 2.2)
    assert q.per_user_measured_high == pytest.approx(per_user / 1.7)
    # twice the context halves the batch: 164e9 / 2,684,354,560 = 61.1 -> 61
    assert q.s_long.max_batch == 61


def test_kv_against_weights_at_the_max_batch(q):
    # 122 x 1,342,177,280 = 163,745,628,160 B of KV against 140e9 B of weights: 1.17x
    assert q.kv_over_weights == pytest.approx(163_745_628_160 / 140e9)


# --- the problems: other models and GPUs, every figure derived by hand -------------------------------


def test_problem_an_8b_on_an_l4(q):
    # Llama-3.1-8B: 8,030,261,248 x 2 B = 16,060,522,496 B; L4 24e9 B - that - 4e9 = 3,939,477,504 B;
    # KV 2 x 32 x 8 x 128 x 2 = 131,072 B/token, x 4,096 = 536,870,912 B; 3.94e9 / 0.537e9 = 7.34 -> 7
    s = q.problems.small
    assert (s.weight_bytes, s.kv_budget_bytes) == (16_060_522_496, 3_939_477_504)
    assert (s.kv_bytes_per_token, s.kv_bytes_per_seq, s.max_batch) == (131_072, 536_870_912, 7)


def test_problem_fp8_kv_on_two_h200s(q):
    # 2 x 141e9 - 140e9 - 2 x 4e9 = 134e9 B; BF16 KV 1,342,177,280 B -> 99.8 -> 99 sequences;
    # FP8 KV 671,088,640 B -> 199.7 -> 199, 2.01x; at its max batch each step reads about the same bytes,
    # so throughput doubles too: 199 / (140e9 + 199 x 671,088,640) against 99 / (140e9 + 99 x 1,342,177,280)
    p = q.problems
    assert p.bf16.kv_budget_bytes == 134e9
    assert (p.bf16.max_batch, p.fp8.max_batch) == (99, 199)
    assert p.fp8_gain == pytest.approx(199 / 99)
    bf16_bytes, fp8_bytes = 140e9 + 99 * 1_342_177_280, 140e9 + 199 * 671_088_640
    assert p.fp8_throughput_gain == pytest.approx((199 / fp8_bytes) / (99 / bf16_bytes), rel=1e-3)


def test_problem_mla_tp_against_dp_attention(q):
    # DeepSeek-V3 KV 61 x (512 + 64) x 2 B = 70,272 B/token, x 4,096 = 287,834,112 B. FP8 weights 671e9 B.
    # tp: 8 copies of the latent; budget 8 x 141e9 - 671e9 - 32e9 = 425e9; 425e9 / (8 x 287,834,112) = 184.6
    p = q.problems
    assert p.tp.kv_bytes_per_seq == 287_834_112 and p.tp.kv_copies == 8
    assert (p.tp.kv_budget_bytes, p.tp.max_batch) == (425e9, 184)
    # dp-attention: MLA attention per layer 7168 x 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 x 128 x 256
    # + 128 x 128 x 7168 = 187,105,280 params, x 61 = 11,413,422,080 (FP8: bytes) on each of 7 more ranks:
    # held 671e9 + 7 x 11,413,422,080 = 750,893,954,560; budget 1,128e9 - that - 32e9 = 345,106,045,440,
    # per rank 43,138,255,680 / 287,834,112 = 149.9 -> 149, x 8 = 1,192
    assert p.dp.weight_bytes_held == 750_893_954_560
    assert p.dp.kv_budget_bytes == 345_106_045_440
    assert p.dp.max_batch == 1192
    assert p.dp_gain == pytest.approx(1192 / 184)


def test_problem_gqa_against_mha(q):
    # 8B on one H100: 80e9 - 16,060,522,496 - 4e9 = 59,939,477,504 B; GQA 536,870,912 B -> 111.6 -> 111;
    # MHA 2 x 32 x 32 x 128 x 2 = 524,288 B/token (4x), x 4,096 = 2,147,483,648 B -> 27.9 -> 27
    p = q.problems
    assert p.gqa.max_batch == 111
    assert (p.mha_per_token, p.mha_per_seq, p.mha_max_batch) == (524_288, 2_147_483_648, 27)
    assert p.mha_over_gqa == 4


def test_problem_when_the_cache_outweighs_the_weights(q):
    # 8B on an H100: 16,060,522,496 / 536,870,912 = 29.9, so from 30 sequences; at 111 the cache is
    # 111 x 536,870,912 = 59,592,671,232 B, 3.71x the weights
    c = q.problems.cross_small
    assert c.batch == pytest.approx(16_060_522_496 / 536_870_912)
    assert (c.first, c.reached) == (30, True)
    assert c.kv_over_weights == pytest.approx(59_592_671_232 / 16_060_522_496)
    # DeepSeek-V3, dp-attention: 750,893,954,560 / 287,834,112 = 2,608.8, beyond the max batch of 1,192;
    # at 1,192 the cache is 343,098,261,504 B, 0.457x the weights held
    c = q.problems.cross_mla
    assert c.batch == pytest.approx(750_893_954_560 / 287_834_112)
    assert (c.first, c.reached) == (2609, False)
    assert c.kv_at_max == 1192 * 287_834_112


def test_the_claims_beside_the_budget(q):
    # 327,680 B x 128,000 = 41.94e9 B over 80e9 B: 52.4%, about half of one H100
    assert q.long_share_words == "about half of one H100 SXM"
    # 140e9 B of weights do not fit 80e9 B; at batch 122 the cache holds 122 x 1,342,177,280 = 163.7e9 B > 140e9
    assert q.fits_one_gpu.holds and q.cache.outweighs and q.cache.headline == "The KV cache outweighs the weights."
    # FP8 KV: 1 byte against BF16's 2, half as much
    assert q.problems.fp8_share_words == "half as much"


def test_the_cache_against_the_weights_follows_the_data():
    # 4 x 64 GB = 256e9 B, less 140e9 B of weights and 4 x 4e9 B of reserve: 100e9 B of budget, so
    # floor(100e9 / 1,342,177,280) = 74 sequences hold 99.3e9 B of cache, less than the 140e9 B of weights.
    from dataclasses import replace

    from macros.engine.model.scenario import get_gpu, scenario
    from macros.site.pages._shared import cache_against_weights

    small = replace(get_gpu("h100"), memory_bytes=64e9)
    s = scenario("llama-70b", small, gpus=4)
    assert s.max_batch == 74
    words = cache_against_weights(s)
    assert not words.outweighs and words.against == "less than"
    assert words.headline == "Even at the max batch the weights outweigh the KV cache."


def test_parameters_counted_from_the_config():
    c = memory.config_count()
    # Llama-3.1-70B: d 8,192, 64 query heads and 8 KV heads of 128, d_ff 28,672, V 128,256, 80 layers, untied.
    # Per layer: q and o 8,192 x 8,192 = 67,108,864 each, k and v 8,192 x 1,024 = 8,388,608 each: 150,994,944;
    # MLP 3 x 8,192 x 28,672 = 704,643,072; norms 2 x 8,192 = 16,384; 855,654,400 a layer, 68,452,352,000 for 80.
    assert (c.q_proj, c.kv_proj, c.o_proj) == (67_108_864, 8_388_608, 67_108_864)
    assert c.attention_per_layer == 150_994_944
    assert c.mlp_matrix == 234_881_024  # 8,192 x 28,672, each of gate, up and down
    assert c.mlp_per_layer == 704_643_072
    assert c.norms_per_layer == 16_384
    assert c.layer_total == 855_654_400
    assert c.layers_total == 68_452_352_000
    # embedding and the untied head 128,256 x 8,192 = 1,050,673,152 each, a final norm of 8,192:
    # 68,452,352,000 + 2 x 1,050,673,152 + 8,192 = 70,553,706,496, models.toml's figure
    assert c.count.embedding == c.count.lm_head == 1_050_673_152
    assert c.count.total == 70_553_706_496
    assert c.matches_catalog.holds
    # MLPs 80 x 704,643,072 = 56,371,445,760 of the total: 79.9%
    assert c.mlp_share == pytest.approx(56_371_445_760 / 70_553_706_496)
    assert c.mostly_mlp.holds


def test_the_sites_config_is_the_tested_fixture():
    # macros/data/configs/llama-3.1-70b.json is a copy of the engine tests' fixture: they must not drift apart
    here = memory.CONFIG.read_bytes()
    fixture = (memory.CONFIG.parents[3] / "tests" / "engine" / "fixtures" / "configs" / memory.CONFIG.name)
    assert here == fixture.read_bytes()
