"""The agent platform's page model (macros/site/pages/design_agents.py) against hand derivations.

DeepSeek-V3's MLA cache is 61 layers x (512 + 64) x 2 B = 70,272 B per token; a 30,300-token
sequence holds 2,129,241,600 B. The plan's planned step and prefill come from the planner (its own
tests); the figures built on them are derived here from the file's [design.inputs]."""

from __future__ import annotations

import dataclasses
import math
import shutil
from types import SimpleNamespace

import pytest

from macros.site.pages import design, design_agents, design_revision

KV_PER_TOKEN = 61 * 576 * 2  # 70,272 B


@pytest.fixture(scope="module")
def q():
    return design_agents.model()


def test_the_files_prompt_is_the_loops_mean_prompt(q):
    # 8,000 shared + 2,400 own = 10,400 first; + 800 x (50 - 1) / 2 = 19,600: 30,000
    assert q.first_prompt_tokens == 10_400
    assert q.mean_prompt_tokens == pytest.approx(30_000)
    assert q.workload.prompt_tokens == q.mean_prompt_tokens  # the planner is given what the loop sends


def test_hit_ceiling_and_task_tokens(q):
    # 50 x 10,400 + 800 x 50 x 49 / 2 = 1,500,000 prompt tokens; new: 2,400 + 800 x 49 = 41,600
    assert q.task_prompt_tokens == 1_500_000
    assert q.hit_ceiling == pytest.approx(1 - 41_600 / 1_500_000)
    assert q.task_output_tokens == 15_000  # 50 x 300: 100 to 1


def test_task_time_and_cost(q):
    p = q.plan
    step = p.planned_prefill_s + 300 * p.planned_step_s + 10
    assert q.task.task_s == pytest.approx(50 * step)
    # 10,000,000 calls / 50 = 200,000 tasks a day; the answer's fleet's day over them (not the napkin's)
    assert q.task.tasks_per_day == 200_000
    assert q.task.cost_per_task == pytest.approx(q.d.answer.gpus * 6.5 * 24 / 200_000)
    assert q.tasks["cache-blind"].cost_per_task == pytest.approx(q.d.answers["cache-blind"].gpus * 6.5 * 24 / 200_000)
    # the per-call p95 the TTFT target promises, over 50 calls: 1 - 0.95^50 = 0.92306
    assert q.step_percentile == 95 and q.any_slow == pytest.approx(0.92306, abs=1e-5)


def test_retention_and_the_hbm_only_variant(q):
    p = q.plan
    assert p.kv_bytes_per_seq == 30_300 * KV_PER_TOKEN
    model_s = p.planned_prefill_s + 300 * p.planned_step_s
    # At the peak a replica of the answer's fleet (the serving model's, not the napkin's) runs the calls in flight
    # its run shows: 289.35 calls/s over the answer's replicas, each for the run's mean time in the system
    # (Little's law). Every call that ends waits 10 s on its tool: idle = calls a second per replica x 10.
    a = q.d.answer
    rate = 1e7 / 86_400 * 2.5 / a.replicas
    assert a.simulated_requests_per_s_per_replica == pytest.approx(rate)
    live = a.live_concurrency_per_replica
    assert q.live_per_replica == pytest.approx(live) and live < p.slo_batch
    idle = rate * 10
    assert q.idle_per_replica == pytest.approx(idle)
    seq = p.kv_bytes_per_seq_group  # tensor parallel: each of the 8 ranks holds the sequence's whole latent
    assert seq == 8 * p.kv_bytes_per_seq
    room = p.at_slo.kv_budget_bytes - live * seq
    kept = min(1, room / (idle * seq))
    hit = kept * 0.9 + (1 - kept) * 8000 / 30_000
    assert q.hbm_only_hit == pytest.approx(hit)
    # the variant the revision sizes is this derivation, to the two places the file gives
    assert q.d.variants["hbm-only"].prefix_hit_rate == pytest.approx(round(hit, 2))
    # a replica that runs full: its SLO batch b leaves the budget past b sequences for b x 10 / model_s idle
    b = p.slo_batch
    full_kept = min(1, (p.at_slo.kv_budget_bytes - b * seq) / (b * 10 / model_s * seq))
    assert q.full_kept == pytest.approx(full_kept) and full_kept < kept
    assert q.full_hit == pytest.approx(full_kept * 0.9 + (1 - full_kept) * 8000 / 30_000)
    # ... and the variant that prices every replica that full is this derivation, to the three places the file gives
    assert q.d.variants["full-replicas"].prefix_hit_rate == pytest.approx(round(q.full_hit, 3))
    # reload of one sequence over one GPU's host link: 2,129,241,600 B / 50e9 B/s = 42.6 ms
    assert q.reload_s == pytest.approx(2_129_241_600 / 50e9)
    # a finished task's context: 10,400 + 800 x 50 = 50,400 tokens, 3,541,708,800 B a copy, held by each of the 8
    # tensor-parallel ranks: 28,333,670,400 B a node
    assert q.final_kv_bytes == 8 * 50_400 * KV_PER_TOKEN
    # kept 300 s after the end, per replica of the answer's fleet: (289.35 / 50 / replicas) x 300 x 28.3e9
    assert q.ttl_kv_bytes == pytest.approx(10e6 / 86_400 * 2.5 / 50 / a.replicas * 300 * 8 * 50_400 * KV_PER_TOKEN)
    assert q.long_ttl_kv_bytes == pytest.approx(12 * q.ttl_kv_bytes)
    assert q.long_ttl_host_share == pytest.approx(q.long_ttl_kv_bytes / 2e12)


def test_tasks_in_flight_and_the_burst(q):
    p = q.plan
    rate = 10e6 / 86_400 * 2.5 / 50  # 5.787 tasks/s at the peak
    assert q.in_flight == pytest.approx(rate * q.task.task_s)
    assert q.spare_tasks == pytest.approx(q.in_flight * (p.replicas / p.replica_seconds_per_s - 1))
    assert q.spare_tasks < 2000  # the burst of critique 4 is more than the napkin's headroom holds
    # its first calls: 2,000 prefills of the 2,400 uncached tokens of a 10,400-token first prompt, spread over the
    # answer's replicas (the fleet that runs, not the napkin's)
    a = q.d.answer
    assert q.burst_prefill_s > 0 and q.burst_prefill_per_replica_s == pytest.approx(q.burst_prefill_s / a.replicas)
    # the answer holds its p95s at the peak with no spare, so the burst drains on what arrivals leave free: at the
    # mean (a peak 2.5 x the mean) 5.787 x (1 - 1 / 2.5) = 3.472 tasks/s, so 2,000 / 3.472 s
    assert q.burst_drain_at_mean_s == pytest.approx(2000 / (rate * (1 - 1 / 2.5)))


def test_runaway(q):
    # 400 x 10,400 + 800 x 400 x 399 / 2 = 4,160,000 + 63,840,000 = 68,000,000: 45.3 mean tasks
    assert q.runaway_prompt_tokens == 68_000_000
    assert q.runaway_ratio == pytest.approx(68 / 1.5)
    # the context is full at (163,840 - 10,400) / 800 = 191.8 steps
    assert q.steps_to_full == pytest.approx(191.8)
    assert math.floor(q.steps_to_full) < 400


def test_a_bad_input_is_one_line(tmp_path, monkeypatch):
    source = design.DESIGNS_DIR / "agents.toml"
    shutil.copy(source, tmp_path / "agents.toml")
    text = (tmp_path / "agents.toml").read_text().replace("tool_s = 10 ", "tool_s = -1 ")
    (tmp_path / "agents.toml").write_text(text)
    monkeypatch.setattr(design, "DESIGNS_DIR", tmp_path)
    with pytest.raises(design.DesignError, match=r"\[design.inputs\] tool_s must be a positive"):
        design_agents.inputs()


def test_ratios_shares_and_failover(q):
    p, v = q.plan, q.d.variants
    # the ratios the page prices are the serving model's answers'; the napkin's are kept apart
    assert q.gpu_ratio["cache-blind"] == pytest.approx(q.d.answers["cache-blind"].gpus / q.d.answer.gpus)
    assert q.napkin_gpu_ratio["cache-blind"] == pytest.approx(v["cache-blind"].gpus / p.gpus)
    # the MLA latent once per sequence against on every one of the 8 ranks: the batch grows about 8x,
    # less the attention weights each rank now holds
    assert 6 < q.dp_batch_gain < 8
    t = q.task
    assert q.task_shares.ttft + q.task_shares.decode + q.task_shares.tool == pytest.approx(1)
    # the replica's tasks, running and idle, each re-prefill 30,000 tokens elsewhere, in the serving model's steps
    homed = q.live_per_replica + q.idle_per_replica
    assert q.failover_prefill_s == pytest.approx(homed * sum(s.total_s for s in design_agents.alone_chunks(
        q.d.answers["cache-blind"])[1]))
    # shared by the answer's other replicas
    assert q.failover_share == pytest.approx(q.failover_prefill_s / (q.d.answer.replicas - 1))
    assert t.decode_s == pytest.approx(50 * 300 * p.planned_step_s)


def test_the_burst_excess_drains_at_the_fleets_completion_rate(q):
    # 2,000 minus the spare, at the 5.787 tasks/s the fleet completes at the peak
    assert q.burst_excess == pytest.approx(2000 - q.spare_tasks)
    assert q.burst_drain_s == pytest.approx(q.burst_excess / (10e6 / 86_400 * 2.5 / 50))


def test_the_layout_words_follow_the_serving_models_comparison():
    # 2,112 GPUs under data-parallel attention against 1,344 under TP: 1.57x, said with the budget it ran at; were DP
    # the cheaper, the page would call it a revision to adopt
    tp = SimpleNamespace(gpus=1344, gpus_per_replica=8)
    dp = SimpleNamespace(gpus=2112, gpus_per_replica=8, token_budget=512)
    words = design_agents.layout_words(tp, dp)
    assert "the other 7 wait" in words and "2,112 GPUs that way, 1.57× the tensor-parallel answer" in words
    assert "512-token budget" in words
    assert design_agents.layout_words(dp, tp).endswith("1,344 GPUs that way against the answer's 2,112, a revision "
                                                       "to adopt.")
    q = design_agents.model()
    assert q.layout_words == design_agents.layout_words(q.d.answer, q.d.answers["dp-attention"])


def test_the_idle_words_follow_the_answers_run():
    # 0.4 calls in flight at 0.1 calls a second: fewer than one, said so; 3 in flight is not idle
    run = SimpleNamespace(words="p95 TTFT")
    idle = SimpleNamespace(simulated=SimpleNamespace(binding=run), live_concurrency_per_replica=0.4,
                           simulated_requests_per_s_per_replica=0.1)
    busy = SimpleNamespace(simulated=SimpleNamespace(binding=run), live_concurrency_per_replica=3.0,
                           simulated_requests_per_s_per_replica=0.1)
    assert design_agents.idle_words(idle).startswith("the p95 TTFT sets the count: each replica takes 0.1 calls")
    assert "stand mostly idle" in design_agents.idle_words(idle)
    assert "idle" not in design_agents.idle_words(busy)


def test_the_hbm_only_words_follow_the_data():
    assert design_agents.hbm_only_words(1.0, 1.0).startswith("HBM alone keeps every idle task's KV at the peak")
    assert "the same fleet" in design_agents.hbm_only_words(1.0, 1.0)
    assert design_agents.hbm_only_words(0.339, 2.46).startswith("HBM alone keeps 33.9% of the idle tasks' KV")
    assert "2.46× the GPUs" in design_agents.hbm_only_words(0.339, 2.46)
    assert design_agents.kept_words(1.0).startswith("room for all of it")
    assert design_agents.kept_words(0.5).startswith("room for 50% of it")


def test_the_fleet_figures_in_the_prose_are_the_serving_models_not_the_napkins(q):
    # Every load per replica and every figure per GPU is the answer's (53 replicas of 8 on this data), not the
    # napkin's (37): a regression to the napkin's plan fails here.
    a, p = q.d.answer, q.plan
    assert a.replicas != p.replicas
    assert q.output_per_gpu_s == pytest.approx(p.peak_output_tokens_per_s / a.gpus)
    assert q.input_per_gpu_s == pytest.approx(p.peak_input_tokens_per_s / a.gpus)
    assert q.live_per_replica == pytest.approx(a.live_concurrency_per_replica)
    assert q.live_per_replica != pytest.approx(p.live_sequences)
    assert q.calls_per_replica_s == pytest.approx(a.simulated_requests_per_s_per_replica)
    assert q.task.cost_per_task == pytest.approx(a.cost_per_day / q.task.tasks_per_day)


def test_a_revision_the_serving_model_does_not_move_gets_a_sentence_not_two_equal_columns():
    for slug, n, variant in (("agents", 2, "hbm-only"), ("lora-platform", 1, "merged")):
        m = design.model(slug)
        same = all(m.answer.json.get(k) == m.answers[variant].json.get(k) for k in design_revision.SAME_KEYS)
        out = m.revision(n)
        assert ("| --- |" not in out and "the same, figure for figure" in out) == same, (slug, out)
        assert ("| --- |" in out) == (not same)


def test_the_cache_blind_ratio_is_priced_at_a_looser_ttft_too(q):
    # Critique 1's scenario at half again the TTFT target: the same workload but for the target, so the fleet's
    # fall from 1 s to 1.5 s is the target's share of the growth; one uncached call alone, no queue, already
    # spends most of the 1 s (its run is the search's own: one replica serving one request at a time).
    blind, slower = q.d.answers["cache-blind"], q.blind_slower
    wb, ws = blind.simulated.workload, slower.simulated.workload
    assert (ws.prefix_hit_rate, ws.ttft_s, wb.ttft_s) == (0.0, 1.5, 1.0)
    assert dataclasses.replace(ws, ttft_s=wb.ttft_s, ttft_p95_s=wb.ttft_p95_s, name=wb.name) == wb
    assert slower.gpus < blind.gpus and q.gpu_ratio["cache-blind-slower"] == slower.gpus / q.d.answer.gpus
    assert 0.5 * wb.ttft_s < q.blind_alone_ttft_s < wb.ttft_s


def test_the_call_alone_is_its_chunks_plus_the_requests_fixed_costs(q):
    # 30,000 uncached tokens at the 8,192-token budget: chunks of 8,192, 8,192, 8,192 and 5,424, the k-th
    # attending to the 8,192 (k - 1) before it. The call's TTFT alone is those eager steps plus what a request
    # costs outside them: the engine's fixed cost, the API's, and the prompt's per-token cost (30,000 of them),
    # so the decomposition the page prints adds up to the simulator's own run within a decode step.
    from macros.engine.fleet import planner_simulated as ps
    from macros.engine.serving.run import prepare

    blind = q.d.answers["cache-blind"]
    assert blind.token_budget == 8_192 and q.blind_chunks == 4
    params, chunks = design_agents.alone_chunks(blind)
    assert [round(c.gemm_s / chunks[0].gemm_s * 8_192) for c in chunks] == [8_192, 8_192, 8_192, 5_424]
    assert chunks[0].attention_s < chunks[1].attention_s < chunks[2].attention_s  # a longer prefix each time
    p = prepare(ps.run_request(blind.simulated.workload, blind.gpus_per_replica, None)).params
    assert params == p and q.moe_fraction == p.moe_fraction  # the fraction the page names is this run's
    fixed = p.request_overhead_s + p.api_request_s + 30_000 * p.prompt_token_overhead_s
    assert q.blind_chunks_s + fixed == pytest.approx(q.blind_alone_ttft_s, abs=0.005)
    assert 0 < q.blind_attention_share + q.blind_moe_share < 1
