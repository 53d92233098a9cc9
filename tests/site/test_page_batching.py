"""Chapter 4's page model (macros/site/pages/batching.py) against figures derived by hand for the anchor:
Llama-70B (70e9 parameters, BF16: 140e9 B; 327,680 B of KV per token) on 4 x H100 (3.35e12 B/s and
989.4e12 FLOP/s each), a 164e9 B KV budget, sequences of 4,096 tokens (1,342,177,280 B of KV); the
worked inputs: outputs of 10, 200, 15 and 180 tokens, an arrival at step 11, 50 generated tokens,
16-token blocks, a 2,000-token prompt, 512-token chunks, 60 decoding sequences."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.lookup import get_gpu
from macros.engine.model.scenario import scenario
from macros.site.pages import batching


@pytest.fixture(scope="module")
def q():
    return batching.model()


def test_static_batch(q):
    # mean (10 + 200 + 15 + 180) / 4 = 101.25 against 200: 50.6%; 4 x 200 = 800 slot-steps, 800 - 405 idle
    assert q.mean_length == 101.25
    assert q.util == pytest.approx(0.50625)
    assert (q.slot_steps, q.idle_slot_steps) == (800, 395)
    # finishing order 10, 15, 180, 200 = sequences 0, 2, 3, 1; slots then idle 190, 185, 20 steps
    assert [(r.step, r.sequence, r.idle) for r in q.static_rows] == [(10, 0, 190), (15, 2, 185), (180, 3, 20),
                                                                     (200, 1, 0)]
    assert [r.last for r in q.static_rows] == [False, False, False, True]


def test_head_of_line_wait(q):
    # arrival at step 11 waits 200 - 11 = 189 steps; at batch 4 a step reads 140e9 + 4 x 1,342,177,280
    # = 145,368,709,120 B over 13.4e12 B/s: 10.85 ms (memory-bound), so 2.05 s
    assert q.wait_steps == 189
    assert q.wait_s == pytest.approx(189 * 145_368_709_120 / 13.4e12)


def test_paged_attention(q):
    # reserve 4,096 tokens, write 50: 4,046 / 4,096 = 98.8% waste, 4,046 x 327,680 = 1,325,793,280 B
    assert q.waste_fraction == pytest.approx(4046 / 4096)
    assert q.waste_bytes == 1_325_793_280
    # 50 tokens in 16-token blocks: 4 blocks, 64 - 50 = 14 slots (4,587,520 B) empty
    assert (q.blocks, q.tail_slots, q.tail_bytes) == (4, 14, 4_587_520)
    # contiguous at 131,072 tokens: 164e9 / 42,949,672,960 = 3.8 -> 3 sequences
    assert q.max_context_batch == 3
    # 4 samples of a 2,000-token prompt copied: 4 x 2,000 x 327,680 = 2,621,440,000 B
    assert q.samples_kv == 2_621_440_000


def test_chunked_prefill(q):
    # one H100: 2 x 70e9 x 2,000 = 2.8e14 FLOP / 989.4e12 = 283.0 ms (compute-bound)
    assert q.prefill_one_gpu_s == pytest.approx(2.8e14 / 989.4e12)
    assert q.chunks == 4  # 2,000 / 512 rounds up
    # 60 decodes read 140e9 + 60 x 1,342,177,280 = 220,530,636,800 B: 16.46 ms over 13.4e12 B/s;
    # their 8.4e12 FLOP take 2.12 ms on 4 x 989.4e12, so memory-bound
    assert q.step_decode.tokens == 60
    assert q.step_decode.floor_s == pytest.approx(220_530_636_800 / 13.4e12)
    # with a 512-token chunk: 572 tokens, 2 x 70e9 x 572 = 8.008e13 FLOP / 3.9576e15 = 20.23 ms, compute-bound
    assert q.step_chunk.tokens == 572
    assert q.step_chunk.floor_s == pytest.approx(8.008e13 / 3.9576e15)
    # the whole prompt: 2,060 tokens, 2.884e14 / 3.9576e15 = 72.87 ms
    assert q.step_prefill.floor_s == pytest.approx(2.884e14 / 3.9576e15)


def test_static_batch_step_derived(q):
    # batch 4 on the anchor: 140e9 + 4 x 1,342,177,280 = 145,368,709,120 B over 4 x 3.35e12: 10.85 ms
    assert q.s_small.decode_bytes == 145_368_709_120
    assert q.s_small.decode_step_s == pytest.approx(145_368_709_120 / 13.4e12)


def test_paging_holds_the_batch_of_real_lengths(q):
    # consumer chat: a 2,000-token prompt, half of a 400-token reply and half a 16-token block = 2,208
    # tokens held on average; x 327,680 = 723,517,440 B; 164e9 / that = 226.7 -> 226, 1.85x the 122
    assert q.held_tokens == 2208
    assert q.held_kv == 723_517_440
    assert q.paged_batch == 226
    assert q.paged_gain == pytest.approx(226 / 122)


def test_curve_points(q):
    # H100 x 4: batch 1 reads 141,342,177,280 B / 13.4e12 = 10.55 ms -> 94.8 tokens/s;
    # batch 64: 225,899,345,920 B -> 16.86 ms, 59.3 per user, 3,796 in aggregate; 122: 5,382
    h100 = q.curve_h100
    assert [s.batch for s in h100] == [1, 64, 122]
    assert h100[0].decode_tokens_per_s_per_user == pytest.approx(13.4e12 / 141_342_177_280, rel=1e-3)
    assert h100[1].decode_tokens_per_s == pytest.approx(64 * 13.4e12 / 225_899_345_920, rel=1e-3)
    # H200 x 4: budget 4 x 141e9 - 140e9 - 16e9 = 408e9 -> 303.98 -> 303; 140e9 + 303 x 1,342,177,280
    # = 546,679,715,840 B over 19.2e12: 28.47 ms, 10,642 tokens/s
    h200 = q.curve_h200
    assert [s.batch for s in h200] == [1, 64, 303]
    assert h200[2].decode_tokens_per_s == pytest.approx(303 * 19.2e12 / 546_679_715_840, rel=1e-3)
    # batch 1 to 122 on H100: 122 x 141.34 / 303.75 = 56.8x the throughput; per user 141.34 / 303.75 = 0.465
    assert q.curve_gain == pytest.approx(122 * 141_342_177_280 / 303_745_628_160, rel=1e-3)
    assert q.curve_user_share == pytest.approx(141_342_177_280 / 303_745_628_160, rel=1e-3)


def test_problem_head_of_line_on_an_l4(q):
    # 8B on one L4 at batch 4: 16,060,522,496 + 4 x 536,870,912 = 18,208,006,144 B / 0.3e12 = 60.69 ms;
    # 189 steps of it: 11.47 s
    p = q.problems
    assert p.small_static.decode_step_s == pytest.approx(18_208_006_144 / 0.3e12)
    assert p.small_wait_s == pytest.approx(189 * 18_208_006_144 / 0.3e12)


def test_problem_paging_on_an_l4(q):
    # full context 131,072 x 131,072 B = 17,179,869,184 B: more than the 3,939,477,504 B budget, so none;
    # at 4,096 tokens 7; paged at 2,208 tokens: 289,406,976 B each -> 13.6 -> 13
    p = q.problems
    assert p.small_max_context_kv == 17_179_869_184 > p.small.kv_budget_bytes
    assert (p.small.max_batch, p.small_paged_batch) == (7, 13)


def test_problem_batch_for_a_tpot_target(q):
    # planned 50 ms at efficiency 0.4: a floor of 20 ms. H100 x 4: 20 ms x 13.4e12 = 268e9 B,
    # (268e9 - 140e9) / 1,342,177,280 = 95.4 -> 95; H200 x 4: 384e9 B -> 181.8 -> 181
    p = q.problems
    assert p.tpot_floor_s == pytest.approx(0.02)
    assert (p.slo_h100.batch, p.slo_h200.batch) == (95, 181)
    assert p.slo_h100.planned_step_s <= 0.05 < batching.scenario("llama-70b", "h100", gpus=4, batch=96).planned_step_s


def test_problem_chunk_for_a_tpot_target(q):
    # 64 decodes on 4 x H200, a 20 ms floor: 2 x 70e9 x (64 + c) <= 0.02 x 4 x 989.4e12 = 7.9152e13 FLOP,
    # so 64 + c <= 565.4: c = 501; memory 225,899,345,920 B / 19.2e12 = 11.8 ms stays below; the same on H100
    p = q.problems
    assert p.chunk == 501 and p.chunk_h100 == 501
    assert p.chunk_step.floor_s <= 0.02 < p.chunk_step_over.floor_s
    assert p.chunk_memory_s == pytest.approx(225_899_345_920 / 19.2e12)
    # The sentence that answers "is it different on H100s?" is generated from the comparison.
    assert p.chunk_h100_words == ("the answer is the same, 501 tokens: the two GPUs have the same compute, and a "
                                  "compute-bound step does not care about bandwidth")
    # The decodes alone: 11.8 ms on the H200; on the H100, 225,899,345,920 B / 13.4e12 = 16.9 ms; both < 20 ms.
    assert p.decodes_leave_room.holds


def test_the_chunk_answer_on_an_h100_with_half_the_compute():
    # At 494.7 TFLOP/s: 64 + c <= 0.02 x 4 x 494.7e12 / 1.4e11 = 282.7, so c = 218 against the H200's 501.
    h100, h200 = get_gpu("h100"), get_gpu("h200")
    half = dataclasses.replace(h100, bf16_flops=494.7e12)
    assert batching.largest_chunk(scenario("llama-70b", half, gpus=4, batch=64), 0.05) == 218
    assert batching.chunk_on_other_gpu(501, 218, h200, half, 0.01, 0.02) == (
        "the answer is 218 tokens against 501: the H100 SXM has 0.5\u00d7 the dense BF16 compute of the H200 SXM, "
        "and a compute-bound step is set by compute, not by bandwidth")


def test_decodes_that_fill_the_step_leave_no_room_for_a_chunk():
    # On an H100 at 1 TB/s the 64 decodes read 225,899,345,920 B / 4e12 = 56.5 ms, past a 20 ms step.
    slow = dataclasses.replace(get_gpu("h100"), bandwidth_bytes_per_s=1e12)
    s = scenario("llama-70b", slow, gpus=4, batch=64)
    fact = batching.decodes_leave_room([(s, 225_899_345_920 / 4e12)], 0.02)
    assert not fact.holds and fact.evidence == "the decodes' reads: H100 SXM 56.5 ms, against a step of at most 20 ms"
    # On the other GPU of the problem the same reads are said in words instead: no chunk rides along.
    assert batching.chunk_on_other_gpu(501, 0, get_gpu("h200"), slow, 225_899_345_920 / 4e12, 0.02) == (
        "no chunk rides along: the decodes alone read for 56.5 ms, over the 20 ms the step may take, so the step "
        "is memory-bound before any prefill joins it")


def test_the_budget_trade_off_runs_the_answer_at_each_budget():
    from types import SimpleNamespace as NS

    from macros.engine.fleet.answer import TOKEN_BUDGETS, default_budget
    from macros.engine.fleet.planner_simulated import run_request
    from macros.engine.serving.cache import cached_run
    from macros.site.pages import _budget

    x = _budget.budgets()
    a, w = x.answer, x.workload
    # every budget the planner tries, largest first, the engine's own among them, each at the answer's count:
    # its replica's share of the peak is peak / replicas
    assert [r.budget for r in x.rows] == sorted({default_budget(w), *TOKEN_BUDGETS}, reverse=True)
    assert x.default.budget == default_budget(w) and x.chosen.budget == a.token_budget
    for r in x.rows:
        run = cached_run(run_request(dataclasses.replace(w, token_budget=r.budget), a.gpus_per_replica,
                                     w.peak_requests_per_s / a.replicas))
        assert (r.itl_p95_s, r.ttft_p95_s) == (run["itl_s"]["p95"], run["ttft_s"]["p95"])
    # the trade: the smallest budget gives a shorter gap and a longer TTFT than the largest
    assert x.smallest.itl_p95_s < x.largest.itl_p95_s and x.smallest.ttft_p95_s > x.largest.ttft_p95_s
    # the words name the budgets whose runs meet every target (1 s TTFT, 50 ms gap here), from the runs alone
    def row(budget, ttft, itl):
        return NS(budget=budget, run={"ttft_s": {"p95": ttft}, "itl_s": {"p95": itl}})
    targets = {"ttft_p95_s": ("ttft_s", "p95", 1.0), "itl_p95_s": ("itl_s", "p95", 0.05)}
    rows = [row(2048, 0.4, 0.09), row(1024, 0.6, 0.045), row(512, 0.9, 0.03), row(256, 3.0, 0.02)]
    assert _budget._words(rows, rows[1], targets) == ("at this count 1,024, 512 tokens a step meet every target, "
                                                      "and the answer runs 1,024, the budget whose fleet is smallest")
    assert _budget._words(rows[:1], rows[0], targets) == "at this count no budget meets every target"
