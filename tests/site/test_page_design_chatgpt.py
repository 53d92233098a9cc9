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


def test_draining_and_failure(q):
    # a 4,000-token generation at one token per 22.667 ms step: 90.67 s
    assert q.drain_floor_s == pytest.approx(4000 * STEP_S)
    # 122 sequences re-prefilled at (5.7344e14 + 2.19956e13 attention) / 3.9576e15 = 150.5 ms each: 18.36 s
    assert q.replica_reprefill_s == pytest.approx(122 * (5.7344e14 + causal_attention_flops(4096)) / GROUP_PEAK)
    # an FP8 KV cache: 164e9 / 671,088,640 = 244.4 -> 244 sequences
    assert q.fp8_kv.max_batch == 244


# The fleet of 7.2: the consumer-chat workload through the planner. Llama-3.1-70B: 70,553,706,496
# parameters, 141,107,412,992 B in BF16; sequences of 2,000 + 400 = 2,400 tokens, 786,432,000 B of KV.
W_31 = 141_107_412_992
KV_2400 = 327_680 * 2400


def test_fleet_from_the_planner(q):
    p = q.fleet
    # 100e6 requests a day are 10 turns from each of 10 million daily users
    assert q.daily_users_millions == 10
    # peak: 100e6 / 86,400 x 2 = 2,314.8 requests/s, x 400 = 925,926 output tokens/s
    assert p.peak_requests_per_s == pytest.approx(100e6 / 86400 * 2)
    assert p.peak_output_tokens_per_s == pytest.approx(100e6 / 86400 * 2 * 400)
    # memory: 320e9 - 141.1e9 - 16e9 = 162.89e9 B over 786,432,000 B -> 207 sequences
    assert p.max_batch == int((320e9 - W_31 - 16e9) // KV_2400) == 207
    # the target: floor / 0.4 <= 50 ms, so W + b KV <= 0.02 x 13.4e12 = 268e9 B: b <= 161.4 -> 161
    assert p.slo_batch == int((0.02 * 13.4e12 - W_31) // KV_2400) == 161
    assert p.step_s == pytest.approx((W_31 + 161 * KV_2400) / 13.4e12)
    # decode: 161 x 0.4 / 19.98 ms = 3,223 tokens/s a replica; 925,926 / 3,223 = 287.3 replicas busy
    capacity = 161 * 0.4 / ((W_31 + 161 * KV_2400) / 13.4e12)
    assert q.decode_replicas == pytest.approx(100e6 / 86400 * 2 * 400 / capacity)
    # prefill of 1,000 uncached tokens after a 1,000-token cached prefix, / 0.4: 2 N x 1,000 plus causal
    # attention 4 x 64 x 128 x 80 over the pairs past the prefix (sum of i for i = 1,001..2,000)
    pairs = sum(range(1001, 2001))
    prefill = (2 * 70_553_706_496 * 1000 + 4 * 64 * 128 * 80 * pairs) / (4 * 989.4e12) / 0.4
    assert p.planned_prefill_s == pytest.approx(prefill)
    assert q.prefill_replicas == pytest.approx(100e6 / 86400 * 2 * prefill)
    # ceil(499.3 x 1.2 = 599.2) = 600 replicas, 2,400 GPUs, 2,400 x $2.50 x 24 = $144,000 a day
    assert (p.replicas, p.gpus) == (600, 2400)
    assert p.cost_per_day == pytest.approx(2400 * 2.5 * 24)
    # at the peak: $6,000 an hour over 925,926 x 3,600 tokens = $1.80 per million; over the day, $144,000 over
    # 100e6 x 400 = 4e10 tokens = $3.60 per million: twice the peak's, the day's peak-to-mean
    assert p.cost_per_million_output_tokens == pytest.approx(2400 * 2.5 / 3600 / (100e6 / 86400 * 2 * 400) * 1e6)
    # The chapter recommends the serving model's answer, not the napkin: the same arithmetic on its GPUs. Over the
    # day, its cost per day over the 4e10 tokens a day, twice its cost at the peak's rate (the peak-to-mean).
    a = q.answer
    assert a.gpus == a.replicas * a.gpus_per_replica and a.gpus != p.gpus
    assert a.cost_per_day == pytest.approx(a.gpus * 2.5 * 24)
    assert q.fleet_cost_per_million_over_day == pytest.approx(a.gpus * 2.5 * 24 / 4e10 * 1e6)
    assert q.fleet_cost_per_million_over_day == pytest.approx(a.cost_per_million_output_tokens * 2)
    assert q.answer_over_napkin == pytest.approx(a.gpus / 2400)


def test_the_timed_round(q):
    r = q.round
    # twelve beats, back to back, the round's 45 minutes; the interviewer cuts in mid-answer at minute 15
    assert r.total == 45 == sum(minutes for _, minutes in design_chatgpt.ROUND)
    beats = [getattr(r, key) for key, _ in design_chatgpt.ROUND]
    assert beats[0].start == 0 and beats[-1].end == 45
    assert all(a.end == b.start for a, b in zip(beats, beats[1:]))
    assert r.interrupt.start == 15 and r.altitude1.end == 15


def test_problems(q):
    pr = q.problems
    # On H200 the smallest shape is 2 GPUs (the 141 GB weights do not fit one 141e9 B GPU with its reserve):
    # W + b KV <= 0.02 x 2 x 4.8e12 = 192e9 -> b <= 64.6 -> 64
    assert pr.h200.gpus_per_replica == 2
    assert pr.h200.slo_batch == int((0.02 * 2 * 4.8e12 - W_31) // KV_2400) == 64
    assert pr.h200.gpus == 2750 and pr.h200.cost_per_day == pytest.approx(2750 * 3.8 * 24)
    # the cheapest shape in a node is 8: W + b KV <= 0.02 x 8 x 4.8e12 = 768e9 -> b <= 797.2 -> 797
    assert pr.h200_cheapest.gpus_per_replica == 8
    assert pr.h200_cheapest.slo_batch == int((0.02 * 8 * 4.8e12 - W_31) // KV_2400) == 797
    assert pr.h200_cheapest.gpus < pr.h200.gpus
    # half the target on 8 x H100: W + b KV <= 0.01 x 8 x 3.35e12 = 268e9, the same bound: b = 161 again,
    # each step half as long, half as many replicas: 2,400 GPUs
    assert pr.tight.gpus_per_replica == 8 and pr.tight.slo_batch == 161
    assert pr.tight_step_ratio == pytest.approx(0.5)
    assert pr.tight.gpus == q.fleet.gpus == 2400
    # the 100,000-token prompt on 4 x H200: 32.768e9 B of 408e9 B, 8.03%; the prefill floor is unchanged
    assert pr.long_h200_budget_share == pytest.approx(32.768e9 / 408e9)
    assert pr.long_h200.prefill_s == pytest.approx(q.long_prompt.prefill_s)
