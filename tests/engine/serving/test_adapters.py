"""Unmerged LoRA adapters in the step (macros/engine/serving/adapters.py) against values derived by hand.

Llama-3.1-8B (models.toml): 32 layers, hidden 4,096, 32 query heads and 8 KV heads of 128, feed-forward 14,336.
A rank-16 adapter on all seven projections holds 16 x (q 4,096 + 4,096, k 4,096 + 1,024, v the same, o 8,192,
gate 4,096 + 14,336, up the same, down the same) x 32 = 16 x 81,920 x 32 = 41,943,040 parameters: 83,886,080 B in
BF16. A 10e9 B slice holds 10e9 // 83,886,080 = 119 of them (119 x 83,886,080 = 9,982,443,520 B).
"""

from __future__ import annotations

import pytest

from macros.engine.lookup import InputError
from macros.engine.serving.adapters import AdapterMix, distinct_adapters
from macros.engine.serving.replica import build_replica
from macros.engine.serving.run import RunRequest, prepare
from macros.engine.serving.step import StepParams, costs, step_terms
from macros.engine.serving.types import StepBatch

ADAPTER = 83_886_080
MIX = AdapterMix(catalogue=5000, popularity=1.0, rank=16, slice_bytes=10e9)
HALF = StepParams(bw_fraction=0.5, gemm_fraction=0.5, moe_fraction=0.5, attn_fraction=0.5, link_latency_s=0.0,
                  step_overhead_s=0.0, sequence_overhead_s=0.0, layer_overhead_s=0.0, eager_layer_overhead_s=0.0)
HARMONIC = sum(1 / i for i in range(1, 5001))  # H_5000 = 9.0945


def test_the_replica_holds_the_slice_and_knows_its_adapters():
    plain, lora = build_replica("llama-3.1-8b", "h100", 1), build_replica("llama-3.1-8b", "h100", 1, adapters=MIX)
    assert lora.adapter_bytes == ADAPTER and lora.adapter_slots == 119
    assert lora.weight_bytes_held == plain.weight_bytes_held + 10e9  # the slice comes out of the KV pool
    assert (plain.adapter_bytes, plain.adapter_slots) == (0.0, 0)


def test_the_distinct_adapters_a_step_reads():
    # One sequence reads its one adapter: sum p_i = 1.
    assert distinct_adapters(5000, 1.0, 119, 1) == pytest.approx(1.0)
    # Two: sum 1 - (1 - p)^2 = 2 - sum p^2, with sum p^2 = (sum 1/i^2) / H^2 = 1.64473 / 82.710 = 0.019886 (the
    # chance both draw the same adapter): 1.98011.
    squares = sum(1 / i ** 2 for i in range(1, 5001))
    assert distinct_adapters(5000, 1.0, 119, 2) == pytest.approx(2 - squares / HARMONIC ** 2)
    assert distinct_adapters(5000, 1.0, 119, 2) == pytest.approx(1.98011, abs=1e-5)
    # Uniform over 5,000 (exponent 0): 5,000 (1 - (1 - 1/5000)^n); 238 sequences find 232.4, capped at 119.
    assert distinct_adapters(5000, 0.0, 1000, 238) == pytest.approx(5000 * (1 - (1 - 1 / 5000) ** 238))
    assert distinct_adapters(5000, 0.0, 119, 238) == 119


def test_the_step_reads_each_distinct_adapter_once():
    plain = costs(build_replica("llama-3.1-8b", "h100", 1), HALF)
    lora = costs(build_replica("llama-3.1-8b", "h100", 1, adapters=MIX), HALF)
    one_adapter_s = ADAPTER / (0.5 * 3.35e12)  # 50.08 us at half of the H100's 3.35 TB/s
    for seqs, adapters in ((1, 1.0), (2, 2 - sum(1 / i ** 2 for i in range(1, 5001)) / HARMONIC ** 2), (238, 119)):
        batch = StepBatch(decode_seqs=seqs, decode_context=1000.0 * seqs)
        extra = step_terms(lora, batch).weights_s - step_terms(plain, batch).weights_s
        assert extra == pytest.approx(adapters * one_adapter_s, rel=1e-9)
    # a prefill chunk's sequence counts too: one decode and one prefill sequence read (about) two adapters
    mixed = StepBatch(decode_seqs=1, decode_context=1000.0, prefill_tokens=256, prefill_seqs=1,
                      prefill_pairs=256 * 257 / 2)
    extra = step_terms(lora, mixed).weights_s - step_terms(plain, mixed).weights_s
    assert extra == pytest.approx(distinct_adapters(5000, 1.0, 119, 2) * one_adapter_s)


def test_a_run_without_adapters_is_the_plain_run_and_bad_mixes_are_refused():
    q = RunRequest("llama-3.1-8b", "h100", 1, 1000, 200, rate_per_s=10.0)
    assert prepare(q).replica == build_replica("llama-3.1-8b", "h100", 1)
    with_mix = RunRequest("llama-3.1-8b", "h100", 1, 1000, 200, rate_per_s=10.0, adapters=5000,
                          adapter_popularity=1.0, adapter_rank=16, adapter_slice_bytes=10e9)
    assert prepare(with_mix).replica.adapter_slots == 119
    with pytest.raises(InputError, match="rank of at least 1"):
        AdapterMix(5000, 1.0, 0, 10e9)
    with pytest.raises(InputError, match="not a dense GQA model"):
        build_replica("deepseek-v3", "b200", 8, adapters=MIX)
