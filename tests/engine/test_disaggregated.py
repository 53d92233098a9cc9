"""Disaggregated prefill and decode pools (engine/fleet/disaggregated.py): the transfer by hand, and each pool at
the boundary its own rule sets."""

from __future__ import annotations

import math

import pytest

from macros.engine.fleet.disaggregated import disaggregate, kv_transfer_s
from macros.engine.fleet.shapes import Shape
from macros.engine.serving.calibration import params_for
from macros.engine.serving.kv_blocks import pool_blocks
from macros.engine.serving.profiles import profile
from macros.engine.serving.replica import build_replica
from macros.engine.serving.step import costs, step_time_s
from macros.engine.serving.types import StepBatch

TP2 = Shape(2, "tp", 1)


def test_the_kv_transfer_by_hand():
    # Llama-3.1-70B, BF16 KV: 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 327,680 B per token; a
    # 4,000-token prompt is 1.31072 GB, sent by two GPUs at once: over NVLink (450 GB/s each way per H100)
    # 1.31072e9 / 900e9 = 1.456 ms; over one 50 GB/s NIC each, 1.31072e9 / 100e9 = 13.1 ms.
    assert kv_transfer_s("llama-3.1-70b", "h100", TP2, "fp8", "bf16", 4000, True) == pytest.approx(1.31072e9 / 900e9)
    assert kv_transfer_s("llama-3.1-70b", "h100", TP2, "fp8", "bf16", 4000, False) == pytest.approx(1.31072e9 / 100e9)


@pytest.fixture(scope="module")
def plan():
    # 20 requests/s of 4,000 new prompt tokens and 500 output tokens, TTFT 2 s and TPOT 50 ms, 20 % headroom.
    return disaggregate("llama-3.1-70b", "h100", "fp8", "bf16", "vllm", 4000, 0, 500, 20.0, 2.0, 0.05, 0.2)


def test_the_decode_pool_runs_the_largest_batch_within_the_tpot(plan):
    d = plan.decode
    r = build_replica("llama-3.1-70b", "h100", d.shape.gpus, d.shape.layout, d.shape.ep, "fp8", "bf16")
    c = costs(r, params_for("h100", "vllm", "gqa"))
    prof = profile("vllm", "h100", "llama-3.1-70b", "fp8")
    graph = prof.graph_max_batch
    # Sequences of 4,000 + 500 tokens the replica's KV pool holds, and the engine's cap on running ones.
    most = min(pool_blocks(r, prof.memory_fraction, prof.block_tokens) * prof.block_tokens // 4500, prof.max_running)

    def step(b):  # every sequence at the prompt plus half the output: 4,250 tokens
        return step_time_s(c, StepBatch(decode_seqs=b, decode_context=b * 4250), graphed=b <= graph)

    assert step(d.batch) == pytest.approx(d.step_s) and d.step_s <= 0.05
    assert d.batch == most or step(d.batch + 1) > 0.05  # the KV pool or the target stops it, whichever first
    # A replica finishes batch / (499 x step) requests a second; the pool carries 20 x 1.2 of them.
    rate = d.batch / (499 * d.step_s)
    assert d.requests_per_s_per_replica == pytest.approx(rate)
    assert d.replicas == math.ceil(24 / rate)


def test_the_prefill_pool_is_the_fewest_replicas_whose_mean_ttft_meets_the_target(plan):
    p, overhead = plan.prefill, params_for("h100", "vllm", "gqa")
    # the API server's latency, its own work on the request and its tokenising of 4,000 prompt tokens
    fixed = overhead.request_overhead_s + overhead.api_request_s + overhead.prompt_token_overhead_s * 4000
    service = 1 / p.requests_per_s_per_replica

    def ttft(n):  # M/D/1's mean wait at the batched service time, then one prompt alone, then the transfer
        rho = 20 / n * service
        return math.inf if rho >= 1 else fixed + rho * service / (2 * (1 - rho)) + p.step_s + plan.kv_transfer_s

    assert plan.ttft_s == pytest.approx(ttft(p.replicas)) and plan.ttft_s <= 2.0
    assert p.replicas == 1 or ttft(p.replicas - 1) > 2.0 or p.utilisation * p.replicas / (p.replicas - 1) > 1 / 1.2


def test_a_pool_never_takes_a_shape_that_cannot_hold_the_model():
    # DeepSeek-V3 in FP8 is about 671 GB: two or four H200s (141 GB each) cannot hold it.
    d = disaggregate("deepseek-v3", "h200", "fp8", "bf16", "sglang", 4000, 0, 500, 10.0, 2.0, 0.05, 0.2)
    assert d.prefill.shape.gpus == 8 and d.decode.shape.gpus == 8
    assert d.gpus == d.prefill.gpus + d.decode.gpus and d.wins == (d.gpus < d.colocated_gpus)
