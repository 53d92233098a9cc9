"""Chapter 7's page model (macros/site/pages/design_chatgpt.py) against figures derived by hand for
the anchor: Llama-70B (70e9 parameters, BF16, 80 layers, 64 query heads, 327,680 B of KV per token)
on 4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s), 4e9 B reserve per GPU, 4,096-token sequences.
Budget 320e9 - 140e9 - 16e9 = 164e9 B; 1,342,177,280 B per sequence: 122 sequences; the step at
122 reads 140e9 + 122 x 1,342,177,280 = 303.7456e9 B in 303.7456e9 / 13.4e12 = 22.667 ms."""

from __future__ import annotations

import pytest

from macros.site.pages import design_chatgpt

STEP_S = 303.7456e9 / 13.4e12
GROUP_PEAK = 4 * 989.4e12  # FLOP/s


def causal_attention_flops(n: int) -> float:
    """4 x 64 heads x 128 dims FLOP per (query, key) pair, 80 layers, n (n + 1) / 2 pairs."""
    return 4 * 64 * 128 * 80 * n * (n + 1) / 2


@pytest.fixture(scope="module")
def q():
    return design_chatgpt.model()


def test_request_spread_and_tenant_ratio(q):
    # (100,000 + 4,000) / (20 + 5) = 4,160; 100,000 / 100 = 1,000
    assert q.request_token_spread == pytest.approx(4160)
    assert q.tenant_ratio == pytest.approx(1000)


def test_one_token_on_the_group(q):
    # 140e9 B / (4 x 3.35e12) = 10.45 ms against 1.4e11 / (4 x 989.4e12) = 0.0354 ms: 295.3x, the balance
    assert q.token_memory_s == pytest.approx(140e9 / 13.4e12)
    assert q.token_compute_s == pytest.approx(1.4e11 / 3.9576e15)
    assert q.memory_over_compute == pytest.approx(989.4 / 3.35)
    # a 2,000-token prefill, (2.8e14 + 5.2455e12 attention) / 3.9576e15 = 72.08 ms, is 3.18 decode
    # steps of 22.667 ms
    assert q.prefill_in_decode_steps == pytest.approx((2.8e14 + causal_attention_flops(2000)) / GROUP_PEAK / STEP_S)
    # on one GPU, 2 N s alone (chapter 2's figure): 2.8e14 / 989.4e12 = 283 ms
    assert q.prompt_compute_one_gpu_s == pytest.approx(2.8e14 / 989.4e12)
    # 20 turns without a prefix cache: 1 + 2 + ... + 20 = 210 turn-lengths against 20: 10.5x
    assert q.uncached_prefill_ratio == pytest.approx(10.5)


def test_the_long_prompt(q):
    # causal attention over 100,000 tokens: 1.31073311e16 FLOP / 3.9576e15 = 3.3119 s
    attention_s = causal_attention_flops(100_000) / GROUP_PEAK
    assert q.long_attention_s == pytest.approx(attention_s)
    # the prefill floor, attention included: (1.4e16 + 1.31073e16) / 3.9576e15 = 6.85 s
    assert q.long_prompt.prefill_s == pytest.approx(1.4e16 / GROUP_PEAK + attention_s)
    # the TTFT floor against the 500 ms target: 6.849 / 0.5 = 13.7x (attention counted once, not twice)
    assert q.long_prompt_over_ttft == pytest.approx((1.4e16 / GROUP_PEAK + attention_s) / 0.5)
    # its KV: 327,680 x 100,000 = 32.768e9 B of the 164e9 B budget: 19.98%, "a fifth"
    assert q.long_prompt_budget_share == pytest.approx(32.768e9 / 164e9)


def test_draining_failure_and_gpu_count(q):
    # a 4,000-token generation at one token per 22.667 ms step: 90.67 s
    assert q.drain_floor_s == pytest.approx(4000 * STEP_S)
    # 122 sequences re-prefilled at (5.7344e14 + 2.19956e13 attention) / 3.9576e15 = 150.5 ms each: 18.36 s
    assert q.replica_reprefill_s == pytest.approx(122 * (5.7344e14 + causal_attention_flops(4096)) / GROUP_PEAK)
    # peak: 10e6 x 10 x 300 / 86,400 x 2 = 694,444 tokens/s; a replica realises 122 / 22.667 ms x 0.4
    # = 2,152.9 tokens/s; 694,444 / 2,152.9 = 322.6 -> 323 replicas, 1,292 GPUs
    assert q.peak_tokens_per_s == pytest.approx(694_444.44, rel=1e-6)
    assert q.replicas == 323
    assert q.replica_gpus == 1292
    # an FP8 KV cache: 164e9 / 671,088,640 = 244.4 -> 244 sequences
    assert q.fp8_kv.max_batch == 244
