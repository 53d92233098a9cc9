"""The formula contract against values derived by hand in each test (the formula contract of docs/conventions.md).

Each expected value is worked out in the comment above it from the spec numbers, never taken
from the function under test. The anchors are the corrected values listed on docs/errata.md.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine import formulas as f
from macros.engine.model.scenario import JSON_KEYS, get_model, mha_kv_bytes_per_token, model_kv_bytes_per_seq, scenario

H100_BW = 3.35e12  # B/s, datasheet
H100_BF16 = 989.4e12  # FLOP/s, dense


def test_kv_per_token_gqa_llama70b():
    # 2 (K and V) x 80 layers x 8 KV heads x 128 head dim x 2 B = 327,680 B (320 KiB exactly)
    assert f.kv_bytes_per_token_gqa(80, 8, 128, 2) == 327_680
    assert 327_680 == 320 * 1024


def test_kv_per_token_mha_is_eight_times_gqa_for_llama70b():
    # MHA: one KV head per query head: 2 x 80 x 64 x 128 x 2 = 2,621,440 B, 8x the GQA figure
    assert mha_kv_bytes_per_token(get_model("llama-70b")) == 2_621_440


def test_kv_per_token_mla_deepseek_v3():
    # One latent (512) + one RoPE key (64) per layer, no factor 2: 61 x 576 x 2 B = 70,272 B
    assert f.kv_bytes_per_token_mla(61, 512, 64, 2) == 70_272
    assert scenario("deepseek-v3", "h200", gpus=8).kv_bytes_per_token == 70_272


def test_kv_per_seq_without_window():
    # 327,680 B x 4,096 tokens = 1,342,177,280 B = 1.342 GB (= 1.25 GiB)
    assert f.kv_bytes_per_seq(327_680, 80, 4096) == 1_342_177_280
    assert 1_342_177_280 == 1.25 * 2**30


def test_sliding_window_caps_mistral():
    # Every one of the 32 layers keeps only the last 4,096 tokens, so at 32,768 tokens the
    # cache is 131,072 B x 4,096 = 536,870,912 B (512 MiB), the same as at 4,096 tokens.
    m = get_model("mistral-7b")
    assert model_kv_bytes_per_seq(m, 32_768) == 536_870_912
    assert model_kv_bytes_per_seq(m, 4_096) == 536_870_912
    # Below the window nothing changes: 131,072 x 1,000
    assert model_kv_bytes_per_seq(m, 1_000) == 131_072_000


def test_sliding_window_gemma_alternating_layers():
    # Per layer 2 x 16 KV heads x 128 x 2 B = 8,192 B. At 8,192 tokens: 23 global layers
    # hold 8,192 tokens, 23 local layers hold 4,096: 8,192 x (23 x 8,192 + 23 x 4,096)
    # = 8,192 x 282,624 = 2,315,255,808 B
    assert model_kv_bytes_per_seq(get_model("gemma-2-27b"), 8_192) == 2_315_255_808


def test_sliding_window_gpt_oss():
    # Per layer 2 x 8 x 64 x 2 B = 2,048 B; 18 full layers at 131,072 tokens and 18 layers
    # windowed at 128: 2,048 x (18 x 131,072 + 18 x 128) = 2,048 x 2,361,600 = 4,836,556,800 B
    assert model_kv_bytes_per_seq(get_model("gpt-oss-120b"), 131_072) == 4_836_556_800


def test_budget_and_max_batch_anchor():
    # 4 x 80 GB - 70e9 x 2 B - 4 x 4 GB = 320 - 140 - 16 = 164 GB
    budget = f.kv_budget_bytes(4, 80e9, 140e9, 4e9)
    assert budget == pytest.approx(164e9)
    # floor(164e9 / 1,342,177,280) = floor(122.19) = 122 (the seed's 131 divides GB by GiB)
    assert f.max_batch(budget, 1_342_177_280) == 122


def test_max_batch_never_negative():
    # Weights alone exceed one GPU: 80 - 140 - 4 < 0, so nothing fits.
    assert f.max_batch(f.kv_budget_bytes(1, 80e9, 140e9, 4e9), 1e9) == 0


def test_machine_balance_h100():
    # 989.4e12 / 3.35e12 = 295.34 FLOP/B (the sparse figure would give 590.7)
    assert f.machine_balance(H100_BF16, H100_BW) == pytest.approx(295.34, abs=0.01)


def test_decode_compute_at_batch_one():
    # 2 x 70e9 = 140 GFLOP; 140e9 / 989.4e12 = 0.14150 ms of compute on one H100
    flops = f.decode_step_flops(70e9, 1)
    assert flops == 140e9
    assert flops / H100_BF16 == pytest.approx(0.14150e-3, rel=1e-4)
    # ... against 140e9 B / 3.35e12 B/s = 41.79 ms of weight reads: memory-bound
    assert f.step_floor_s(140e9, flops, 1, H100_BW, H100_BF16) == pytest.approx(41.79e-3, rel=1e-3)
    assert f.is_memory_bound(flops, 140e9, f.machine_balance(H100_BF16, H100_BW))


def test_decode_floor_anchor_tensor_parallel():
    # bytes: 140e9 + 122 x 1,342,177,280 = 303,745,628,160 B
    moved = f.decode_step_bytes(140e9, 122, 1_342_177_280)
    assert moved == 303_745_628_160
    # TP4 streams from 4 GPUs at once: 303.75e9 / (4 x 3.35e12) = 22.668 ms (the seed's 91 ms
    # divided by one GPU's bandwidth)
    step = f.step_floor_s(moved, f.decode_step_flops(70e9, 122), 4, H100_BW, H100_BF16)
    assert step == pytest.approx(22.668e-3, rel=1e-4)
    # 122 / 22.668 ms = 5,382 tokens/s aggregate; 1 / 22.668 ms = 44.1 per user
    assert f.tokens_per_s(122, step) == pytest.approx(5382, rel=1e-3)
    assert 1 / step == pytest.approx(44.1, rel=1e-2)


def test_prefill_2000_tokens_one_h100():
    # 2 x 70e9 x 2,000 = 2.8e14 FLOP; / 989.4e12 = 283.0 ms, above the 41.8 ms of weight reads
    assert f.prefill_time_s(70e9, 2000, 140e9, 1, H100_BF16, H100_BW) == pytest.approx(0.2830, rel=1e-3)


def test_cost_per_million_tokens():
    # 4 GPUs x $2.50 = $10/h = $0.0027778/s; 5,382 tokens/s x 0.4 = 2,152.9 tokens/s;
    # 0.0027778 / 2,152.9 x 1e6 = $1.290 per million output tokens
    assert f.cost_per_million_tokens(2.5, 4, 5382.1, 0.4) == pytest.approx(1.2903, rel=1e-3)


def test_moe_reads_active_weights_at_batch_one_and_all_at_large_batch():
    # Mixtral-8x7B: at b = 1 a token reads exactly its active parameters, 12,879,921,152
    n, na = 46_702_792_704, 12_879_921_152
    assert f.moe_params_read(n, na, 8, 2, 1) == pytest.approx(na)
    # u(b) = 8 x (1 - 0.75^b) -> 8 as b grows, so reads tend to all 46.7e9 parameters
    assert f.moe_params_read(n, na, 8, 2, 1000) == pytest.approx(n)
    # b = 2: u = 8 x (1 - 0.5625) = 3.5 experts; e = (n - na) / 6, a = na - 2e
    e = (n - na) / 6
    assert f.moe_params_read(n, na, 8, 2, 2) == pytest.approx(na - 2 * e + 3.5 * e)


def test_formulas_broadcast_over_numpy_arrays():
    # The same functions fill tables and charts: batch 1, 64 and 122 at once.
    batch = np.array([1, 64, 122])
    moved = f.decode_step_bytes(140e9, batch, 1_342_177_280)
    step = f.step_floor_s(moved, f.decode_step_flops(70e9, batch), 4, H100_BW, H100_BF16)
    assert step.shape == (3,)
    # batch 1: (140e9 + 1.342e9) / 13.4e12 = 10.548 ms
    assert step[0] == pytest.approx(10.548e-3, rel=1e-3)
    assert step[2] == pytest.approx(22.668e-3, rel=1e-4)
    caps = f.kv_bytes_per_seq(131_072, 32, np.array([1000, 4096, 32768]), 32, 4096)
    assert list(caps) == [131_072_000, 536_870_912, 536_870_912]
    assert list(f.max_batch(np.array([164e9, -1e9]), 1_342_177_280)) == [122, 0]


def test_scenario_anchor_matches_design():
    s = scenario("llama-70b", "h100", gpus=4)
    assert (s.kv_bytes_per_token, s.max_batch, s.batch) == (327_680, 122, 122)
    assert s.kv_budget_bytes == pytest.approx(164e9)
    assert s.decode_step_s == pytest.approx(22.668e-3, rel=1e-4)
    assert s.bound == "memory"
    # Prefill of a 4,096-token prompt over 4 GPUs: weights 2 x 70e9 x 4,096 = 573.44 TFLOP; causal
    # attention 4 x 64 x 128 x 80 x (4,096 x 4,097 / 2) = 2,621,440 x 8,390,656 = 21.995 TFLOP;
    # 595.44e12 / (4 x 989.4e12) = 150.45 ms (144.9 ms without attention).
    assert s.prefill_s == pytest.approx(0.15045, rel=1e-3)
    # Decode attention at 4,096 tokens: 4 x 64 x 128 x 80 x 4,096 = 10.737 GFLOP per sequence, x 122.
    assert s.decode_attention_flops == pytest.approx(122 * 10.737e9, rel=1e-4)
    assert s.decode_flops == pytest.approx(122 * (140e9 + 10.737e9), rel=1e-4)
    # Planned step: 22.668 ms / 0.4 = 56.67 ms; planned throughput 122 / 56.67 ms = 2,153 tokens/s.
    assert s.planned_step_s == pytest.approx(56.67e-3, rel=1e-3)
    assert s.planned_tokens_per_s == pytest.approx(2153, rel=1e-3)
    assert (s.layout, s.kv_copies, s.kv_bytes_per_seq_group) == ("tp", 1, s.kv_bytes_per_seq)
    assert tuple(s.as_json()) == JSON_KEYS


def test_scenario_picks_smallest_power_of_two():
    # One H100: 80 - 140 - 4 < 0. Two: 160 - 140 - 8 = 12 GB >= 1.342 GB for one sequence.
    assert scenario("llama-70b", "h100").gpus == 2
    # 64 sequences of 8,192 tokens need 64 x 2.684 GB = 171.8 GB of KV:
    # 4 GPUs leave 164 GB (too little), 8 leave 640 - 140 - 32 = 468 GB.
    assert scenario("llama-70b", "h100", seq_len=8192, batch=64).gpus == 8


def test_fp8_weights_use_the_fp8_peak():
    # H100 FP8 dense 1978.9e12; 70e9 x 1 B = 70 GB of weights
    s = scenario("llama-70b", "h100", gpus=2, weights="fp8")
    assert s.gpu_peak_flops == 1978.9e12
    assert s.weight_bytes == 70e9
    assert s.machine_balance == pytest.approx(1978.9e12 / 3.35e12)


def test_not_fitting_gives_no_decode_figures():
    s = scenario("llama-70b", "h100", gpus=1)
    assert not s.fits and s.max_batch == 0
    assert s.decode_step_s is None and s.prefill_s is None and s.cost_per_million_tokens is None
    assert math.isclose(s.kv_budget_bytes, 80e9 - 140e9 - 4e9)



def test_request_flops_counts_weights_and_causal_attention():
    from macros.engine.model.geometry import request_flops

    llama = get_model("llama-70b")
    # Llama-70B preset, N_a = 70e9, L = 80, H_q = 64, d_h = 128, a request of 25 tokens:
    # weights 2 x 70e9 x 25 = 3.5e12; attention 2 x 80 x 64 x 128 x 25 x 26 = 1,310,720 x 650
    # = 851,968,000; together 3,500,851,968,000.
    assert request_flops(llama, 25) == pytest.approx(3_500_851_968_000, rel=1e-12)
    # 104,000 tokens: 2 x 70e9 x 104,000 = 1.456e16, attention 1,310,720 x 104,000 x 104,001
    # = 1.41769...e16: attention is about as large as the weights' share.
    assert request_flops(llama, 104_000) == pytest.approx(1.456e16 + 1_310_720 * 104_000 * 104_001)



def test_ring_allreduce_bytes():
    # 4 GPUs, 122 tokens of 8,192 BF16 activations: 2 x 3/4 x 122 x 8,192 x 2 B = 2,998,272 B each way per GPU
    assert f.ring_allreduce_bytes(4, 122, 8192) == pytest.approx(2_998_272)
    # one GPU sends nothing; two send half the data twice over: 2 x 1/2 = 1 times t * d * 2
    assert f.ring_allreduce_bytes(1, 122, 8192) == 0
    assert f.ring_allreduce_bytes(2, 10, 100) == pytest.approx(2000)
