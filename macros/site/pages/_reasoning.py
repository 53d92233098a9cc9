"""Chapter 8's shared arithmetic (what a request of P prompt and n output tokens costs a replica, and how the
token mask compares with a decode step), and the chapter's worked problems, each on other models or GPUs than
the chapter's example (docs/guide/reasoning.md, ## Problems). macros/site/pages/reasoning.py is the page model."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.formulas import reasoning as rf
from ...engine.model.geometry import model_kv_bytes_per_seq, weight_bytes_read
from ...engine.model.scenario import prefill_floor_s, scenario
from ...engine.problems.reasoning import topic
from ...engine.serving.profiles import profile
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume

# Page-only inputs of the problems: the models and GPUs other than the chapter's example.
R1_MODEL, R1_GPU, R1_GPUS = "deepseek-v3", "h200", 8  # P1: DeepSeek-R1 is DeepSeek-V3's architecture
OSS_MODEL, OSS_GPU = "gpt-oss-120b", "h100"  # P2: a reasoning model with sliding-window layers, on one GPU
BUDGET_GPU = "b200"  # P3: the example's model on B200s
BUDGET_TOKENS = 4000
DISTILL_MODEL, DISTILL_GPU, DISTILL_GPUS = "llama-3.1-70b", "h200", 4  # P4: R1-Distill-Llama-70B's architecture
LONG_PROMPT, LONG_OUTPUT = 20000, 4000  # P4: a repository in the prompt, a shorter chain of thought
SLO_GPU, SLO_GPUS, SLO_S = "h100", 8, 60.0  # P5: the first visible token within a minute
OSS_VOCAB_MODEL, OSS_BATCH = "gpt-oss-120b", 64  # P6: the naive mask against a decode step
BIG_MODEL, BIG_GPU, BIG_GPUS = "llama-3.1-70b", "h100", 4  # P7: the crossover on a 70B
SPEC_GPU = "h200"  # P8: grammar with speculative decoding
TAIL_BATCH = 64  # P9 and 8.2: a step's batch when the tail is counted
JSON_TOKENS = 300  # P10: one structured reply


def sharing_words(saving: float) -> str:
    """What sharing the prompt's KV blocks saves parallel samples, in words."""
    return ("most of the KV cache" if saving >= 0.5 else "a minority of the KV cache: the samples' own outputs "
            "are the rest")


def crossover_words(row: SimpleNamespace, max_batch: int) -> str:
    """Where the masks overtake the decode floor: a batch, a batch past what fits, or never."""
    if row.first is None:
        return "never: one sequence's masks cost the threads less than its KV read"
    if row.first > max_batch:
        return f"only past {fmt.count(row.first)} sequences, more than the {fmt.count(max_batch)} that fit"
    return f"from {fmt.count(row.first)} sequences"


def than(reference: float, value: float) -> str:
    """"1.31× cheaper" or "1.31× dearer": a cost against a reference cost, the ratio always at least one."""
    if value <= reference:
        return f"{fmt.times(reference / value)} cheaper"
    return f"{fmt.times(value / reference)} dearer"


def tpot_words(fitted: bool) -> str:
    """Where the TPOT the latency figures use comes from: the fitted step model, or the floor planned at the
    realised efficiency where the fitted model has no estimate for this replica."""
    if fitted:
        return "the fitted step model's estimate"
    return "the floor planned at the chapters' realised efficiency (the fitted step model has no estimate here)"


def holding_group(model: str, gpu: str, gpus: int, weights: str, seq_len: int, layout: str = "tp",
                  batch: int = 1) -> int:
    """`gpus`, or the smallest power of two that holds `batch` sequences of `seq_len` where `gpus` does not (a
    GPU with less memory; the scenario's own choice of group): a problem names its group by the returned count,
    so its words stay true."""
    return max(gpus, scenario(model, gpu, seq_len=seq_len, batch=batch, weights=weights, layout=layout).gpus)


def request_economics(model: str, gpu: str, gpus: int, weights: str, prompt: int, output: int,
                      engine: str | None = None, layout: str = "tp") -> SimpleNamespace:
    """What a request of `prompt` and `output` tokens costs a replica full of requests like it, at staggered
    stages: the batch the KV budget holds at the request's time-average context (capped by the engine's running
    cap), the step at that batch, and the request's share of the replica, its GPU-seconds and its cost."""
    mean = rf.mean_context_tokens(prompt, output)
    gpus = holding_group(model, gpu, gpus, weights, round(mean), layout)
    s_kv = scenario(model, gpu, gpus=gpus, weights=weights, seq_len=round(mean), layout=layout)
    cap = None if engine is None else profile(engine, gpu, model, weights).max_running
    batch = s_kv.max_batch if cap is None else min(s_kv.max_batch, cap)
    s = scenario(model, gpu, gpus=gpus, weights=weights, seq_len=round(mean), batch=batch, layout=layout)
    m, g = s.model_spec, s.gpu_spec
    prefill = scenario(model, gpu, gpus=gpus, weights=weights, seq_len=prompt, batch=1,
                       layout=layout).prefill_compute_s
    decode = rf.replica_seconds_per_request(output, s.decode_step_s, batch)
    gpu_s = rf.gpu_seconds_per_request(gpus, prefill + decode)
    price = catalog().prices.get(gpu)
    rate = f.tokens_per_s(batch, s.decode_step_s)
    tpot = s.estimated_step_s if s.estimated_step_s is not None else s.planned_step_s
    return SimpleNamespace(
        s=s, model=m, gpu=g, gpus=gpus, prompt=prompt, output=output, mean_tokens=mean, end_tokens=prompt + output,
        kv_mean=model_kv_bytes_per_seq(m, mean), kv_end=model_kv_bytes_per_seq(m, prompt + output),
        kv_batch=s_kv.max_batch, cap=cap, batch=batch, capped=cap is not None and cap < s_kv.max_batch,
        step_s=s.decode_step_s, tpot_s=tpot, tpot_fitted=s.estimated_step_s is not None,
        prefill_s=prefill, prefill_alone_s=prefill_floor_s(m, g, gpus, weights, prompt), decode_s=decode,
        prefill_share=rf.prefill_share(prefill, output, s.decode_step_s, batch), gpu_s=gpu_s, tokens_per_s=rate,
        price=price, cost_per_million=(None if price is None else
                                       f.cost_per_million_tokens(price.typical, gpus, rate, s.efficiency)),
        cost=None if price is None else rf.cost_per_request_usd(price.typical, gpu_s, s.efficiency),
    )


def sampled(e: SimpleNamespace, samples: int) -> SimpleNamespace:
    """The request of `e` sampled `samples` times in parallel, the prompt's KV blocks shared: the KV one query
    holds on average, the queries and sequences the budget holds, the step's floor at that occupancy, and the
    query's GPU-seconds against one sample's."""
    shared = rf.sampled_kv_tokens(e.prompt, e.output / 2, samples, True)
    unshared = rf.sampled_kv_tokens(e.prompt, e.output / 2, samples, False)
    kv_query = model_kv_bytes_per_seq(e.model, shared)
    queries = int(f.max_batch(e.s.kv_budget_bytes, kv_query))
    sequences = queries * samples
    moved = f.decode_step_bytes(weight_bytes_read(e.model, sequences, e.s.weights_dtype), queries, kv_query)
    step = f.memory_time_s(moved, e.gpus, e.gpu.bandwidth_bytes_per_s)
    decode = rf.replica_seconds_per_request(samples * e.output, step, sequences)
    gpu_s = rf.gpu_seconds_per_request(e.gpus, e.prefill_s + decode)
    return SimpleNamespace(samples=samples, mean_output=e.output / 2, shared_tokens=shared, unshared_tokens=unshared,
                           saving=1 - shared / unshared, kv_query=kv_query, queries=queries, sequences=sequences,
                           step_s=step, gpu_s=gpu_s, gpu_ratio=gpu_s / e.gpu_s)


def mask_replica(model: str, gpu: str, gpus: int, context: int) -> SimpleNamespace:
    """The decode floor of a replica as two times: the weight read W, the same every step, and one sequence's KV
    read c; the step at batch b is W + b c (memory-bound). And the most sequences of `context` tokens it holds."""
    s = scenario(model, gpu, gpus=gpus, seq_len=context)
    return SimpleNamespace(s=s, weight_s=f.memory_time_s(s.weight_bytes, gpus, s.gpu_bandwidth_bytes_per_s),
                           kv_s=f.memory_time_s(s.kv_bytes_per_seq_group, gpus, s.gpu_bandwidth_bytes_per_s),
                           max_batch=s.max_batch, vocab=s.model_spec.vocab_size)


def crossover(r: SimpleNamespace, mask_s: float, threads: int, positions: int = 1) -> SimpleNamespace:
    """Where the masks overtake the floor of replica r: b* and the first whole batch past it (None if never)."""
    b = rf.mask_crossover_batch(r.weight_s, r.kv_s, mask_s, threads, positions)
    first = math.floor(b) + 1 if math.isfinite(b) else None
    return SimpleNamespace(mask_s=mask_s, threads=threads, positions=positions, crossover=b, first=first,
                           per_sequence=positions * mask_s / threads,
                           within=first is not None and first <= r.max_batch)


def problems(example: SimpleNamespace) -> SimpleNamespace:
    """The chapter's ten worked problems; `example` is the chapter's reasoning request (request_economics)."""
    t, w = topic(), workloads()
    r = t.reasoning_request
    output = r.thinking_tokens + r.answer_tokens
    # P1: DeepSeek-R1 (DeepSeek-V3's architecture) on 8 x H200 in FP8, TP against DP attention
    r1 = {layout: request_economics(R1_MODEL, R1_GPU, R1_GPUS, "fp8", r.prompt_tokens, output, layout=layout)
          for layout in ("tp", "dp-attention")}
    # P2: GPT-OSS-120B on one H100, sliding windows on half its layers
    oss = request_economics(OSS_MODEL, OSS_GPU, 1, "mxfp4", r.prompt_tokens, output)
    # P3: the example's model on 4 x B200, with and without a thinking budget
    e = t.example
    b200 = request_economics(e.model, BUDGET_GPU, e.gpus, e.weights, r.prompt_tokens, output)
    b200_budget = request_economics(e.model, BUDGET_GPU, e.gpus, e.weights, r.prompt_tokens,
                                    BUDGET_TOKENS + r.answer_tokens)
    # P4: best-of-n with a long prompt on R1-Distill-Llama-70B's architecture
    distill = request_economics(DISTILL_MODEL, DISTILL_GPU, DISTILL_GPUS, "bf16", LONG_PROMPT, LONG_OUTPUT)
    # P5: the first visible token within a minute, 8 x H100
    slo = request_economics(e.model, SLO_GPU, SLO_GPUS, e.weights, r.prompt_tokens, output)
    slo_budget = (SLO_S - slo.prefill_alone_s) / slo.tpot_s  # thinking tokens that fit before the deadline
    # P6: the naive mask for GPT-OSS's 201k vocabulary against its decode step at batch 64
    tw = t.trie_walk
    vocab_gpus = holding_group(OSS_VOCAB_MODEL, OSS_GPU, 1, None, r.prompt_tokens, batch=OSS_BATCH)
    oss_vocab = scenario(OSS_VOCAB_MODEL, OSS_GPU, gpus=vocab_gpus, seq_len=r.prompt_tokens, batch=OSS_BATCH)
    naive = rf.trie_walk_mask_s(oss_vocab.model_spec.vocab_size, tw.nodes_per_token, tw.cycles_per_node, tw.clock_hz)
    # P7: the crossover on a 70B over 4 x H100, both engines' means on vLLM's largest pool
    big = mask_replica(BIG_MODEL, BIG_GPU, BIG_GPUS, t.structured_example.context_tokens)
    threads = max(t.structured_example.threads)
    big_rows = {name: crossover(big, getattr(t.mask_time, name).mean, threads) for name in ("llguidance", "xgrammar")}
    small = crossover(mask_replica(t.structured_example.model, t.structured_example.gpu, t.structured_example.gpus,
                                   t.structured_example.context_tokens), t.mask_time.xgrammar.mean, threads)
    # P8: speculative decoding with a grammar on an H200, filled on one thread as vLLM does
    se = t.structured_example
    spec = mask_replica(se.model, SPEC_GPU, se.gpus, se.context_tokens)
    k = w["draft_tokens"]
    # P9: the tail at batch 64 on the chapter's structured replica
    tail = mask_replica(se.model, se.gpu, se.gpus, se.context_tokens)
    spec_plain = crossover(spec, t.mask_time.llguidance.mean, 1)
    spec_draft = crossover(spec, t.mask_time.llguidance.mean, 1, k + 1)
    spec_shift = spec_plain.crossover / spec_draft.crossover
    tail_step = tail.weight_s + TAIL_BATCH * tail.kv_s
    forced = round(JSON_TOKENS * t.fast_forward.share_compact)
    return SimpleNamespace(
        r1_tp=r1["tp"], r1_dp=r1["dp-attention"], r1_gain=r1["dp-attention"].batch / r1["tp"].batch,
        oss=oss, oss_vs_example=example.gpu_s / oss.gpu_s,
        oss_full_layers=oss.model.layers - oss.model.sliding_window_layers,
        oss_active_share=oss.model.active / example.model.active,
        oss_than=than(example.gpu_s, oss.gpu_s),
        b200=b200, b200_budget=b200_budget, budget_tokens=BUDGET_TOKENS, b200_gain=b200.gpu_s / b200_budget.gpu_s,
        b200_cost_thousand=1000 * b200.cost, b200_budget_cost_thousand=1000 * b200_budget.cost,
        b200_than=than(b200.gpu_s, b200_budget.gpu_s),
        distill=distill, distill_sampled=(ds := sampled(distill, t.sampling.samples)),
        distill_words=sharing_words(ds.saving),
        slo=slo, slo_s=SLO_S, slo_tpot_words=tpot_words(slo.tpot_fitted), slo_budget=slo_budget,
        slo_ttft=rf.visible_ttft_s(slo.prefill_alone_s, r.thinking_tokens, slo.tpot_s),
        oss_vocab=oss_vocab, naive=naive, naive_threads=OSS_BATCH * naive / oss_vocab.decode_step_s,
        big=big, big_threads=threads, big_rows=big_rows,
        big_words={name: crossover_words(row, big.max_batch) for name, row in big_rows.items()},
        big_more_room=assume(big_rows["xgrammar"].crossover > small.crossover,
                             f"XGrammar crossover on {threads} threads: {fmt.num(big_rows['xgrammar'].crossover)} "
                             f"on the 70B, {fmt.num(small.crossover)} on the chapter's replica",
                             "the 70B's crossover is no longer above the chapter's: drop the comparison"),
        spec=spec, draft_tokens=k, spec_plain=spec_plain, spec_draft=spec_draft, spec_shift=spec_shift,
        spec_more_than=assume(spec_shift > k + 1, f"crossover moves {fmt.times(spec_shift)} with {k + 1} masks",
                              "speculation no longer moves the crossover by more than k + 1"),
        tail=tail, tail_batch=TAIL_BATCH, tail_step=tail_step,
        tail_share=rf.slow_mask_step_share(TAIL_BATCH, 0.99),
        tail_p99=t.mask_time.xgrammar.p99, tail_over=(over := t.mask_time.xgrammar.p99 / tail_step),
        tail_outlast=math.floor(1 / over) + 1,  # p99 masks on one thread that outlast the step
        json_tokens=JSON_TOKENS, forced=forced, json_steps=JSON_TOKENS - forced,
        json_bound=rf.forced_token_speedup(forced / JSON_TOKENS),
    )
