"""The simulator against queueing theory in its exact limits, and against itself (ARCHITECTURE.md): M/D/1's
mean wait, Little's law on every run, throughput equal to the arrival rate below saturation, the same
run for the same seed, and the schedulers' rules (chunks, prefill-first, preemption)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from macros.engine.serving.arrivals import ClosedLoop, Gamma, Poisson, Trace, cached_tokens, requests
from macros.engine.serving.lengths import Fixed, Lognormal, RangeRatio
from macros.engine.serving.metrics import goodput, nearest_rank, summarize, weighted_ranks
from macros.engine.serving.prng import Rng
from macros.engine.serving.profiles import profile
from macros.engine.serving.replica import build_replica
from macros.engine.serving.sim import RequestStream, SimulationError, simulate
from macros.engine.serving.step import StepParams, costs, step_time_s
from macros.engine.serving.types import StepBatch

PARAMS = StepParams(bw_fraction=0.7, gemm_fraction=0.5, moe_fraction=0.3, attn_fraction=0.3, link_latency_s=8e-6,
                    step_overhead_s=300e-6, sequence_overhead_s=10e-6, layer_overhead_s=30e-6,
                    eager_layer_overhead_s=30e-6)
LLAMA = build_replica("llama-3.1-8b", "h100", 1)
VLLM = profile("vllm", "h100", "llama-3.1-8b", "bf16")
ONE_AT_A_TIME = dataclasses.replace(VLLM, max_running=1)
PROMPT = 512


def service_s() -> float:
    """One 512-token prompt with one output token: a single prefill step, not graphed."""
    b = StepBatch(prefill_tokens=PROMPT, prefill_seqs=1, prefill_pairs=PROMPT * (PROMPT + 1) / 2)
    return step_time_s(costs(LLAMA, PARAMS), b, graphed=False)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_one_sequence_at_a_time_queues_exactly_as_lindley_says(rho):
    # One sequence at a time, a fixed prompt, one output token: every request is one prefill step of the
    # same length D, so the queue is a D/1 server, and each wait obeys Lindley's recursion
    # W(n+1) = max(0, W(n) + D - (A(n+1) - A(n))) on the same arrival times, to rounding.
    d = service_s()
    w = RequestStream(Poisson(rho / d), Fixed(PROMPT), Fixed(1), 4000, seed=11)
    result = simulate(LLAMA, PARAMS, ONE_AT_A_TIME, w)
    arrivals = [q.arrival_s for q in requests(w.arrivals, w.prompt, w.output, w.requests, Rng(w.seed))]
    expected, wait = [], 0.0
    for n, a in enumerate(arrivals):
        if n:
            wait = max(0.0, wait + d - (a - arrivals[n - 1]))
        expected.append(wait)
    got = [r.queue_s for r in sorted(result.records, key=lambda r: r.id)]
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert all(r.ttft_s == pytest.approx(r.queue_s + d, rel=1e-9) for r in result.records)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_lindleys_recursion_gives_md1s_mean_wait(rho):
    # The previous test shows the simulator's waits are Lindley's. Over Poisson arrivals Lindley's mean wait
    # tends to M/D/1's, rho D / (2 (1 - rho)) (Pollaczek-Khinchine with a deterministic service): 0.5 D at
    # rho 0.5 and 2 D at 0.8. The waits' autocorrelation at 0.8 needs millions of requests to pin the mean
    # to 1 %, more than the simulator runs in a test, so this part runs the recursion alone, vectorised:
    # W(n) = S(n) - min over k <= n of S(k), S the running sum of D - gap. Three million requests, after
    # 100,000 of warm-up from an empty queue.
    d = 1.0
    gaps = np.random.default_rng(5).exponential(d / rho, size=3_100_000)
    s = np.concatenate([[0.0], np.cumsum(d - gaps[1:])])
    waits = s - np.minimum.accumulate(np.minimum(s, 0.0))
    assert waits[100_000:].mean() == pytest.approx(rho * d / (2 * (1 - rho)), rel=0.03)


RUNS = {
    "closed loop": (VLLM, RequestStream(ClosedLoop(16), RangeRatio(1024, 0.8), RangeRatio(256, 0.8), 160, seed=1)),
    "poisson": (VLLM, RequestStream(Poisson(20.0), Fixed(900), Lognormal(200, 0.7), 400, seed=2)),
    "bursty": (VLLM, RequestStream(Gamma(20.0, 3.0), RangeRatio(2048, 0.5), Fixed(100), 400, seed=3)),
    "prefill-first": (profile("sglang", "h100", "llama-3.1-8b", "bf16"),
                      RequestStream(Poisson(20.0), Fixed(900), Fixed(150), 300, seed=4)),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_littles_law_holds_on_every_run(name):
    # L, the time-average of requests in the system, is integrated by the event loop; lambda W comes from
    # the per-request records. Two bookkeepings of the same run, which must agree.
    prof, w = RUNS[name]
    s = summarize(simulate(LLAMA, PARAMS, prof, w))
    assert s.littles_law_l == pytest.approx(s.littles_law_lambda_w, rel=0.01)
    assert s.requests == w.requests


def test_below_saturation_throughput_equals_the_arrival_rate():
    # 20 requests/s of 900 + 150 tokens on one H100 is below its capacity: the queue stays short (the median
    # wait under a step), and served requests/s and output tokens/s are the offered 20 and 20 x 150, to the
    # sampling error of 3,000 Poisson gaps (1.8 %).
    w = RequestStream(Poisson(20.0), Fixed(900), Fixed(150), 3000, seed=9)
    s = summarize(simulate(LLAMA, PARAMS, VLLM, w))
    assert s.requests_per_s == pytest.approx(20.0, rel=0.05)
    assert s.output_tokens_per_s == pytest.approx(20.0 * 150, rel=0.05)
    assert s.queue_s["p50"] < s.tpot_s["p50"]


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    prof, w = RUNS["bursty"]
    a, b = simulate(LLAMA, PARAMS, prof, w), simulate(LLAMA, PARAMS, prof, w)
    assert a.records == b.records and a.duration_s == b.duration_s
    c = simulate(LLAMA, PARAMS, prof, dataclasses.replace(w, seed=w.seed + 1))
    assert c.records != a.records


def test_a_prompt_longer_than_the_budget_is_chunked_over_steps():
    # vLLM's budget is 8,192 tokens a step: a lone 20,000-token prompt takes ceil(20,000 / 8,192) = 3 steps,
    # so its first token comes at the end of the third.
    c = costs(LLAMA, PARAMS)
    w = RequestStream(Trace((0.0,), (20_000,), (2,)), Fixed(1), Fixed(1), 1)
    r = simulate(LLAMA, PARAMS, VLLM, w).records[0]
    pairs = [(0, 8192), (8192, 16384), (16384, 20000)]
    steps = [step_time_s(c, StepBatch(prefill_tokens=b - a, prefill_seqs=1, prefill_prefix_tokens=a,
                                      prefill_pairs=b * (b + 1) / 2 - a * (a + 1) / 2), graphed=False)
             for a, b in pairs]
    assert r.ttft_s == pytest.approx(sum(steps), rel=1e-12)


def test_a_cached_prefix_is_not_prefilled_again():
    # A lone 4,000-token prompt with 75 % of it cached: one step prefills the last 1,000 tokens, attending back
    # to the 3,000 cached ones: pairs 4,000 x 4,001 / 2 - 3,000 x 3,001 / 2, the 3,000-token prefix's KV read.
    c = costs(LLAMA, PARAMS)
    w = RequestStream(Trace((0.0,), (4000,), (2,)), Fixed(1), Fixed(1), 1, prefix_hit_rate=0.75)
    r = simulate(LLAMA, PARAMS, VLLM, w).records[0]
    step = step_time_s(c, StepBatch(prefill_tokens=1000, prefill_seqs=1, prefill_prefix_tokens=3000,
                                    prefill_pairs=4000 * 4001 / 2 - 3000 * 3001 / 2), graphed=False)
    assert r.ttft_s == pytest.approx(step, rel=1e-12)


def test_the_cached_share_of_a_prompt_rounds_down_and_leaves_one_token_to_compute():
    # 100 x 0.29 is 28.999999999999996 in floating point: 29 tokens, not 28. A fully cached prompt still
    # computes its last token (the first output token is sampled from it): 9 of 10.
    assert (cached_tokens(100, 0.29), cached_tokens(10, 1.0), cached_tokens(7, 0.5), cached_tokens(5, 0.0)) == \
        (29, 9, 3, 0)


def test_prefill_first_stops_the_decodes_for_a_prefill_and_decode_first_does_not():
    # Two requests: one decoding when the other's 4,000-token prompt arrives. Under prefill-first the decode
    # waits a whole prefill step; decode-first folds the prompt into a decode step, which is shorter than a
    # decode step and a prefill step one after the other.
    w = RequestStream(Trace((0.0, 0.05), (100, 4000), (200, 2)), Fixed(1), Fixed(1), 2)
    first = simulate(LLAMA, PARAMS, dataclasses.replace(VLLM, policy="prefill-first"), w).records
    mixed = simulate(LLAMA, PARAMS, VLLM, w).records
    assert first[-1].e2e_s > mixed[-1].e2e_s


def test_when_blocks_run_out_the_newest_sequence_is_preempted_and_recomputed():
    # A pool of 64 blocks of 16 tokens (1,024 tokens) cannot hold four 300-token sequences growing to 500:
    # the newest is preempted, prefilled again later, and every request still gets all its tokens.
    # 64 blocks x 16 tokens x 131,072 B per token (2 x 32 layers x 8 heads x 128 x 2 B), half a block to spare.
    pool = (64.5 * 16 * 131_072)
    small = dataclasses.replace(LLAMA, memory_bytes=(LLAMA.weight_bytes_held + pool) / 0.9)
    w = RequestStream(ClosedLoop(4), Fixed(300), Fixed(200), 8, seed=1)
    result = simulate(small, PARAMS, VLLM, w)
    assert result.kv_blocks == 64
    assert result.preemptions > 0
    assert sorted(r.id for r in result.records) == list(range(8))
    s = summarize(result)
    assert s.littles_law_l == pytest.approx(s.littles_law_lambda_w, rel=0.01)


def test_a_request_that_can_never_fit_is_one_clear_error():
    tiny = dataclasses.replace(LLAMA, memory_bytes=(LLAMA.weight_bytes_held + 10 * 16 * 131_072) / 0.9)
    w = RequestStream(Trace((0.0,), (5000,), (10,)), Fixed(1), Fixed(1), 1)
    with pytest.raises(SimulationError, match="cannot fit"):
        simulate(tiny, PARAMS, VLLM, w)


def test_percentiles_are_nearest_rank_and_goodput_counts_requests_meeting_every_slo():
    # 10 values 1..10: p50 is the 5th, p90 the 9th, p99 the ceil(9.9) = 10th.
    values = [float(v) for v in range(1, 11)]
    assert [nearest_rank(values, p) for p in (50, 90, 99)] == [5.0, 9.0, 10.0]
    _, w = RUNS["closed loop"]
    rows = simulate(LLAMA, PARAMS, VLLM, w).records
    loose = goodput(rows, ttft_s=1e9, tpot_s=1e9)
    assert loose == 1.0
    strict = goodput(rows, tpot_s=nearest_rank(sorted(r.tpot_s for r in rows), 50))
    assert 0.45 <= strict <= 0.55


def test_weighted_percentiles_are_the_first_value_whose_running_weight_reaches_p_percent():
    # Gaps 0.05 s (weight 6), 0.01 s (3), 0.20 s (1), given out of order: sorted 0.01 (3), 0.05 (6), 0.20 (1),
    # total 10, running weights 3, 9, 10. p50 needs 5: 0.05; p90 needs 9: 0.05 (9 >= 9); p95 needs 9.5: 0.20;
    # p99 needs 9.9: 0.20. One pass gives each as a separate scan would; p10 needs 1: the first value, 0.01.
    pairs = [(0.05, 6.0), (0.01, 3.0), (0.20, 1.0)]
    assert weighted_ranks(pairs, (10, 50, 90, 95, 99)) == [0.01, 0.05, 0.05, 0.20, 0.20]
    assert [weighted_ranks(pairs, (p,))[0] for p in (10, 50, 90, 95, 99)] == [0.01, 0.05, 0.05, 0.20, 0.20]
    assert np.isnan(weighted_ranks([], (50,))[0])


def test_a_closed_loop_deeper_than_the_batch_reports_the_batchs_throughput():
    # 1,024 clients on an engine that runs 128 sequences at a time: 128 run, the rest wait, so the replica
    # serves exactly what a closed loop of 128 would, and a benchmark client counts every request's tokens
    # over the whole run. Both runs send 10 requests per client's slot on the engine (1,280 in all for the
    # 128-client run; 10,240 would only repeat it), so their throughput agrees to the ramp-down at the end
    # (the last wave drains with a shrinking batch in both, 1/10 of each run): within 3 %. Counting only the
    # requests after the first wave of 1,024, over their own span, reported 0.56 of it.
    capped = dataclasses.replace(VLLM, max_running=128)
    deep = RequestStream(ClosedLoop(1024), Fixed(512), Fixed(128), 1280 + 1024 - 128, seed=3)
    level = RequestStream(ClosedLoop(128), Fixed(512), Fixed(128), 1280, seed=3)
    a, b = (summarize(simulate(LLAMA, PARAMS, capped, w), warmup=w.arrivals.concurrency) for w in (deep, level))
    assert a.output_tokens_per_s == pytest.approx(b.output_tokens_per_s, rel=0.03)


def test_throughput_is_every_requests_tokens_over_the_whole_run():
    # The client's own arithmetic: all output tokens, the warm-up's included, over first send to last finish.
    prof, w = RUNS["closed loop"]
    result = simulate(LLAMA, PARAMS, prof, w)
    s = summarize(result, warmup=16)
    span = max(r.arrival_s + r.e2e_s for r in result.records) - min(r.arrival_s for r in result.records)
    assert s.output_tokens_per_s == pytest.approx(sum(r.output_tokens for r in result.records) / span, rel=1e-12)
    assert s.requests == w.requests - 16 and s.warmup_requests == 16



@pytest.mark.parametrize("prefix_caching, recomputed", [(True, 1), (False, 49)])
def test_a_preempted_sequence_recomputes_only_what_the_prefix_cache_lost(prefix_caching, recomputed):
    # Three 40-token prompts, 12 output tokens each, on a pool of 11 blocks of 16 tokens. Step 1 prefills all
    # three and samples their first tokens: each decodes from a context of 41 (3 blocks, 9 of 11). After 8
    # decode steps the contexts reach 49, 4 blocks each, 12 > 11: the newest (the third) is preempted with 9
    # tokens generated, 40 + 9 - 1 = 48 of them with their KV written, 3 full blocks; it must prefill
    # 40 + 9 = 49 tokens again, 4 blocks, and only 11 - 8 = 3 are free. The other two finish 3 decode steps
    # later (12 tokens each), when the pool has handed out 3 x 2 / 16 = 0.375 of a block: under prefix
    # caching its 3 blocks are intact and it recomputes 49 - 48 = 1 token; without, all 49.
    from macros.engine.serving.kv_blocks import KvPool
    from macros.engine.serving.policies import DecodeFirst
    from macros.engine.serving.scheduler import Scheduler
    from macros.engine.serving.types import Request, Sequence

    state = Scheduler(dataclasses.replace(VLLM, prefix_caching=prefix_caching), KvPool(blocks=11, block_tokens=16))
    state.waiting.extend(Sequence(Request(i, 0.0, 40, 12), 0.0, 0, target=40) for i in range(3))
    policy, now, readmitted = DecodeFirst(), 0.0, None
    for _ in range(20):
        plan = policy.plan(state, now, True)
        if state.preemptions and plan.chunks:
            readmitted = [(s.request.id, n) for s, n in plan.chunks]
            break
        now += 0.01
        state.finish_step(plan, 1, now)
    assert state.preemptions == 1
    assert readmitted == [(2, recomputed)]


def test_an_idle_spell_is_no_gap_between_tokens():
    # Five requests an hour apart: each runs alone, its prefill then 99 decode steps in one run of k = 99. A stream's
    # gaps are those 99 steps; the hour the replica idled before it is no gap any stream sees. So the token-weighted
    # p95 gap is one decode step, which is also the run's TPOT ((E2E - TTFT) / 99: the same 99 steps).
    w = RequestStream(Poisson(1 / 3600), Fixed(PROMPT), Fixed(100), 5, seed=3)
    r = simulate(LLAMA, PARAMS, VLLM, w)
    s = summarize(r)
    assert s.itl_s["p95"] == pytest.approx(s.tpot_s["p50"], rel=1e-9)
    assert max(gap for gap, _ in r.itl) < 1.0  # no entry spans the idle hour


def test_the_api_server_works_one_request_at_a_time_and_caps_the_rate():
    # An API server of a = 10 ms a request in front of an engine that serves a 16-token prompt and 2 output tokens
    # in a few milliseconds: 400 requests sent at once (a closed loop of 400, as an offline benchmark sends them)
    # reach the scheduler a apart, the k-th (from 0) at k a + the unqueued latency, so the replica finishes
    # 1 / a = 100 requests a second however fast its steps, and the first is not delayed at all.
    api = dataclasses.replace(PARAMS, api_request_s=0.010)
    w = RequestStream(ClosedLoop(400), Fixed(16), Fixed(2), 400, seed=1)
    result = simulate(LLAMA, api, VLLM, w)
    first = min(result.records, key=lambda r: r.ttft_s)
    assert first.ttft_s < 0.010 + 0.010  # its own 10 ms and a step or two
    span = max(r.arrival_s + r.e2e_s for r in result.records)
    assert len(result.records) / span == pytest.approx(100.0, rel=0.01)
    # the k-th request's queue before the engine includes k x 10 ms of the API server's queue
    assert sorted(r.ttft_s for r in result.records)[-1] >= 399 * 0.010
    # without it (a = 0) the same 400 requests finish many times faster
    fast = simulate(LLAMA, PARAMS, VLLM, w)
    assert max(r.arrival_s + r.e2e_s for r in fast.records) < span / 4


def test_the_closed_loops_equilibrium_meets_the_api_servers_bound():
    # The fit's stand-in for the simulator: a closed loop of C clients through a single server of a seconds a
    # request goes no faster than 1 / a (the asymptotic bound of a closed queueing network), and far below it the
    # server only adds its a to TTFT (to 1 %: the slower cycle moves the engine's own wait for a step a little).
    # 400 clients of 16-token prompts and 2 output tokens, a = 10 ms: X = 100/s.
    from macros.engine.serving.steady import ClosedLoopSetup, equilibrium

    def loop(clients: float, a: float):
        one = np.array([1.0])
        setup = ClosedLoopSetup(concurrency=clients * one, prompt=16 * one, output=2 * one, mixed=one,
                                token_budget=8192 * one, admission_interval=one, graph_max_batch=512 * one,
                                request_overhead_s=0 * one)
        return equilibrium(costs(LLAMA, dataclasses.replace(PARAMS, api_request_s=a)), setup)

    assert loop(400, 0.010).requests_per_s[0] == pytest.approx(100.0, rel=1e-6)
    one_client, without = loop(1, 0.010), loop(1, 0.0)
    assert one_client.ttft_s[0] == pytest.approx(without.ttft_s[0] + 0.010, rel=0.01)
    assert loop(400, 0.0).requests_per_s[0] > 4 * 100.0  # the engine alone is far faster


def _waiting(ids: list[int], prompt: int):
    from macros.engine.serving.types import Request, Sequence

    return [Sequence(Request(i, 0.0, prompt, 8), 0.0, 0, target=prompt) for i in ids]


@pytest.mark.parametrize("ids, admitted", [([0, 1], [0, 1]), ([0, 2], [0])])
def test_each_attention_data_parallel_rank_fills_its_own_token_budget(ids, admitted):
    # Two ranks (request id mod 2), vLLM's 8,192-token budget each: two 8,192-token prompts on different ranks
    # both start in the first step, one chunk a rank; two on the same rank take turns. The step's busiest rank
    # carries all 8,192 of its tokens: a share of 1/2 of 16,384, or 1 of 8,192.
    from macros.engine.serving.kv_blocks import KvPool
    from macros.engine.serving.policies import DecodeFirst
    from macros.engine.serving.scheduler import Scheduler

    state = Scheduler(VLLM, KvPool(blocks=10_000, block_tokens=16), ranks=2)
    state.waiting.extend(_waiting(ids, 8192))
    plan = DecodeFirst().plan(state, 0.0, True)
    assert [s.request.id for s, _ in plan.chunks] == admitted
    assert [n for _, n in plan.chunks] == [8192] * len(admitted)
    assert state.batch(plan).prefill_rank_share == pytest.approx(1 / len(admitted))


def test_sglang_divides_its_budget_and_cap_among_the_ranks_and_vllm_gives_each_rank_its_own():
    # SGLang's chunked_prefill_size and max_running_requests are the replica's, each rank taking 1/g (16,384 / 8 =
    # 2,048 tokens a step; its cap of 4,096 stays 4,096 for the replica); each vLLM engine core has its own 8,192 and
    # 1,024 (8 x 1,024 = 8,192 running on the replica). One rank: the settings as they are.
    from macros.engine.serving.profiles import rank_limits

    sglang = dataclasses.replace(profile("sglang", "h200", "deepseek-v3", "fp8"), token_budget=16_384,
                                 max_running=4096)
    assert rank_limits(sglang, 8) == (2048, 4096)
    assert rank_limits(VLLM, 8) == (8192, 8192)
    assert rank_limits(sglang, 1) == (16_384, 4096) and rank_limits(VLLM, 1) == (8192, 1024)
