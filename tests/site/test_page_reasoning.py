"""Chapter 8's page model (macros/site/pages/reasoning.py) against figures derived here from the data, by hand:
Qwen3-235B-A22B (235,093,634,560 parameters, 22,188,990,464 active; 94 layers, 64 query and 4 KV heads of 128;
128 experts, 8 a token) in FP8 on 4 x H200 (141e9 B, 4.8e12 B/s, 1,978.9e12 FLOP/s dense FP8), a 4e9 B reserve
per GPU; vLLM's running cap of 1,024; the H200 at $3.80 an hour, 40% realised efficiency. The reasoning request
is 1,000 + 15,000 + 1,000 tokens, the chat turn 1,000 + 500. The structured replica: Llama-3.1-8B
(8,030,261,248 parameters, 32 layers, 8 KV heads of 128) in BF16 on one H100 (3.35e12 B/s) at 1,000 tokens.
Each sentence the model words from a comparison is flipped here by building a case where it would change."""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

import pytest

from macros.site.pages import _reasoning as rs
from macros.site.pages import reasoning

N, NA, E, K = 235_093_634_560, 22_188_990_464, 128, 8
KV_TOKEN = 2 * 94 * 4 * 128 * 2  # 192,512 B
BUDGET = 4 * 141e9 - N * 1 - 4 * 4e9  # 312,906,365,440 B
GROUP_B = 4 * 4.8e12


def moe_read(batch: float) -> float:
    """Weight bytes (FP8, 1 B each) a step of `batch` tokens reads: the always-read part and the experts touched."""
    expert = (N - NA) / (E - K)
    return NA - K * expert + E * (1 - (1 - K / E) ** batch) * expert


@pytest.fixture(scope="module")
def q():
    return reasoning.model()


def test_the_kv_over_a_request_s_life_and_the_batch(q):
    r = q.rsn
    assert r.kv_per_token == KV_TOKEN
    assert r.budget == pytest.approx(BUDGET)
    # 1,000 + 16,000 / 2 = 9,000 tokens: 1,732,608,000 B on average; 17,000 at the end: 3,272,704,000 B
    assert (r.e.mean_tokens, r.e.kv_mean, r.e.kv_end) == (9000, 9000 * KV_TOKEN, 17000 * KV_TOKEN)
    # admitted by the average: floor(312.906e9 / 1.7326e9) = 180; reserving the end: floor(95.6) = 95
    assert r.e.batch == math.floor(BUDGET / (9000 * KV_TOKEN)) == 180
    assert r.reserved_batch == math.floor(BUDGET / (17000 * KV_TOKEN)) == 95
    # chat: 1,250 tokens, floor(1,300.3) = 1,300 by the KV, capped at vLLM's 1,024
    assert r.chat.kv_batch == math.floor(BUDGET / (1250 * KV_TOKEN)) == 1300
    assert r.chat.batch == 1024 and r.chat.capped


def test_where_the_gpu_time_goes(q):
    e = q.rsn.e
    # the floor at batch 180, 9,000 tokens each: (experts read + 180 x KV) / (4 x 4.8e12), memory-bound
    step = (moe_read(180) + 180 * 9000 * KV_TOKEN) / GROUP_B
    assert e.step_s == pytest.approx(step, rel=1e-9)
    # the prompt's FLOPs: 2 x 22.19e9 x 1,000 + causal attention 4 x 64 x 128 x 94 x 1,000 x 1,001 / 2
    flops = 2 * NA * 1000 + 4 * 64 * 128 * 94 * 1000 * 1001 / 2
    assert e.prefill_s == pytest.approx(flops / (4 * 1978.9e12))
    decode = 16000 * step / 180  # 2.53 s of the replica
    assert e.decode_s == pytest.approx(decode)
    assert e.prefill_share == pytest.approx(e.prefill_s / (e.prefill_s + decode))
    assert e.gpu_s == pytest.approx(4 * (e.prefill_s + decode))
    # chat at the cap: (experts at 1,024 + 1,024 x 1,250 x KV) / group bandwidth, 500 steps over 1,024
    c = q.rsn.chat
    chat_step = (moe_read(1024) + 1024 * 1250 * KV_TOKEN) / GROUP_B
    assert c.step_s == pytest.approx(chat_step, rel=1e-9)
    assert c.decode_s == pytest.approx(500 * chat_step / 1024)


def test_what_a_query_costs(q):
    r = q.rsn
    # $3.80 / 3,600 x GPU-seconds / 0.4; per million: $3.80 x 4 / 3,600 / (b / step x 0.4) x 1e6
    assert r.e.cost == pytest.approx(3.8 / 3600 * r.e.gpu_s / 0.4)
    assert r.e.cost_per_million == pytest.approx(3.8 * 4 / 3600 / (180 / r.e.step_s * 0.4) * 1e6)
    assert r.token_ratio == 16000 / 500 == 32
    assert r.cost_ratio == pytest.approx(r.e.gpu_s / r.chat.gpu_s)


def test_a_thinking_budget(q):
    rows = {x.budget: x for x in q.rsn.rows}
    # 4,000 thinking + 1,000: on average 1,000 + 2,500 = 3,500 tokens, floor(312.9e9 / 673,792,000) = 464
    cut = rows[4000]
    assert cut.e.batch == math.floor(BUDGET / (3500 * KV_TOKEN)) == 464
    step = (moe_read(464) + 464 * 3500 * KV_TOKEN) / GROUP_B
    assert cut.e.gpu_s == pytest.approx(4 * (cut.e.prefill_s + 5000 * step / 464))
    assert cut.token_ratio == 16000 / 5000 and cut.gpu_ratio > cut.token_ratio  # more than in proportion
    assert rows[None].thinking == 15000 and rows[None].gpu_ratio == 1
    # the first visible token: the prefill alone, then every thinking token at the row's TPOT
    assert cut.visible_s == pytest.approx(cut.e.prefill_alone_s + 4000 * cut.e.tpot_s)


def test_latency_and_samples(q):
    r = q.rsn
    assert r.visible_s == pytest.approx(r.e.prefill_alone_s + 15000 * r.e.tpot_s)
    assert r.total_s == pytest.approx(r.visible_s + 1000 * r.e.tpot_s)
    # alone on the replica at 9,000 tokens: (22.19e9 active bytes + one sequence's KV) / group bandwidth
    alone = (moe_read(1) + 9000 * KV_TOKEN) / GROUP_B
    assert r.alone_step_s == pytest.approx(alone, rel=1e-9)
    assert r.visible_floor_s == pytest.approx(15000 * alone)
    # 8 samples: 1,000 + 8 x 8,000 = 65,000 shared against 8 x 9,000 = 72,000
    s = r.sampled
    assert (s.shared_tokens, s.unshared_tokens) == (65000, 72000)
    assert s.saving == pytest.approx(1 - 65 / 72)
    assert s.queries == math.floor(BUDGET / (65000 * KV_TOKEN)) == 25 and s.sequences == 200
    assert r.sc_gain == pytest.approx(0.867 - 0.710)


def test_the_structured_replica(q):
    so = q.so
    w, c = 2 * 8_030_261_248 / 3.35e12, 2 * 32 * 8 * 128 * 2 * 1000 / 3.35e12
    assert (so.r.weight_s, so.r.kv_s) == (pytest.approx(w), pytest.approx(c))
    # naive: 128,256 x 2 x 13 / 2e9 = 1.667 ms; GPT-OSS's 201,088: 2.614 ms
    assert so.naive["llama-3.1-8b"] == pytest.approx(128256 * 26 / 2e9)
    assert so.naive["gpt-oss-120b"] == pytest.approx(201088 * 26 / 2e9)
    rows = {row.engine: row for row in so.rows}
    # XGrammar's 728 us on one thread: 4.794 / (0.728 - 0.0391) = 6.96 -> 7; on eight: 92.4 -> 93
    assert rows["xgrammar"].n1.crossover == pytest.approx(w / (728e-6 - c))
    assert (rows["xgrammar"].n1.first, rows["xgrammar"].n8.first) == (7, 93)
    # llguidance's 64 us: one thread 192.7 -> 193; eight threads 8 us < 39.1 us of KV: never
    assert (rows["llguidance"].n1.first, rows["llguidance"].n8.first) == (193, None)
    # four drafts, one thread: 5 x 64 = 320 us -> 4.794 / (0.320 - 0.0391) = 17.07 -> 18
    assert so.spec.first == 18
    # batch 64: floor 4.794 + 64 x 0.0391 = 7.298 ms; XGrammar's masks 64 x 0.728 = 46.59 ms on one thread
    assert so.gpu_at == pytest.approx(w + 64 * c) and so.cpu_slow == pytest.approx(64 * 728e-6)
    assert so.overlapped == pytest.approx(64 * 728e-6) and so.serial == pytest.approx(w + 64 * c + 64 * 728e-6)
    assert so.tail_share == pytest.approx(1 - 0.99 ** 64)
    assert so.ff_bound == pytest.approx(1 / 0.85) and so.llgtrt_batch == pytest.approx(16 * 10e-3 / 100e-6)
    assert so.bitmask == 128256 // 32 * 4


def test_every_assumption_holds_today(q):
    for a in (q.rsn.memory_bound, q.rsn.prefill_small, q.rsn.budget_steps_no_faster, q.rsn.fewer_share,
              q.so.xgr_split, q.so.medians_below, q.so.ff_claim_within,
              q.so.llgtrt_agrees, q.problems.big_more_room, q.problems.spec_more_than):
        assert a.holds, a.evidence


def test_the_tail_masks_that_outlast_the_step_are_counted(q):
    # n masks of p99 time t on one thread outlast a step s when n t > s: the least such n is floor(s / t) + 1.
    p = q.problems
    n = p.tail_outlast
    assert n * p.tail_p99 > p.tail_step and (n - 1) * p.tail_p99 <= p.tail_step


def test_the_assumptions_break_when_their_data_does():
    t = copy.deepcopy(reasoning.topic())
    t.reasoning_request.thinking_tokens, t.reasoning_request.answer_tokens = 100, 100  # prefill is now much
    assert not reasoning.reasoning_section(t).prefill_small.holds
    t = copy.deepcopy(reasoning.topic())
    t.llgtrt.batch = 160  # the README's old figure: 1 ms a mask
    t.fast_forward.claimed_gain_high = 0.5  # more than the no-cost bound allows
    t.mask_time.xgrammar.p50 = 600e-6  # XGrammar's median now slower than llguidance's ...
    t.mask_time.llguidance.p50 = 500e-6  # ... and neither a tenth of the 1.67 ms naive walk
    so = reasoning.structured_section(t)
    assert not so.llgtrt_agrees.holds and not so.ff_claim_within.holds
    assert not so.xgr_split.holds and not so.medians_below.holds


def test_the_generated_words_follow_the_numbers():
    assert "running cap of 1,024" in reasoning.cap_words(True, 1024)
    assert "KV cache binds before" in reasoning.cap_words(False, 1024)
    assert reasoning.proportion_words(8.1, 3.2).startswith("more than")
    assert reasoning.proportion_words(3.2, 3.2).startswith("in proportion")
    assert reasoning.proportion_words(2.0, 3.2).startswith("less than")
    assert rs.sharing_words(0.8) == "most of the KV cache" and rs.sharing_words(0.1).startswith("a minority")
    never = SimpleNamespace(first=None)
    assert rs.crossover_words(never, 400).startswith("never")
    assert rs.crossover_words(SimpleNamespace(first=500), 400).startswith("only past 500")
    assert rs.crossover_words(SimpleNamespace(first=93), 400) == "from 93 sequences"
    assert reasoning.tail_words(5.7e-3, 7.3e-3) == "takes 78.1% of the step by itself"
    assert reasoning.tail_words(9e-3, 7.3e-3) == "outlasts the whole step by itself"
    assert rs.than(10.2, 7.8) == "1.31× cheaper" and rs.than(7.8, 10.2) == "1.31× dearer"
    assert reasoning.phrase(5.7e-3, 1.67e-3, "about equal to", "above", "below") == "above"
    assert rs.tpot_words(True).startswith("the fitted") and rs.tpot_words(False).startswith("the floor")


def test_the_problems(q):
    p = q.problems
    # P1: MLA 61 x (512 + 64) x 2 B = 70,272 B a token; TP holds 8 copies: budget over 8 x 9,000 x 70,272
    tp_budget = 8 * 141e9 - 671e9 - 8 * 4e9
    assert p.r1_tp.batch == math.floor(tp_budget / (8 * 9000 * 70272))
    assert p.r1_dp.batch > p.r1_tp.batch
    # P4: 20,000 + 8 x 2,000 = 36,000 shared, 8 x 22,000 = 176,000 unshared: 79.5% saved
    assert (p.distill_sampled.shared_tokens, p.distill_sampled.unshared_tokens) == (36000, 176000)
    # P5: the thinking that fits in 60 s at the replica's TPOT
    assert p.slo_budget == pytest.approx((60 - p.slo.prefill_alone_s) / p.slo.tpot_s)
    # P6: 201,088 x 2 x 13 / 2e9 = 2.614 ms a mask
    assert p.naive == pytest.approx(201088 * 26 / 2e9)
    # P10: 15% of 300 = 45 forced, 255 steps, at most 300 / 255
    assert (p.forced, p.json_steps, p.json_bound) == (45, 255, pytest.approx(300 / 255))
