"""Speculative decoding under the step model (serving/speculative.py), against hand-derived values.

GPT-OSS-120B on one B200 (see test_step.py for the geometry): E = 128 experts, k = 4 per token, 36 layers;
one routed expert is e = 111,699,156,672 / 124 parameters, MXFP4 at 0.53125 B.
"""

from __future__ import annotations

import pytest

from macros.engine.serving.calibration import params_for
from macros.engine.serving.replica import build_replica
from macros.engine.serving.speculative import BATCHES, break_even_batch, speculative_step, verify_batch
from macros.engine.serving.step import StepParams, costs, step_terms
from macros.engine.serving.types import StepBatch

HALF = StepParams(bw_fraction=0.5, gemm_fraction=0.5, moe_fraction=0.5, attn_fraction=0.5, link_latency_s=5e-6,
                  step_overhead_s=100e-6, sequence_overhead_s=2e-6, layer_overhead_s=10e-6,
                  eager_layer_overhead_s=20e-6)
EXPERT_S = 111_699_156_672 / 124 * 0.53125 / 4e12  # one expert's weights over 0.5 x 8 TB/s


def gptoss():
    return costs(build_replica("gpt-oss-120b", "b200", 1, kv="fp8"), HALF)


def test_one_draft_token_reads_the_experts_two_tokens_touch():
    c = gptoss()
    plain = step_terms(c, StepBatch(decode_seqs=1, decode_context=1000))
    verify = step_terms(c, verify_batch(c.replica, 1, 1000, 1))
    # One token touches u(1) = 4 experts; two touch u(2) = 128 (1 - (124/128)^2) = 7.875.
    assert plain.experts_s == pytest.approx(4 * EXPERT_S, rel=1e-12)
    assert verify.experts_s == pytest.approx(7.875 * EXPERT_S, rel=1e-12)
    # The always-read weights are read once either way; the dense GEMM FLOPs double.
    assert verify.weights_s == plain.weights_s
    assert verify.gemm_s == pytest.approx(2 * plain.gemm_s, rel=1e-12)


def test_the_yield_and_the_draft_cost():
    c = gptoss()
    s = speculative_step(c, 1, 1000, 1, 0.85)
    # (1 - 0.85^2) / (1 - 0.85) = 0.2775 / 0.15 = 1.85 tokens per verify step.
    assert s.tokens_per_step == pytest.approx(1.85, rel=1e-12)
    # One draft token through one of 36 layers: 1/36 of the plain step.
    assert s.draft_s == pytest.approx(s.plain_step_s / 36, rel=1e-12)
    assert s.tpot_s == pytest.approx((s.verify_step_s + s.plain_step_s / 36) / 1.85, rel=1e-12)


def test_on_a_dense_model_it_pays_at_one_sequence_and_stops_paying_at_a_large_batch():
    # Llama-3.1-8B on one H100, 1,000 tokens of context, four draft tokens accepted half the time: at batch 1
    # the verify step is bound by the weight read, so nearly (1 - 0.5^5) / 0.5 = 1.9375 tokens come for little
    # more than one step's time. At a large batch the verify step's five rows a sequence make its GEMMs five
    # times a plain step's, which 1.94 tokens a step no longer repay. (At a long context the KV read, the same
    # for one row or five, outweighs the GEMMs and the break-even moves past the batches searched.)
    r = build_replica("llama-3.1-8b", "h100", 1, "tp", 1, "bf16", "bf16")
    c = costs(r, params_for("h100", "vllm", "gqa"))
    one = speculative_step(c, 1, 1000, 4, 0.5)
    assert one.tokens_per_step == pytest.approx(1.9375)
    assert 1.5 < one.speedup < one.tokens_per_step
    b = break_even_batch(c, 1000, 4, 0.5)
    assert b is not None and speculative_step(c, b, 1000, 4, 0.5).speedup <= 1
    earlier = BATCHES[BATCHES.index(b) - 1]
    assert speculative_step(c, earlier, 1000, 4, 0.5).speedup > 1
