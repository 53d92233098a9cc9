"""KV placement, attention FLOPs and the terms beside the floor (the formula contract, ARCHITECTURE.md), against values
derived by hand in each test: how frontier models are actually laid out on a replica."""

from __future__ import annotations

import pytest

from macros.engine import formulas as f
from macros.engine.model.scenario import InputError, scenario


def test_kv_copies_per_layout():
    # TP: a rank holds whole KV heads. 8 KV heads on 4 ranks: each holds 2, one copy in all.
    assert f.kv_copies("tp", 4, 8, False) == 1
    # 8 KV heads on 16 ranks: each head lives on 16 / 8 = 2 ranks, two copies of every sequence.
    assert f.kv_copies("tp", 16, 8, False) == 2
    # An MLA latent is shared by every head: all 8 ranks hold the whole latent.
    assert f.kv_copies("tp", 8, 128, True) == 8
    # Data-parallel attention: a sequence lives on one rank.
    assert f.kv_copies("dp-attention", 8, 128, True) == 1


def test_405b_on_16_h100_replicates_its_kv_heads():
    # Weights 405,853,388,800 x 2 B = 811.71 GB; budget 16 x 80 - 811.71 - 16 x 4 = 404.29 GB.
    # KV per sequence 2 x 126 x 8 x 128 x 2 B x 4,096 = 2,113,929,216 B; two copies = 4.228 GB.
    # 404.29 / 4.228 = 95.6 -> 95 sequences (191 if the heads were split 16 ways).
    s = scenario("llama-3.1-405b", "h100", gpus=16)
    assert (s.kv_copies, s.max_batch) == (2, 95)
    assert s.kv_bytes_per_seq_group == 2 * 2_113_929_216


def test_deepseek_v3_fp8_on_8_h200_under_tp_holds_the_latent_eight_times():
    # Weights 671e9 x 1 B = 671 GB; budget 8 x 141 - 671 - 8 x 4 = 425 GB.
    # Latent 61 x (512 + 64) x 2 B = 70,272 B per token; x 4,096 = 287.83 MB; x 8 copies = 2.3027 GB.
    # 425 / 2.3027 = 184.6 -> 184 sequences (1,476 if the latent were split 8 ways).
    s = scenario("deepseek-v3", "h200", gpus=8, weights="fp8")
    assert (s.kv_copies, s.max_batch) == (8, 184)


def test_the_anchor_is_unchanged():
    # H_kv = 8 >= g = 4: one copy, so the anchor keeps its 122 sequences and 22.7 ms floor.
    s = scenario("llama-70b", "h100", gpus=4)
    assert (s.kv_copies, s.max_batch) == (1, 122)
    assert s.decode_step_s == pytest.approx(22.668e-3, rel=1e-4)


def test_dp_attention_places_attention_weights_on_every_rank():
    # Held: N w + (g - 1) N_attn w. 100 GB of weights, 10 GB of attention on 8 ranks: 100 + 7 x 10 = 170 GB.
    assert f.weight_bytes_held(100e9, 10e9, 8, "dp-attention") == 170e9
    assert f.weight_bytes_held(100e9, 10e9, 8, "tp") == 100e9
    # Each rank fills its own budget: 8 ranks x floor(43.5 GB / 0.2878 GB) = 8 x 151 = 1,208.
    assert f.max_batch_per_rank(8, 43.5e9, 0.2878e9) == 8 * 151


def test_attention_params():
    # Llama-70B: 80 x (2 x 8,192 x 64 x 128 + 2 x 8,192 x 8 x 128) = 80 x (134,217,728 + 16,777,216)
    # = 80 x 150,994,944 = 12.08e9.
    assert f.attention_params_gqa(80, 8192, 64, 8, 128) == 80 * 150_994_944
    # DeepSeek-V3 per layer: 7,168 x 1,536 = 11,010,048; 1,536 x 128 x 192 = 37,748,736;
    # 7,168 x 576 = 4,128,768; 512 x 128 x 256 = 16,777,216; 128 x 128 x 7,168 = 117,440,512.
    # Sum 187,105,280 x 61 layers = 11.41e9: the "about 11 billion" every rank holds under DP attention.
    assert f.attention_params_mla(61, 7168, 128, 1536, 512, 128, 64, 128) == 61 * 187_105_280


def test_attention_flop_coefficients():
    # GQA (Llama-70B): 4 x 64 x 128 = 32,768 FLOPs per layer per (query, key) pair, decode and prefill.
    assert f.attention_flop_coefficients(64, 128) == (32_768, 32_768)
    # MLA absorbed decode: 2 x 128 x (2 x 512 + 64) = 278,528; decompressed prefill 2 x 128 x (128 + 64 + 128) = 81,920.
    assert f.attention_flop_coefficients(128, 128, 512, 64, 128, 128) == (278_528, 81_920)
    # Per cached token over DeepSeek-V3's 61 layers: 278,528 x 61 = 16.99 MFLOP against 70,272 B of
    # latent read: 241.8 FLOP per byte, above an H200's BF16 balance (989.4e12 / 4.8e12 = 206).
    assert 278_528 * 61 / 70_272 == pytest.approx(241.8, rel=1e-3)


def test_causal_pairs_with_and_without_a_window():
    # No window: 1 + 2 + ... + 10 = 55. Window 4: 1 + 2 + 3 + 4 x 7 = 34.
    assert f.causal_pairs(10) == 55
    assert f.causal_pairs(10, 4) == 34
    # A window at least the prompt length changes nothing.
    assert f.causal_pairs(10, 64) == 55
    # Prefill over 3 layers, 1 windowed (w = 4), n = 10, coefficient 2: 2 x (2 x 55 + 34) = 288.
    assert f.attention_flops_prefill(2, 3, 10, 1, 4) == 288


def test_windowed_layers_attend_to_their_window_in_decode():
    # Gemma-2-27B at 8,192 tokens: 46 layers, 23 with a 4,096-token window; 32 heads x 128 dims.
    # Attended tokens 23 x 8,192 + 23 x 4,096 = 282,624; x 4 x 32 x 128 = 16,384 = 4.631 GFLOP.
    s = scenario("gemma-2-27b", "h100", gpus=1, seq_len=8192, batch=1)
    assert s.decode_attention_flops == 282_624 * 16_384


def test_tp_allreduce_two_per_layer():
    # 70B on 4 GPUs at batch 122, 450 GB/s per direction, 5 us per collective:
    # ring 2 x 3/4 x 122 x 8,192 x 2 B = 2,998,272 B / 450e9 = 6.663 us; (6.663 + 5) us x 2 x 80 = 1.866 ms.
    assert f.tp_allreduce_s(80, 4, 122, 8192, 450e9, 5e-6) == pytest.approx(1.866e-3, rel=1e-3)
    assert f.tp_allreduce_s(80, 1, 122, 8192, 450e9, 5e-6) == 0


def test_an_unknown_layout_is_a_clear_error():
    with pytest.raises(InputError, match="layout must be one of tp, dp-attention, got 'ep'"):
        scenario("llama-70b", "h100", gpus=4, layout="ep")


def test_fp4_weights_use_the_fp4_peak_where_the_gpu_has_one():
    # B200: dense FP4 9,000e12 FLOP/s (gpus.toml); the H100 has no FP4 unit, so MXFP4 runs weight-only at
    # its BF16 peak, 989.4e12. MXFP4 stores 4 bits plus an 8-bit scale per 32 elements: 4.25 / 8 B.
    blackwell = scenario("gpt-oss-120b", "b200", gpus=1, weights="mxfp4")
    hopper = scenario("gpt-oss-120b", "h100", gpus=1, weights="mxfp4")
    assert (blackwell.gpu_peak_flops, hopper.gpu_peak_flops) == (9000e12, 989.4e12)
    # GPT-OSS stores its routed experts in MXFP4 and the rest in BF16. e = (116,829,156,672 - 5.13e9) / (128 - 4)
    # = 900,799,650.6 per expert; 128 experts = 115,302,355,274 at 4.25 / 8 B = 61.254e9 B; the other
    # 1,526,801,398 at 2 B = 3.054e9 B; 64.308e9 B in all, 1.5% under the published 65.28e9 B checkpoint.
    assert blackwell.weight_bytes == pytest.approx(115_302_355_274 * 4.25 / 8 + 1_526_801_398 * 2)
    assert blackwell.weight_bytes == pytest.approx(blackwell.model_spec.checkpoint_bytes, rel=0.02)
    # Asked for another format (NVFP4), every weight takes its 4.5 / 8 B: the split is the checkpoint's own.
    uniform = scenario("gpt-oss-120b", "b200", gpus=1, weights="nvfp4")
    assert uniform.weight_bytes == pytest.approx(uniform.params * 4.5 / 8)


def test_fp8_weights_on_a_gpu_without_fp8_run_weight_only():
    # The A100 has no FP8 unit: FP8 weights (1 B each) are dequantised to BF16 for the matmuls, so the
    # memory budget gets the FP8 size and the roofline the BF16 peak, 312e12 FLOP/s.
    s = scenario("llama-70b", "a100", gpus=2, weights="fp8")
    assert (s.weight_bytes, s.gpu_peak_flops) == (70e9, 312e12)


def test_the_default_weights_are_the_checkpoints_own():
    # DeepSeek-V3 ships FP8: 671e9 x 1 B = 671 GB of weights unless told otherwise; Llama ships BF16.
    assert scenario("deepseek-v3", "h200", gpus=8).weights_dtype == "fp8"
    assert scenario("llama-70b", "h100", gpus=4).weights_dtype == "bf16"
