"""The step model's terms against values derived by hand from the spec numbers (ARCHITECTURE.md, the serving model).

GPT-OSS-120B (models.toml): N = 116,829,156,672, N_a = 5.13e9, E = 128 routed experts, k = 4 per token,
36 layers (18 with a 128-token window), 64 query heads and 8 KV heads of 64, hidden 2,880; experts MXFP4
(0.53125 B), the rest BF16 (2 B). B200: 8.0 TB/s, BF16 2.25, FP8 4.5, FP4 9.0 PFLOP/s dense, 900 GB/s
NVLink per direction.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from macros.engine.serving.estimate import prompt_alone_steps
from macros.engine.serving.replica import build_replica
from macros.engine.serving.step import (
    StepParams,
    costs,
    decode_run_s,
    decode_step,
    decode_steps_until,
    step_terms,
    step_time_s,
)
from macros.engine.serving.types import StepBatch

# e = (N - N_a) / (E - k) = 111,699,156,672 / 124 = 900,799,650.58 parameters per expert;
# a = N_a - k e = 5.13e9 - 3,603,198,602.3 = 1,526,801,397.7 always-read parameters.
E_PARAMS = 111_699_156_672 / 124
A_PARAMS = 5.13e9 - 4 * E_PARAMS
HALF = StepParams(bw_fraction=0.5, gemm_fraction=0.5, moe_fraction=0.5, attn_fraction=0.5, link_latency_s=5e-6,
                  step_overhead_s=100e-6, sequence_overhead_s=2e-6, layer_overhead_s=10e-6,
                  eager_layer_overhead_s=20e-6)


def gptoss(gpus: int = 1, **kw: object):
    return costs(build_replica("gpt-oss-120b", "b200", gpus, kv="fp8", **kw), HALF)


def test_one_decode_token_on_one_b200():
    t = step_terms(gptoss(), StepBatch(decode_seqs=1, decode_context=1000))
    # Weights: a x 2 B = 3,053,602,795.4 B over 0.5 x 8 TB/s = 0.763401 ms.
    assert t.weights_s == pytest.approx(A_PARAMS * 2 / 4e12, rel=1e-12)
    assert t.weights_s == pytest.approx(0.763401e-3, rel=1e-6)
    # One token touches u(1) = 128 (1 - (1 - 4/128)) = 4 experts: 4 e x 0.53125 B = 1.914199 GB -> 0.478550 ms.
    assert t.experts_s == pytest.approx(0.478550e-3, rel=1e-6)
    # KV (FP8): 2 x 8 heads x 64 x 1 B = 1,024 B per token per layer. Read: 18 full layers x 1,000 tokens
    # + 18 windowed x 128 = 20,304 token-layers; written: 36. 20,340 x 1,024 B / 4e12 B/s = 5.20704 us.
    assert t.kv_s == pytest.approx(20_340 * 1024 / 4e12, rel=1e-12)
    # GEMMs: 2a = 3.0536e9 FLOP over 0.5 x 2.25e15 (BF16) = 2.7143 us; experts: each of the 4 touched computes
    # a 16-row tile for its one token: 4 x 16 x 2e = 1.1530e11 FLOP over 0.5 x 9e15 (FP4) = 25.623 us;
    # attention: 20,304 pairs x 4 x 64 x 64 FLOP over 0.5 x 4.5e15 (FP8 KV),
    # padded: a GQA group of 64 / 8 = 8 query heads fills 8 of a Blackwell tile's 128 rows, so x16.
    assert t.gemm_s == pytest.approx(2 * A_PARAMS / 1.125e15, rel=1e-12)
    assert t.moe_s == pytest.approx(4 * 16 * 2 * E_PARAMS / 4.5e15, rel=1e-12)
    assert t.attention_s == pytest.approx(20_304 * 16_384 * 16 / 2.25e15, rel=1e-12)
    assert t.communication_s == 0  # one GPU
    # The GPU's fixed cost: 36 layers x 10 us (graphed) = 360 us; the host's beside it: 100 us + 1 sequence x
    # 2 us = 102 us.
    assert t.fixed_s == pytest.approx(360e-6) and t.host_s == pytest.approx(102e-6)
    # Each class costs its larger side; all three are memory-bound here: 0.763401 + 0.478550 + 0.005207
    # + 0.360 = 1.607158 ms on the GPU, longer than the host's 0.102 ms, which it hides.
    assert t.total_s == pytest.approx(1.607158e-3, rel=1e-6)
    assert step_time_s(gptoss(), StepBatch(decode_seqs=1, decode_context=1000)) == t.total_s


def test_a_prefill_chunk_is_compute_bound_in_its_gemms_but_not_in_its_weights():
    # 8,192 new tokens, no decode, not graphed. GEMMs: 8,192 x 2a / 1.125e15 = 22.236 ms, above the
    # 0.763 ms weight read, so the dense class costs 22.236 ms; the experts: all 128 touched
    # (u = 128 (1 - (31/32)^8192) = 128 to 1e-100), 61.254 GB / 4e12 = 15.314 ms, above their
    # 8,192 x 2ke / 4.5e15 = 13.119 ms of FLOPs. A whole-step max would give 22.2 ms, not the sum.
    b = StepBatch(prefill_tokens=8192, prefill_seqs=1, prefill_pairs=8192 * 8193 / 2,
                  prefill_window_pairs=128 * 129 / 2 + (8192 - 128) * 128)
    t = step_terms(gptoss(), b, graphed=False)
    assert t.dense_s == pytest.approx(8192 * 2 * A_PARAMS / 1.125e15, rel=1e-12)
    assert t.moe_class_s == pytest.approx(128 * E_PARAMS * 0.53125 / 4e12, rel=1e-9)
    # Not graphed: 36 x (10 + 20) us = 1.08 ms on the GPU; the host's 100 us + one sequence's 2 us beside it.
    assert t.fixed_s == pytest.approx(1.08e-3) and t.host_s == pytest.approx(102e-6)
    assert t.total_s > t.dense_s + t.moe_class_s


def test_tensor_parallel_all_reduces_are_two_per_layer_with_their_latency():
    # 8 GPUs, 4 tokens: each ring moves 2 x 7/8 x 4 x 2,880 x 2 B = 40,320 B per GPU over 900 GB/s
    # = 44.8 ns, plus 2 x 7 = 14 hops of 5 us; 72 of them = 72 x 70.0448 us = 5.0432 ms.
    t = step_terms(gptoss(8), StepBatch(decode_seqs=4, decode_context=4000))
    assert t.communication_s == pytest.approx(72 * (40_320 / 900e9 + 14 * 5e-6), rel=1e-12)
    # And the weights and experts split over 8 GPUs: a x 2 B / (8 x 0.5 x 8e12).
    assert t.weights_s == pytest.approx(A_PARAMS * 2 / 32e12, rel=1e-12)


def test_attention_data_parallel_with_expert_parallelism_exchanges_tokens_per_moe_layer():
    # dp-attention on 2 GPUs with EP 2, 64 tokens: each rank sends its 32 tokens' 4 expert copies,
    # half of them off-rank: 32 x 4 x 2,880 x 2 B x 1/2 = 368,640 B over 900 GB/s = 409.6 ns, + one hop of
    # 5 us; a dispatch and a combine in each of 36 layers: 72 x 5.4096 us = 389.4912 us. No attention
    # all-reduce.
    t = step_terms(gptoss(2, layout="dp-attention", ep=2), StepBatch(decode_seqs=64, decode_context=64_000))
    assert t.communication_s == pytest.approx(72 * (368_640 / 900e9 + 5e-6), rel=1e-12)
    # Each rank reads its own copy of the attention weights: 36 x (2 x 2,880 x 64 x 64 + 2 x 2,880 x 8 x 64)
    # = 955,514,880 parameters x 2 B once more.
    assert t.weights_s == pytest.approx((A_PARAMS * 2 + 955_514_880 * 2) / 8e12, rel=1e-12)


def test_mla_reads_every_copy_of_the_latent_under_tensor_parallelism():
    # DeepSeek-V3 on 8 x H200, BF16 KV: 576 x 2 B = 1,152 B per token per layer, held by each of 8 ranks.
    # 16 sequences at 2,000 tokens: 61 x 32,000 token-layers read + 61 x 16 written = 1,952,976 x 1,152 B x 8
    # copies = 17.9986 GB over 8 x 0.5 x 4.8 TB/s = 0.937428 ms: the same as one GPU reading one copy.
    c = costs(build_replica("deepseek-v3", "h200", 8, kv="bf16"), HALF)
    t = step_terms(c, StepBatch(decode_seqs=16, decode_context=32_000))
    assert t.kv_s == pytest.approx(1_952_976 * 1152 * 8 / (8 * 0.5 * 4.8e12), rel=1e-12)
    # MLA decodes absorbed: 2 x 128 heads x (2 x 512 + 64) FLOP per pair = 278,528; prefill decompressed.
    assert c.replica.decode_pair_flops == 278_528
    # 128 heads over 8 GPUs = 16 per GPU on Hopper's 64-row tile: 4x; under dp-attention all 128: 1x.
    assert c.replica.decode_tile_padding == 4
    assert build_replica("deepseek-v3", "h200", 8, layout="dp-attention").decode_tile_padding == 1
    assert c.replica.prefill_pair_flops == 2 * 128 * (128 + 64 + 128)


def test_fp4_on_deepseek_quantises_the_experts_and_keeps_the_rest_in_fp8():
    r = build_replica("deepseek-v3", "b200", 8, weights="nvfp4", kv="fp8")
    assert (r.expert_weights, r.other_weights) == ("nvfp4", "fp8")
    # Experts at the FP4 peak, the rest at FP8, attention at the FP8 KV's peak.
    assert (r.moe_peak_flops, r.dense_peak_flops, r.attention_peak_flops) == (9000e12, 4500e12, 4500e12)


def test_a_decode_run_is_the_sum_of_its_steps():
    # 40 steps of 8 sequences, context growing by 8 a step from 900: summed one by one, the same.
    c = gptoss()
    one_by_one = sum(step_time_s(c, StepBatch(decode_seqs=8, decode_context=900 + 8 * i)) for i in range(40))
    assert decode_run_s(c, 8, 900, 40) == pytest.approx(one_by_one, rel=1e-12)
    # Across the window's kink (mean context 100 -> 140 crosses 128) and attention's regime, still exact.
    across = sum(step_time_s(c, StepBatch(decode_seqs=8, decode_context=800 + 8 * i)) for i in range(40))
    assert decode_run_s(c, 8, 800, 40) == pytest.approx(across, rel=1e-12)
    # The first step whose run reaches a time: the 21st step ends past 20 steps' time.
    twenty = decode_run_s(c, 8, 900, 20)
    assert decode_steps_until(c, 8, 900, 40, twenty) == 20
    assert decode_steps_until(c, 8, 900, 40, twenty * 1.0001) == 21


@pytest.mark.parametrize("model, gpu, gpus, kw", [
    ("gpt-oss-120b", "b200", 1, {"kv": "fp8"}),  # windowed layers, MoE, one GPU
    ("gpt-oss-120b", "b200", 4, {"kv": "fp8"}),  # and a TP ring
    ("deepseek-v3", "h200", 8, {"layout": "dp-attention"}),  # MLA, attention data parallel
    ("llama-3.1-70b", "h100", 4, {}),  # dense
])
def test_the_decode_fast_path_is_step_time_to_the_last_bit(model, gpu, gpus, kw):
    # decode_step works out what does not read the context once; the times and regimes it gives must be
    # step_terms's exactly (==, not approx), at contexts on both sides of every kink, graphed or not, from one
    # sequence to past the host's crossover.
    c = costs(build_replica(model, gpu, gpus, **kw), HALF)
    for seqs in (1, 7, 64, 512):
        for graphed in (True, False):
            step = decode_step(c, seqs, graphed)
            for context in (0.0, 1.0, 100.0 * seqs, 127.5 * seqs, 128.0 * seqs, 129.0 * seqs, 3e3 * seqs, 1e5 * seqs):
                t = step_terms(c, StepBatch(decode_seqs=seqs, decode_context=context), graphed)
                regime = (t.kv_s >= t.attention_s, bool(c.replica.window) and context <= seqs * c.replica.window,
                          t.gpu_s >= t.host_s)
                assert step(context) == (t.total_s, regime), (seqs, graphed, context)


def test_the_step_prices_many_configurations_at_once():
    # numpy arrays broadcast: two batch sizes in one call give each one's scalar result.
    c = gptoss(8)
    both = step_time_s(c, StepBatch(decode_seqs=np.array([4.0, 64.0]), decode_context=np.array([4e3, 64e3])))
    assert both[0] == pytest.approx(step_time_s(c, StepBatch(decode_seqs=4, decode_context=4000)), rel=1e-12)
    assert both[1] == pytest.approx(step_time_s(c, StepBatch(decode_seqs=64, decode_context=64000)), rel=1e-12)


def test_each_attention_data_parallel_rank_handles_its_own_sequences():
    # 64 decodes at 2 us each: 128 us of sequence work on one engine process under TP, 64 us per rank when
    # two ranks each hold 32 (dp-attention), beside the GPU's work. Same step and layer costs otherwise.
    b = StepBatch(decode_seqs=64, decode_context=64_000)
    tp, dp = step_terms(gptoss(2), b), step_terms(gptoss(2, layout="dp-attention", ep=2), b)
    assert tp.host_s == pytest.approx(100e-6 + 128e-6) and dp.host_s == pytest.approx(100e-6 + 64e-6)
    assert tp.fixed_s == dp.fixed_s == pytest.approx(360e-6)


def test_a_prompt_chunk_under_attention_data_parallelism_runs_on_its_own_rank_alone():
    # One 4,096-token chunk on 2 B200s under dp-attention: on one rank (share 1, as a single prompt runs) against
    # spread evenly over both (share 1/2). The step waits for the busiest rank, which does all of the chunk's
    # attention against half of it: its pairs and KV written cost 2x. Its attention projections, N_attn =
    # 36 layers x (2 x 2,880 x 4,096 for Q and O + 2 x 2,880 x 512 for K and V) = 955,514,880 parameters, count
    # 4,096 tokens more at 2 N_attn FLOP each over 2 GPUs x 0.5 x 2.25 PFLOP/s (BF16). The experts, the MoE's
    # exchange and the dense rest take both ranks' tokens together: unchanged.
    c = gptoss(2, layout="dp-attention", ep=2)
    b = StepBatch(prefill_tokens=4096, prefill_seqs=1, prefill_pairs=4096 * 4097 / 2,
                  prefill_window_pairs=128 * 4096)
    one, even = step_terms(c, b), step_terms(c, dataclasses.replace(b, prefill_rank_share=0.5))
    assert one.attention_s == pytest.approx(2 * even.attention_s, rel=1e-12)
    assert one.kv_s == pytest.approx(2 * even.kv_s, rel=1e-12)
    assert one.gemm_s - even.gemm_s == pytest.approx(4096 * 2 * 955_514_880 / (2 * 0.5 * 2.25e15), rel=1e-9)
    assert (one.moe_s, one.experts_s, one.communication_s) == (even.moe_s, even.experts_s, even.communication_s)
    # Under tensor parallelism every GPU shares every chunk: the replica's one rank is the whole step.
    assert build_replica("gpt-oss-120b", "b200", 2).ranks == 1
    assert c.replica.ranks == 2


def test_a_prompt_alone_is_stepped_in_budget_sized_chunks_that_attend_to_those_before():
    # 10,000 tokens at a 4,096-token budget: chunks of 4,096, 4,096 and 1,808 tokens, each eager. Together they
    # attend to every causal pair once: 18 full layers x 10,000 x 10,001 / 2 pairs, and in the 18 windowed layers
    # 128 x 129 / 2 + (10,000 - 128) x 128 = 1,271,872 pairs, all at the prefill pair's cost. The later chunks
    # read the KV before them: 4,096 and then 8,192 tokens in every full layer, 128 in every windowed one.
    c = gptoss(1)
    steps = prompt_alone_steps(c, 10_000, 4_096)
    assert [round(t.gemm_s / c.gemm_s_per_token) for t in steps] == [4_096, 4_096, 1_808]
    assert sum(t.attention_s for t in steps) == pytest.approx(
        (18 * 10_000 * 10_001 / 2 + 18 * 1_271_872) * c.prefill_pair_s, rel=1e-12)
    assert steps[2].kv_s == pytest.approx((18 * 8_192 + 18 * 128 + 1_808 * 36) * c.kv_s_per_token_layer, rel=1e-12)
    assert all(t.fixed_s == pytest.approx(36 * (10e-6 + 20e-6)) for t in steps)


def test_the_host_shows_only_when_it_is_slower_than_the_gpu():
    # Llama 3.1 8B on one B200 with a slow host, 50 us per sequence. 256 decodes at short contexts: the GPU
    # reads 16.06 GB of weights (4.015 ms) and its GEMMs, 256 rows, take 3.65 ms under it, plus 32 layers x
    # 10 us; the host's 100 us + 256 x 50 us = 12.9 ms is longer, and is the step. With 16 sequences the host
    # needs 0.9 ms, hidden behind the GPU's 4.3 ms.
    c = costs(build_replica("llama-3.1-8b", "b200", 1, kv="fp8"), dataclasses.replace(HALF, sequence_overhead_s=50e-6))
    big = step_terms(c, StepBatch(decode_seqs=256, decode_context=256 * 10))
    assert big.host_s == pytest.approx(100e-6 + 256 * 50e-6) and big.gpu_s < big.host_s == big.total_s
    small = step_terms(c, StepBatch(decode_seqs=16, decode_context=16 * 10))
    assert small.host_s == pytest.approx(900e-6) and small.total_s == small.gpu_s > small.host_s


def test_a_verify_step_of_a_few_tokens_costs_about_one_decode_step():
    # One sequence verifying 4 draft tokens (5 token rows) against 1 row: the weight read (0.763 ms) and the
    # experts touched by 5 tokens (u(5) = 128 (1 - (31/32)^5) = 18.9, against 4) dominate, and the GEMMs'
    # 5 x 2.71 us stay under the weight read, so the dense class is unchanged. The expert read grows with the
    # experts touched, not with the rows: at most 18.9 / 4 of the one-token experts' 0.479 ms. On a dense
    # model (no experts) the verify step is the decode step to within its KV writes: Llama 3.1 8B, 1 vs 5 rows.
    c = costs(build_replica("llama-3.1-8b", "b200", 1, kv="fp8"), HALF)
    one = step_terms(c, StepBatch(decode_seqs=1, decode_context=1000)).total_s
    five = step_terms(c, StepBatch(prefill_tokens=5, prefill_seqs=1, prefill_prefix_tokens=1000,
                                   prefill_pairs=1005 * 1006 / 2 - 1000 * 1001 / 2)).total_s
    assert one < five < 1.05 * one


def test_a_small_chunk_added_to_a_memory_bound_decode_step_costs_far_less_than_its_own_prefill():
    # 16 decodes of Llama 3.1 8B on one B200 read 16.06 GB of BF16 weights: 4.015 ms at 0.5 x 8 TB/s. A
    # 256-token chunk beside them makes 272 token rows of GEMMs, 272 x 2 x 8.03e9 FLOP over 0.5 x 2.25e15 =
    # 3.88 ms: still under the weight read, so the dense class does not grow and the chunk costs only its KV
    # write and its attention, a few microseconds. Alone, the same chunk is a whole step: the weight read again
    # plus 32 layers' eager fixed costs and its own attention: 4.015 + 0.960 + 0.008 = 4.983 ms.
    c = costs(build_replica("llama-3.1-8b", "b200", 1, kv="fp8"), HALF)
    chunk = dict(prefill_tokens=256, prefill_seqs=1, prefill_pairs=256 * 257 / 2)
    decode = step_terms(c, StepBatch(decode_seqs=16, decode_context=64_000))
    mixed = step_terms(c, StepBatch(decode_seqs=16, decode_context=64_000, **chunk))
    alone = step_terms(c, StepBatch(**chunk), graphed=False).total_s
    assert mixed.gemm_s == pytest.approx(272 * 2 * 8_030_261_248 / 1.125e15, rel=1e-12)
    assert mixed.gemm_s < mixed.weights_s
    assert alone == pytest.approx(4.015e-3 + 0.96e-3 + 0.008e-3, rel=1e-3)
    assert mixed.total_s - decode.total_s < 0.01 * alone
