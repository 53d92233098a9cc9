"""Chapter 7's page model (macros/site/pages/design_chatgpt.py) against figures derived by hand for
the anchor: Llama-70B (70e9 parameters, BF16, 80 layers, 64 query heads, 327,680 B of KV per token)
on 4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s), 4e9 B reserve per GPU, 4,096-token sequences.
Budget 320e9 - 140e9 - 16e9 = 164e9 B; 1,342,177,280 B per sequence: 122 sequences; the step at
122 reads 140e9 + 122 x 1,342,177,280 = 303.7456e9 B in 303.7456e9 / 13.4e12 = 22.667 ms."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from macros.engine.fleet.workload_file import Target
from macros.engine.serving import sweep
from macros.engine.serving.cache import cached_run
from macros.engine.serving.run import RunRequest
from macros.engine.serving.sweep import LoadPoint
from macros.site.pages import _answer_knee, _sweep, design_chatgpt, design_noise

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


# 7.2's answer against chapter 6's knee. The answer's replica, by hand from macros/data/designs/consumer-chat.toml:
# Llama-3.1-70B in BF16 on H100s (tensor parallel), 2,000-token prompts half from the prefix cache, 400-token
# answers, vLLM, at the shape and token budget the answer chose. Chapter 6's capacity is a closed loop of 64
# requests in flight, 192 requests (the first wave is warm-up); its sweep offers 0.1 ... 1.25 of it.
FRACTIONS = (0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25)


def test_the_answer_against_the_knee(q):
    a, kc = q.answer, q.against_knee
    # the napkin: 20% headroom, each replica planned at 1 / 1.2 = 83.3% of its capacity
    assert kc.napkin_load == pytest.approx(1 / 1.2)
    closed = RunRequest(model="llama-3.1-70b", gpu="h100", gpus=a.gpus_per_replica, input_tokens=2000,
                        output_tokens=400, engine="vllm", layout="tp", weights="bf16", kv="bf16", concurrency=64,
                        prefix_hit_rate=0.5, requests=192, token_budget=a.token_budget)
    capacity = cached_run(closed)["requests_per_s"]
    assert (kc.capacity_concurrency, kc.capacity_per_s) == (64, pytest.approx(capacity))
    # the answer's rate per replica: the peak, 100e6 / 86,400 x 2 = 2,314.8 requests/s, over its replicas
    rate = 100e6 / 86400 * 2 / a.replicas
    assert kc.rate_per_s == pytest.approx(rate)
    assert kc.utilisation == pytest.approx(rate / capacity)
    # in flight by Little's law: the rate times the answer's run's mean time in the system
    in_flight = rate * a.simulated.chosen.stats["e2e_s"]["mean"]
    assert kc.in_flight == pytest.approx(in_flight)
    assert kc.in_flight_words == ("more than" if in_flight > 64 else "fewer than")
    # the sweep at chapter 6's fractions of that capacity; the knee walked by hand: the last rate before p99 TTFT
    # first passes 2 x the lightest rate's
    points = kc.k.sweep.points
    assert [x.rate_per_s for x in points] == pytest.approx([f * capacity for f in FRACTIONS])
    limit = 2 * points[0].ttft_p99_s
    assert kc.k.limit_s == pytest.approx(limit)
    past = next((i for i, x in enumerate(points) if x.ttft_p99_s > limit), None)
    assert past is None or past >= 2, "the hand walk assumes a knee on the sweep"
    knee = points[-1] if past is None else points[past - 1]
    assert kc.knee_rate_per_s == pytest.approx(knee.rate_per_s)
    assert kc.knee_share == pytest.approx(knee.rate_per_s / capacity)
    # the p95 TTFT target, 500 ms, against the limit; where the answer's rate falls against the knee
    assert (kc.ttft_target.words, kc.ttft_target.seconds) == ("p95 TTFT", 0.5)
    assert kc.target_words == ("looser than" if 0.5 > limit else "tighter than")
    if rate <= knee.rate_per_s:
        assert "at or below their knee" in kc.position_words
    else:
        assert ("past their knee" if past is not None else "heaviest rate") in kc.position_words


def load_point(rate: float, ttft_p99: float) -> LoadPoint:
    return LoadPoint(rate_per_s=rate, requests_per_s=rate, ttft_p50_s=ttft_p99 / 2, ttft_p99_s=ttft_p99,
                     tpot_p50_s=0.02, tpot_p99_s=0.03, output_tokens_per_s_per_gpu=10.0, utilisation=rate / 4,
                     mean_batch=1.0)


def hand_sweep(*ttft_p99: float) -> _sweep.AnchorSweep:
    """A sweep of rates 1, 2, 3, ... against a capacity of 4 requests/s, with these p99 TTFTs."""
    points = tuple(load_point(i + 1, t) for i, t in enumerate(ttft_p99))
    return _sweep.AnchorSweep({}, 4.0, points, sweep.knee(list(points)))


def against(rate: float, swept: _sweep.AnchorSweep, in_flight: float = 100.0, target_s: float = 0.5):
    plan = SimpleNamespace(headroom=0.25)
    workload = SimpleNamespace(targets=(Target("ttft", 95, target_s), Target("tpot", 95, 0.05)))
    answer = SimpleNamespace(simulated_requests_per_s_per_replica=rate, live_concurrency_per_replica=in_flight,
                             simulated=SimpleNamespace(workload=workload))
    return _answer_knee.figures(plan, answer, swept)


def test_the_words_follow_the_comparisons():
    # p99 TTFT 1.0 s at the lightest rate, limit 2.0 s: 1.5 and 1.9 s stay under it, 2.1 s passes. The knee is
    # rate 3 (75% of the capacity of 4), the first past it rate 4.
    swept = hand_sweep(1.0, 1.5, 1.9, 2.1)
    x = against(2.5, swept)
    assert x.napkin_load == pytest.approx(0.8)  # 1 / 1.25
    assert (x.utilisation, x.knee_rate_per_s, x.knee_share) == (pytest.approx(2.5 / 4), 3, pytest.approx(0.75))
    assert "at or below their knee" in x.position_words
    assert "at or below their knee" in against(3.0, swept).position_words  # at the knee is not past it
    assert "past their knee" in against(3.5, swept).position_words
    # no rate passes the limit: the knee is the heaviest rate, and a heavier one is beyond the sweep, not past it
    beyond = against(5.0, hand_sweep(1.0, 1.5, 1.9)).position_words
    assert "heaviest rate" in beyond and "past" not in beyond
    # the second rate already passes: no knee, and any load is past it
    none = against(0.5, hand_sweep(1.0, 2.5, 3.0))
    assert none.knee_rate_per_s is None and "past their knee" in none.position_words
    # the TTFT target against the 2.0 s limit; requests in flight against the capacity's client's 64
    assert against(2.5, swept, target_s=0.5).target_words == "tighter than"
    assert against(2.5, swept, target_s=3.0).target_words == "looser than"
    assert against(2.5, swept, target_s=2.0).target_words == "equal to"
    assert [against(2.5, swept, in_flight=n).in_flight_words for n in (100, 64, 30)] == [
        "more than", "as many as", "fewer than"]


def test_the_chapter_s_answer_is_the_consumer_chat_design_s_with_its_tails_budget_and_assumptions(q):
    # One answer: the chapter's fleet is the worked design's (the same workload file), and the sentences beside it
    # are the designs' own, about that answer.
    a = q.chat.d.answer
    assert (q.answer.replicas, q.answer.gpus, q.answer.cost_per_day) == (a.replicas, a.gpus, a.cost_per_day)
    assert q.answer_p95s.startswith("p95 TTFT ") and "gap between tokens" in q.answer_p95s
    assert q.answer_budget_words.startswith(f"Each engine step carries at most {a.token_budget:,} tokens")
    assert f"the first {a.simulated.chosen.stats['warmup_requests']:,} as warm-up" in q.answer_assumptions_words


def test_the_fresh_draws_are_the_answer_run_again_on_seeds_no_search_saw(q):
    # Each draw is the answer's count on one of seeds 5 to 14, run as the search runs its own; the words count the
    # draws that meet every target and name the worst miss as its excess over the target (to four figures).
    from macros.engine.fleet import planner_simulated as ps

    a = q.chat.d.answer
    draws = ps.fresh_draws(a.simulated.workload, a.gpus_per_replica, a.replicas)
    assert [c.seed for c in draws] == list(range(5, 15)) and {c.replicas for c in draws} == {a.replicas}
    assert all(c.rate_per_s == pytest.approx(a.peak_requests_per_s / a.replicas) for c in draws)
    words = design_noise.fresh_words(a)
    held = sum(c.meets for c in draws)
    assert words.startswith(f"on {held} of 10 further draws (5 to 14)")
    misses = [(ps.slack(c.stats, t), t, ps.value(c.stats, t)) for c in draws for t in c.misses]
    if misses:
        _, t, v = max(misses, key=lambda m: m[0])
        assert words.endswith(f"missing by at most {(v / t.seconds - 1) * 100:.3g}% ({t.words} {v * 1e3:.4g} ms)")
    assert f"and {words} ([the method]" in q.answer_assumptions_words


def test_the_fleet_built_past_the_band_follows_the_draws(q, monkeypatch):
    # While more than half of chat's 10 further draws meet, a fleet's pooled p95, nearer the median draw, holds and
    # the answer is built; at half or fewer, the margin is. Both, on the answer's own draws and on five of ten.
    from macros.engine.fleet import planner_simulated as ps

    a = q.chat.d.answer
    draws = ps.fresh_draws(a.simulated.workload, a.gpus_per_replica, a.replicas)
    held = sum(c.meets for c in draws)
    if held > 5:
        assert design_noise.built_words(a).startswith("Against the draws' noise the answer holds")
        assert f"{held} of 10 draws meet" in design_noise.built_words(a)
    else:
        assert design_noise.built_words(a) == ("Against the draws' noise the margin is the fleet: the answer meets "
                                                f"on {held} of 10 draws only")
    five_miss = [SimpleNamespace(meets=i % 2 == 0) for i in range(10)]
    monkeypatch.setattr(ps, "fresh_draws", lambda *args: five_miss)
    assert design_noise.built_words(a) == ("Against the draws' noise the margin is the fleet: the answer meets on "
                                            "5 of 10 draws only")


def test_the_h200_problem_compares_napkins_in_words_that_follow_the_data(q):
    # within 5 %: "about"; 10 % under: "10% below"; 20 % over: "20% above"
    assert design_chatgpt.cost_words(1.04, 1.0, "X") == "about X"
    assert design_chatgpt.cost_words(0.9, 1.0, "X") == "10% below X"
    assert design_chatgpt.cost_words(1.2, 1.0, "X") == "20% above X"
    pr = q.problems
    assert pr.smallest_not_cheapest.holds == (pr.h200_cheapest.gpus_per_replica != pr.h200.gpus_per_replica)
    # the serving model against the napkin on consumer chat's eight-GPU replica (its critique 1)
    napkin, serving = q.chat.d.changes["tp8"].extra_gpus, q.chat.d.answer_changes["tp8"].extra_gpus
    assert q.shape_order_words.endswith("it does" if napkin < 0 < serving else "it does not, this time")


def test_the_chapter_shows_the_designs_answer_at_a_glance_linking_back_to_its_critiques(q):
    # The same block as the consumer chat design's, the answer's fleet in it, its critique link pointing at the
    # design's page rather than at a critique this chapter does not have.
    d = q.chat.d
    here, there = d.summary_elsewhere, d.summary
    assert "](../designs/consumer-chat.md#critique-" in here and "](#critique-" in there
    assert here.replace("../designs/consumer-chat.md#", "#") == there
    assert f"{d.answer.replicas:,} × {d.answer.gpus_per_replica}" in here


def test_the_rehearsed_line_names_what_caps_the_fleets_batch():
    # The line a candidate memorises must be true of the chapter's fleet: there the 50 ms TPOT target caps the
    # batch below what memory allows (161 of 207 at the time of writing), so the line says the target, not the KV
    # cache; a plan that memory caps gets the KV-cache line.
    from macros.engine.fleet.planner import plan
    from macros.engine.fleet.workload_file import design

    fleet = plan(design(design_chatgpt.FLEET_DESIGN)[0])
    assert fleet.binding == "tpot" and fleet.slo_batch < fleet.max_batch
    assert design_chatgpt.model().binding_line == ("The binding constraint is memory bandwidth: it sets the step, "
                                                  "and the TPOT target caps the batch before the KV cache fills.")
    memory_bound = SimpleNamespace(binding="kv")
    assert design_chatgpt.binding_line(memory_bound).endswith("and the KV cache caps the batch.")


def test_problem_2_halves_every_tpot_target_and_checks_the_napkin_on_the_serving_model(q):
    # consumer-chat states a mean-free p95 TPOT of 50 ms and a p95 gap of 100 ms: halved, the p95 TPOT is 25 ms
    # (and the napkin's mean with it); the gap's target is not a time per token and stays.
    w = q.workload
    t = design_chatgpt.halved_tpot(w)
    assert (t.tpot_s, t.tpot_p95_s) == (pytest.approx(w.tpot_s / 2), pytest.approx(w.tpot_p95_s / 2))
    assert t.itl_p95_s == w.itl_p95_s and t.ttft_p95_s == w.ttft_p95_s
    # the words compare the halved target's answer with the chapter's, or say why there is none
    base = SimpleNamespace(feasible=True, gpus=1_000)
    tight = SimpleNamespace(feasible=True, gpus=1_700, replicas=170, gpus_per_replica=10,
                            simulated=SimpleNamespace(workload=w))
    words = design_chatgpt.tight_answer_words(tight, base)
    assert words.endswith("1.7× the chapter's answer of 1,000 GPUs") and "170 × 10 H100 SXM = 1,700 GPUs" in words
