"""The RAG design's page model (macros/site/pages/design_rag.py) against figures derived by hand from
macros/data/designs/rag.toml: Llama-3.1-70B (70,553,706,496 parameters, 80 layers, 64 query heads of
128, 8 KV heads) in FP8 on 4 x B200 (180e9 B, 8e12 B/s, FP8 4.5e15 FLOP/s each), efficiency 0.4,
headroom 0.2; 10 million requests a day at 3x the mean, 347.2 requests/s at peak. The encoders run on
H100s (989.4e12 FLOP/s BF16, $2.50 an hour).

Every fleet, GPU count and cost the page states is the serving model's answer (q.d.answer, q.d.answers): a
simulation, not a hand derivation, so those tests derive the figure from the answer and check the page model
uses it, not the napkin's (q.d.plan), whose fleet differs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from macros.engine import formulas as f
from macros.site.pages import design, design_rag
from macros.text import fmt

PEAK_RPS = 10_000_000 / 86_400 * 3
H100 = 989.4e12 * 0.4  # planned FLOP/s of one encoder GPU
N = 70_553_706_496


@pytest.fixture(scope="module")
def q():
    return design_rag.model()


def test_the_context_budget_and_what_a_prefix_cache_reuses(q):
    # 1,000 + 10 x 600 + 800 + 200 = 8,000 tokens; the chunks are 6,000 of them (75%);
    # only the 1,000-token system prompt is an exact prefix: 12.5%
    assert q.prompt == 8000 and q.chunk_tokens_total == 6000
    assert q.chunk_share == pytest.approx(0.75)
    assert q.prefix_share == pytest.approx(0.125)
    assert "| Retrieved chunks (10 × 600) | 6,000 | 75% |" in q.budget_table


def test_the_ttft_budget_leaves_the_model_its_share(q):
    # 20 + 15 + 60 + 120 + 15 + 20 = 250 ms of retrieval; 1,000 - 250 = 750 ms for the model
    assert q.retrieval_s == pytest.approx(0.25)
    assert q.model_share_s == pytest.approx(0.75)
    assert "| **the model: queue, prefill, first token** | **750 ms** | 1,000 ms |" in q.ttft_table


def test_the_reranker_fits_its_stage_and_its_pool(q):
    # 50 x (200 + 600) = 40,000 tokens x 2 x 560e6 = 4.48e13 FLOP; / 395.76e12 = 113.2 ms < 120 ms
    assert q.rerank_tokens == 40_000
    assert q.rerank_flops == pytest.approx(4.48e13)
    assert q.rerank_s == pytest.approx(4.48e13 / H100)
    assert q.rerank_s < q.rerank_budget_s
    # 347.2 requests/s x 4.48e13 / 395.76e12 = 39.31 GPUs busy; x 1.2 = 47.2 -> 48, the load's floor. Questions
    # queue: the pool is the fewest GPUs whose M/M/c p95 wait fits 120 - 113.2 = 6.8 ms (at 48 it is 11.4 ms),
    # 50 here; 50 x $2.50 x 24 = $3,000
    assert q.rerank_busy == pytest.approx(PEAK_RPS * 4.48e13 / H100)
    assert q.rerank_slack_s == pytest.approx(0.120 - 4.48e13 / H100)
    assert q.rerank_gpus == f.servers_for_wait(PEAK_RPS, q.rerank_s, 95, q.rerank_slack_s) == 50
    assert f.mmc_wait_percentile_s(48, PEAK_RPS, q.rerank_s, 95) > q.rerank_slack_s >= q.rerank_wait_p95_s
    assert q.rerank_cost_per_day == pytest.approx(3000) and q.rerank_fits.holds
    # against the 10 extra chunks' prefill it saves: 4.48e13 / (2 x N x 6,000)
    assert q.rerank_over_prefill == pytest.approx(4.48e13 / (2 * N * 6000))


def test_the_embedding_tier_and_the_index(q):
    # query embedding: 347.2 x 2 x 335e6 x 200 / 395.76e12 = 0.118 GPUs
    assert q.query_embed_busy == pytest.approx(PEAK_RPS * 2 * 335e6 * 200 / H100)
    # 40e6 documents x 12 chunks = 480e6 vectors; x 600 tokens = 2.88e11 tokens
    assert q.vectors == 480e6 and q.corpus_tokens == pytest.approx(2.88e11)
    per_token_s = 2 * 335e6 / H100
    assert q.backfill_gpu_hours == pytest.approx(2.88e11 * per_token_s / 3600)  # 135.4
    assert q.churn_gpu_hours_per_day == pytest.approx(0.03 * 2.88e11 * per_token_s / 3600)  # 4.06
    # 5e6 documents x 12 x 600 = 3.6e10 tokens: 16.9 GPU-hours, 2.12 hours on 8 GPUs
    assert q.onboarding_gpu_hours == pytest.approx(3.6e10 * per_token_s / 3600)
    assert q.onboarding_hours == pytest.approx(3.6e10 * per_token_s / 3600 / 8)
    # 480e6 x (1,024 x 2 B + 32 x 4 B) = 480e6 x 2,176 B = 1.04448e12 B
    assert q.index_bytes == pytest.approx(1.04448e12)


def test_what_scoping_the_cache_per_tenant_costs(q):
    # FP8 KV: 2 x 80 x 8 x 128 x 1 B = 163,840 B a token; 400 tenants x 1,000 tokens = 6.5536e10 B
    assert q.kv_bytes_per_token == 163_840
    assert q.tenant_prefixes_bytes == pytest.approx(6.5536e10)
    # budget 4 x 180e9 - N x 1 B - 4 x 4e9 = 633.45e9 B: the prefixes would take 10.3% of every replica
    budget = 720e9 - N - 16e9
    assert q.kv_budget_bytes == pytest.approx(budget)
    assert q.tenant_prefixes_share == pytest.approx(6.5536e10 / budget)
    # routed to 4 home replicas of the answer's fleet (the serving model's count, not the napkin's 83):
    # 400 x 4 / replicas tenants a replica
    a = q.d.answer
    assert q.d.plan.replicas == 83 and a.replicas != 83
    assert q.tenants_per_replica == pytest.approx(400 * 4 / a.replicas)


def test_chunk_reuse_and_the_variants_inputs(q):
    # (1,000 + 6,000 x 0.5 x (1 - 0.15)) / 8,000 = 0.44375
    assert q.chunk_reuse == pytest.approx(0.44375)
    # without a reranker 20 chunks: 1,000 + 12,000 + 800 + 200 = 14,000; the document mix
    # 0.8 x 8,000 + 0.2 x 32,000 = 12,800
    assert q.no_rerank_prompt == 14_000 and q.long_mean == pytest.approx(12_800)


def test_one_long_document_misses_the_ttft_on_the_replica(q):
    # 31,000 uncached tokens after a 1,000-token cached prefix: 2 N x 31,000 FLOP plus causal attention,
    # 4 x 64 x 128 x 80 FLOP per (query, key) pair over the pairs of tokens 1,001..32,000
    pairs = 32_000 * 32_001 / 2 - 1000 * 1001 / 2
    flops = 2 * N * 31_000 + 4 * 64 * 128 * 80 * pairs
    assert q.long_prefill_s == pytest.approx(flops / (4 * 4.5e15) / 0.4)
    assert q.long_prefill_node_s == pytest.approx(flops / (8 * 4.5e15) / 0.4)
    assert q.long_prefill_s > q.d.workload.ttft_s > q.long_prefill_node_s


def test_the_workload_must_agree_with_the_inputs(monkeypatch):
    # Inject a disagreement: twelve chunks in the inputs, 8,000 prompt tokens in the workload.
    real = design_rag.inputs()
    monkeypatch.setattr(design_rag, "inputs", lambda slug="rag": {**real, "chunks": 12})
    with pytest.raises(design.DesignError, match=r"prompt_tokens is 8000 but \[design.inputs\] gives 9200"):
        design_rag.model()


def test_what_the_chunks_and_a_question_cost(q):
    # chunks are 6,000 of the 7,000 uncached tokens: that share of the prefill share of the fleet
    p = q.d.plan
    assert q.chunk_fleet_share == pytest.approx(p.prefill_share * 6000 / 7000)
    # the answer's day (the serving model's fleet, held all day) over the day's 10 million questions, per thousand
    assert q.cost_per_thousand_questions == pytest.approx(q.d.answer.cost_per_day / 10_000_000 * 1000)


def test_what_a_chunk_cache_would_hold(q):
    # one 600-token chunk of FP8 KV: 600 x 163,840 B = 98,304,000 B
    assert q.chunk_kv_bytes == 98_304_000
    # the chunk cache's replicas (its revision's fleet) hold their sequences in flight at the peak (its run, by
    # Little's law), each of 8,400 tokens x 163,840 B; the rest of the budget is spare. Fewer than the napkin's SLO
    # batch of 320, and more than on the answer's own replicas, which are more
    live = q.d.answers["chunk-reuse"].live_concurrency_per_replica
    assert q.d.plan.slo_batch == 320 and q.d.answer.live_concurrency_per_replica < live < 320
    assert q.live_per_replica == live
    spare = 720e9 - N - 16e9 - live * 8400 * 163_840
    assert q.spare_kv_bytes == pytest.approx(spare)
    assert q.chunks_in_spare_hbm == pytest.approx(spare / 98_304_000)
    # 1e12 B of host memory: 10,173 chunks, shared by the tenants homed on each of the answer's replicas
    assert q.chunks_in_host == pytest.approx(1e12 / 98_304_000)
    assert q.chunks_in_host_per_tenant == pytest.approx(1e12 / 98_304_000 / (400 * 4 / q.d.answer.replicas))


def test_every_fleet_the_page_prices_is_the_serving_model_s(q):
    # Each revision's GPUs and cost are the variant's answer against the design's, never the napkin's change
    # (d.changes), kept apart as napkin_gpus for the sentences that quote the napkin beside the answer.
    d = q.d
    for attr, name in [("long_docs", "long-docs"), ("nvfp4", "nvfp4"), ("chunk", "chunk-reuse"),
                       ("no_rerank", "no-rerank"), ("user_salt", "user-salt"), ("tp2", "tp2"), ("tp8", "tp8")]:
        v, after = getattr(q, attr), d.answers[name]
        assert v.gpus == after.gpus - d.answer.gpus, name
        assert v.cost_per_day == pytest.approx(after.cost_per_day - d.answer.cost_per_day), name
        assert v.ratio == pytest.approx(after.gpus / d.answer.gpus), name
        assert v.napkin_gpus == d.variants[name].gpus - d.plan.gpus, name
        # the words say which target sets the variant's count, from its own run
        assert v.count_words.startswith(f"the {after.simulated.binding.words} sets the count"), name
    # a regression to the napkin fails: without a reranker the napkin adds 628 - 332 = 296 GPUs, the answer otherwise
    assert q.no_rerank.napkin_gpus == 628 - 332 and q.no_rerank.gpus != q.no_rerank.napkin_gpus
    # the shape table sets each shape's answer beside its napkin, in bold
    assert f"| **{d.answers['tp8'].gpus:,}** |" in q.shape_table and f"| {d.variants['tp8'].gpus:,} |" in q.shape_table
    # "four per replica needs the fewest GPUs" holds exactly when the answers say so
    assert q.shape_cheapest.holds == (d.answer.gpus < min(d.answers["tp2"].gpus, d.answers["tp8"].gpus))


def test_the_answer_s_replicas_run_far_below_the_napkin_s_batch(q):
    # the words compare the answer's sequences in flight with the napkin's SLO batch, and name the target
    a = q.d.answer
    assert q.batch_words.startswith("At the peak each of the answer's replicas holds about ")
    assert f"the napkin's SLO batch of {q.d.plan.slo_batch}" in q.batch_words
    assert a.simulated.binding.words in q.batch_words
    assert design_rag.batch_words(a) == q.batch_words


def test_the_prefill_words_say_whether_a_prompt_runs_whole_from_the_answers_budget(q):
    # The answer runs 8,192 tokens a step; a prompt of 8,000 tokens with 12.5 % cached leaves 7,000 to prefill, so
    # it rides whole in one step, and the p95 gap, below the planned prefill, says such steps are under one in 20.
    d = q.d
    a, chunked = d.answer, d.answers["chunk-reuse"]
    assert (a.token_budget, round(8000 * (1 - a.napkin.workload.prefix_hit_rate))) == (8192, 7000)
    gaps = a.simulated.chosen.stats["itl_s"]
    assert "runs whole in one step" in q.prefill_words and fmt.ms(gaps["p99"]) in q.prefill_words
    assert ("fewer than one gap in twenty" in q.prefill_words) == (gaps["p95"] < a.napkin.planned_prefill_s)
    # A budget below the uncached prompt chunks it: the chunk-cache variant's workload (8,000 tokens at its hit
    # rate, 4,450 uncached) at 2,048 tokens a step takes ceil(4,450 / 2,048) = 3 steps, and no decode waits behind
    # a whole prompt (a stub answer with that budget: the variant's own searched budget is the data's).
    w = chunked.napkin.workload
    uncached = round(w.prompt_tokens * (1 - w.prefix_hit_rate))
    assert uncached == 4450
    stub = SimpleNamespace(napkin=chunked.napkin, token_budget=2048, simulated=chunked.simulated)
    words = design_rag.prefill_words(stub)
    assert "into 3 steps" in words and "no decode waits" in words
