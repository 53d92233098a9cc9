"""The RAG design's figures beyond the plan (docs/designs/rag.md): the context budget, the retrieval
tier's share of the TTFT, the encoders' load, what the caches can reuse and what scoping them costs.

Every input is an assumption of the design, read from [design.inputs] in macros/data/designs/rag.toml;
the file's workload (prompt tokens, prefix hit rate, TTFT target, the variants' prompts) must agree
with those inputs, and a disagreement is an error naming the field, so the two cannot drift apart.

Every fleet, GPU count, cost and ratio between fleets is the serving model's answer (design.model's
`answer`, `answers`, `answer_changes`); the napkin (`d.plan`, `d.variants`) gives only per-step physics: KV
bytes, planned prefill and step times, the batch its TPOT target allows. The encoder pools are sized first
order (planned FLOPs at the design's efficiency, plus headroom): the serving model sizes the LLM pool only.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet.answer import Answer
from ...engine.fleet.planner import planned_prefill_s
from ...engine.lookup import get_gpu
from ...engine.specs import catalog, display_path
from ...text import fmt
from ..assumptions import assume, close
from ..markdown import table
from . import design

PERCENTILE = 95  # the stage budgets are p95s

SLUG = "rag"
NODE_GPUS = 8  # one HGX node: the wider shape the long-document lane is priced on
TOLERANCE = 1e-9


INPUTS = {"retrieval_stages": design.LIST, "encoder_gpu": design.TEXT, **design.positive(
    "e2e_ttft_s", "system_tokens", "history_tokens", "chunks", "chunk_tokens", "question_tokens", "candidates",
    "unreranked_chunks", "embedding_params", "embedding_dim", "embedding_bytes_per_dim", "reranker_params",
    "hnsw_links", "link_bytes", "tenants", "documents", "chunks_per_document", "daily_churn",
    "onboarding_documents", "ingestion_gpus", "chunk_hit_rate", "recompute_fraction", "long_doc_share",
    "long_doc_prompt_tokens", "tenant_home_replicas", "host_cache_bytes_per_replica", "acl_freshness_s")}


def inputs(slug: str = SLUG) -> dict[str, Any]:
    return design.inputs(slug, INPUTS)


def _agree(where: str, field: str, in_file: float, derived: float) -> None:
    """The workload's typed value must be the one the inputs give: one line naming both if not."""
    if not math.isclose(in_file, derived, rel_tol=TOLERANCE):
        raise design.DesignError(f"{where}: {field} is {in_file:g} but [design.inputs] gives {derived:g}")


def _encoder_busy_gpus(flops_per_s: float, peak: float, efficiency: float) -> float:
    """GPUs kept busy by a steady stream of encoder FLOPs, at the planned efficiency."""
    return f.planned_time_s(f.compute_time_s(flops_per_s, 1, peak), efficiency)


def count_words(a: Answer) -> str:
    """Why an answer's fleet is the size it is, from its own run: the target that sets the count, and the load
    that leaves each replica (Little's law on the run: requests in flight = rate x time in the system)."""
    return (f"the {a.simulated.binding.words} sets the count: each replica takes "
            f"{fmt.num(a.simulated_requests_per_s_per_replica)} requests a second and holds "
            f"{fmt.num(a.live_concurrency_per_replica)} in flight on average")


def batch_words(a: Answer) -> str:
    """What the serving model sees that the napkin does not: how full its replicas run at the peak against the
    batch the napkin sizes them for, and the target that sets the count instead."""
    live, batch, t = a.live_concurrency_per_replica, a.napkin.slo_batch, a.simulated.binding.words
    out = f"At the peak each of the answer's replicas holds about {fmt.num(live)} sequences"
    if live >= batch:
        return out + f", the napkin's whole SLO batch of {batch}: the batch is full, and the {t} sets the count."
    out += (f", {fmt.pct(live / batch)} of the napkin's SLO batch of {batch}: the {t} sets the count long before "
            "the batch fills")
    if a.gpus > a.napkin_gpus:
        out += ", a limit the napkin, which sizes by busy time, cannot see"
    return out + "."


def prefill_words(a: Answer) -> str:
    """Whether the answer's token budget runs a prompt's prefill whole or in chunks, and what the decodes sharing
    its steps see, from the answer's own run: a whole prefill is a gap as long as the planned prefill for every
    stream in that step, and the p95 gap says how rare those steps are."""
    w, gaps = a.napkin.workload, a.simulated.chosen.stats["itl_s"]
    uncached = round(w.prompt_tokens * (1 - w.prefix_hit_rate))
    budget, prefill = a.token_budget, a.napkin.planned_prefill_s
    if budget < uncached:
        return (f"The answer's engine carries at most {fmt.count(budget)} tokens a step, fewer than a prompt's "
                f"{fmt.count(uncached)} uncached tokens: chunked prefill splits each prompt into "
                f"{math.ceil(uncached / budget)} steps, so no decode waits behind a whole "
                f"{fmt.ms(prefill)} prefill, and the p95 gap between tokens is {fmt.ms(gaps['p95'])}.")
    target = next((t for t in a.simulated.workload.targets if t.metric == "itl"), None)
    words = (f"The answer's engine carries up to {fmt.count(budget)} tokens a step, more than a prompt's "
             f"{fmt.count(uncached)} uncached tokens, so each prefill runs whole in one step: every stream decoding "
             f"beside it waits about {fmt.ms(prefill)} for its next token (the p99 gap is {fmt.ms(gaps['p99'])})")
    if target is not None and gaps["p95"] < prefill:
        words += (f". Those steps are fewer than one gap in twenty on the answer's replica, so the p95 gap, "
                  f"{fmt.ms(gaps['p95'])}, stays inside its {fmt.ms(target.seconds)} target")
    return words + "; a smaller budget would chunk the prompt and shorten the stall at the first token's expense."


def _shape_row(g: int, a: Answer) -> list[str]:
    return [f"{g} × {a.napkin.at_slo.gpu_spec.name}", fmt.count(a.napkin_gpus), fmt.ms(a.napkin.planned_prefill_s),
            f"**{fmt.count(a.gpus)}**", a.simulated.binding.words, fmt.num(a.simulated_requests_per_s_per_replica),
            fmt.num(a.live_concurrency_per_replica)]


def model(slug: str = SLUG) -> SimpleNamespace:
    d = design.model(slug)
    w, p, x = d.workload, d.plan, inputs(slug)
    a = d.answer
    where = display_path(design.DESIGNS_DIR / f"{slug}.toml")
    s = p.at_slo

    # --- the context budget ----------------------------------------------------------------
    chunk_total = x["chunks"] * x["chunk_tokens"]
    prompt = f.rag_prompt_tokens(x["system_tokens"], x["chunks"], x["chunk_tokens"], x["history_tokens"],
                                 x["question_tokens"])
    _agree(where, "[traffic] prompt_tokens", w.prompt_tokens, prompt)
    prefix_share = f.reusable_prompt_share(prompt, x["system_tokens"])
    _agree(where, "[traffic] prefix_hit_rate", w.prefix_hit_rate, prefix_share)
    parts = [("System prompt (the tenant's)", x["system_tokens"]), ("Conversation history", x["history_tokens"]),
             (f"Retrieved chunks ({x['chunks']} × {fmt.count(x['chunk_tokens'])})", chunk_total),
             ("The question", x["question_tokens"])]
    budget_table = table(["Part, in prompt order", "Tokens", "Share"],
                         [[name, fmt.count(n), fmt.pct(n / prompt)] for name, n in parts]
                         + [["**Prompt**", f"**{fmt.count(prompt)}**", fmt.pct(1)]], align="lrr")

    # --- the TTFT budget: retrieval first, the model's share after -------------------------------
    stages = x["retrieval_stages"]
    retrieval_s = sum(stage["seconds"] for stage in stages)
    model_share_s = x["e2e_ttft_s"] - retrieval_s
    _agree(where, "[slo] ttft_s", w.ttft_s, model_share_s)
    rows, start = [], 0.0
    for stage in stages:
        rows.append([stage["stage"], fmt.ms(stage["seconds"]), fmt.ms(start + stage["seconds"])])
        start += stage["seconds"]
    rows.append(["**the model: queue, prefill, first token**", f"**{fmt.ms(model_share_s)}**",
                 fmt.ms(x["e2e_ttft_s"])])
    ttft_table = table(["Stage (p95 budget)", "Budget", "Elapsed"], rows, align="lrr")

    # --- the encoders: reranker and embedding model on their own GPUs ---------------------------
    enc = get_gpu(x["encoder_gpu"])
    enc_peak, eta = enc.bf16_flops, w.efficiency
    enc_price = catalog().prices[x["encoder_gpu"]].typical
    rerank_tok = f.rerank_tokens(x["candidates"], x["question_tokens"], x["chunk_tokens"])
    rerank_flops = f.prefill_flops(x["reranker_params"], rerank_tok)  # 2 N per token; attention left out
    rerank_s = f.planned_time_s(f.compute_time_s(rerank_flops, 1, enc_peak), eta)
    rerank_budget_s = next(st["seconds"] for st in stages if "rerank" in st["stage"])
    rerank_busy = _encoder_busy_gpus(p.peak_requests_per_s * rerank_flops, enc_peak, eta)
    # One question at a time on a GPU, questions queueing for the pool (M/M/c): the fewest GPUs whose p95 wait
    # fits what the stage's budget leaves after the service, and no fewer than the load plus headroom
    rerank_slack_s = rerank_budget_s - rerank_s
    rerank_fits = assume(rerank_slack_s > 0, f"reranking {fmt.ms(rerank_s)} against {fmt.ms(rerank_budget_s)}",
                         "one question's reranking no longer fits its stage: no pool meets the budget")
    rerank_gpus = max(f.replicas_for_load(rerank_busy, w.headroom), f.servers_for_wait(
        p.peak_requests_per_s, rerank_s, PERCENTILE, rerank_slack_s) if rerank_fits.holds else 0)
    rerank_wait_p95_s = f.mmc_wait_percentile_s(rerank_gpus, p.peak_requests_per_s, rerank_s, PERCENTILE)
    query_embed_busy = _encoder_busy_gpus(
        p.peak_requests_per_s * f.prefill_flops(x["embedding_params"], x["question_tokens"]), enc_peak, eta)

    vectors = x["documents"] * x["chunks_per_document"]
    corpus_tokens = vectors * x["chunk_tokens"]
    embed_gpu_s_per_token = f.planned_time_s(f.compute_time_s(f.prefill_flops(x["embedding_params"], 1), 1,
                                                              enc_peak), eta)
    backfill_gpu_s = corpus_tokens * embed_gpu_s_per_token
    churn_tokens_per_day = x["daily_churn"] * corpus_tokens
    onboarding_tokens = x["onboarding_documents"] * x["chunks_per_document"] * x["chunk_tokens"]
    onboarding_gpu_s = onboarding_tokens * embed_gpu_s_per_token
    index_bytes = f.hnsw_index_bytes(vectors, x["embedding_dim"], x["embedding_bytes_per_dim"], x["hnsw_links"],
                                     x["link_bytes"])

    # --- caching: what a prefix cache reuses, what a chunk cache could, what scoping costs -----------
    variants = d.variants
    reuse = f.reusable_prompt_share(prompt, x["system_tokens"], chunk_total, x["chunk_hit_rate"],
                                    x["recompute_fraction"])
    _agree(f"{where}: [variants.chunk-reuse]", "prefix_hit_rate", variants["chunk-reuse"].prefix_hit_rate, reuse)
    kv_token = p.kv_bytes_per_token
    tenant_prefixes_bytes = x["tenants"] * x["system_tokens"] * kv_token
    tenants_per_replica = x["tenants"] * x["tenant_home_replicas"] / a.replicas  # the answer's fleet
    chunk_kv = x["chunk_tokens"] * kv_token
    # what the chunk cache's replicas (its revision's fleet: fewer, each busier) leave free at the peak: their
    # sequences in flight (its run, by Little's law), each at full context (the napkin's worst case per sequence)
    chunk_live = d.answers["chunk-reuse"].live_concurrency_per_replica
    spare_kv = s.kv_budget_bytes - chunk_live * p.kv_bytes_per_seq_group

    # --- the variants' inputs, checked against the file ---------------------------------------------
    no_rerank_prompt = f.rag_prompt_tokens(x["system_tokens"], x["unreranked_chunks"], x["chunk_tokens"],
                                           x["history_tokens"], x["question_tokens"])
    _agree(f"{where}: [variants.no-rerank]", "prompt_tokens", variants["no-rerank"].workload.prompt_tokens,
           no_rerank_prompt)
    long_mean = f.mixed_mean(prompt, x["long_doc_prompt_tokens"], x["long_doc_share"])
    _agree(f"{where}: [variants.long-docs]", "prompt_tokens", variants["long-docs"].workload.prompt_tokens, long_mean)
    long_one = dataclasses.replace(w, prompt_tokens=x["long_doc_prompt_tokens"],
                                   prefix_hit_rate=x["system_tokens"] / x["long_doc_prompt_tokens"])
    long_prefill_s = planned_prefill_s(long_one, p.gpus_per_replica)
    long_prefill_node_s = planned_prefill_s(long_one, NODE_GPUS)

    def delta(name: str) -> SimpleNamespace:
        """A variant priced on the answers (its fleet, the GPUs and cost it adds, the ratio of the fleets, why
        its count is what it is); `plan` is its napkin, for per-step physics only."""
        c = d.answer_changes[name]
        return SimpleNamespace(plan=d.variants[name], answer=c.after, gpus=c.extra_gpus,
                               cost_per_day=c.extra_cost_per_day, ratio=c.gpu_ratio, count_words=count_words(c.after),
                               napkin_gpus=d.changes[name].extra_gpus)

    # The replica shape on both models: the napkin's GPUs and prefill against the serving model's answer.
    shapes = {2: d.answers["tp2"], p.gpus_per_replica: a, NODE_GPUS: d.answers["tp8"]}
    shape_table = table(["Replica", "Napkin's GPUs", "Planned prefill", "The answer's GPUs", "Sets the count",
                         "Requests/s per replica", "In flight per replica"],
                        [_shape_row(g, shapes[g]) for g in sorted(shapes)], align="lrrrlrr")
    napkin_spread = max(v.napkin_gpus for v in shapes.values()) / min(v.napkin_gpus for v in shapes.values()) - 1
    cheapest = min(shapes, key=lambda g: shapes[g].gpus)

    return SimpleNamespace(
        d=d, inputs=x, prompt=prompt, chunk_tokens_total=chunk_total, chunk_share=chunk_total / prompt,
        prefix_share=prefix_share, budget_table=budget_table,
        retrieval_s=retrieval_s, model_share_s=model_share_s, ttft_table=ttft_table,
        ttft_slack_s=w.ttft_s - p.planned_prefill_s,
        decode_replicas=d.decode_replicas, prefill_replicas=d.prefill_replicas,
        input_per_output=w.prompt_tokens / w.output_tokens,
        chunk_fleet_share=p.prefill_share * chunk_total / p.uncached_prompt_tokens,
        # the answer's fleet held all day over the day's questions
        cost_per_thousand_questions=a.cost_per_day / (p.peak_requests_per_s * f.SECONDS_PER_DAY / w.peak_to_mean)
        * 1000,
        batch_words=batch_words(a), live_per_replica=chunk_live, prefill_words=prefill_words(a),
        shape_table=shape_table, napkin_shape_spread=napkin_spread,
        shape_cheapest=assume(cheapest == p.gpus_per_replica,
                              ", ".join(f"{g} per replica {fmt.count(v.gpus)} GPUs" for g, v in sorted(shapes.items())),
                              f"{cheapest} GPUs per replica now need the fewest: say so, or argue for the design's "
                              f"{p.gpus_per_replica}"),
        encoder_gpu=enc,
        rerank_tokens=rerank_tok, rerank_flops=rerank_flops, rerank_s=rerank_s, rerank_budget_s=rerank_budget_s,
        rerank_busy=rerank_busy, rerank_gpus=rerank_gpus, rerank_fits=rerank_fits, rerank_slack_s=rerank_slack_s,
        rerank_wait_p95_s=rerank_wait_p95_s, rerank_cost_per_day=f.cost_per_day(rerank_gpus, enc_price),
        rerank_over_prefill=rerank_flops / f.prefill_flops(s.active_params, no_rerank_prompt - prompt),
        query_embed_busy=query_embed_busy,
        vectors=vectors, corpus_tokens=corpus_tokens, backfill_gpu_hours=backfill_gpu_s / f.SECONDS_PER_HOUR,
        churn_gpu_hours_per_day=churn_tokens_per_day
        * embed_gpu_s_per_token / f.SECONDS_PER_HOUR,
        onboarding_tokens=onboarding_tokens, onboarding_gpu_hours=onboarding_gpu_s / f.SECONDS_PER_HOUR,
        ingestion_gpus=x["ingestion_gpus"],
        onboarding_hours=onboarding_gpu_s / f.SECONDS_PER_HOUR / x["ingestion_gpus"],
        index_bytes=index_bytes, index_bytes_per_tenant=index_bytes / x["tenants"],
        chunk_reuse=reuse, kv_bytes_per_token=kv_token, tenant_prefixes_bytes=tenant_prefixes_bytes,
        tenant_prefixes_share=tenant_prefixes_bytes / s.kv_budget_bytes, kv_budget_bytes=s.kv_budget_bytes,
        tenants_per_replica=tenants_per_replica, prompt_kv_bytes=prompt * kv_token,
        chunk_kv_bytes=chunk_kv, spare_kv_bytes=spare_kv, chunks_in_spare_hbm=spare_kv / chunk_kv,
        chunks_in_host=x["host_cache_bytes_per_replica"] / chunk_kv,
        chunks_in_host_per_tenant=x["host_cache_bytes_per_replica"] / chunk_kv / tenants_per_replica,
        acl_freshness_s=x["acl_freshness_s"], onboarding_on_query_pool_s=onboarding_gpu_s / rerank_gpus,
        tenant_prefixes_routed_bytes=tenants_per_replica * x["system_tokens"] * kv_token,
        no_rerank_prompt=no_rerank_prompt, long_mean=long_mean, long_prefill_s=long_prefill_s,
        long_prefill_node_s=long_prefill_node_s, node_gpus=NODE_GPUS,
        long_stall_steps=long_prefill_s / p.planned_step_s,
        tp2=delta("tp2"), tp8=delta("tp8"), long_docs=delta("long-docs"), nvfp4=delta("nvfp4"),
        user_salt=delta("user-salt"), chunk=delta("chunk-reuse"), no_rerank=delta("no-rerank"),
        fits_one_gpu=assume(s.weight_bytes <= s.gpu_spec.memory_bytes,  # "The model fits one B200"
                            f"weights {fmt.bytes_(s.weight_bytes)}, one {s.gpu_spec.name} "
                            f"{fmt.bytes_(s.gpu_spec.memory_bytes)}", "the model no longer fits one GPU: say so"),
        # critique 2's premises: "three quarters of your GPU time is prefill", "FP4 at twice the FP8 rate"
        prefill_three_quarters=assume(0.7 <= p.prefill_share <= 0.8, f"prefill {fmt.pct(p.prefill_share)} of "
                                      "replica time", "prefill is no longer about three quarters: give the share"),
        fp4_twice_fp8=assume(s.gpu_spec.fp4_flops is not None and s.gpu_spec.fp8_flops is not None
                             and close(s.gpu_spec.fp4_flops, 2 * s.gpu_spec.fp8_flops),
                             f"{s.gpu_spec.name} dense FP4 {fmt.flops_rate(s.gpu_spec.fp4_flops or 0)}, FP8 "
                             f"{fmt.flops_rate(s.gpu_spec.fp8_flops or 0)}", "the FP4 rate is no longer twice the FP8 "
                             "rate: give the ratio"),
    )
