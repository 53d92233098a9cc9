"""Chapter 8, reasoning and structured output (docs/guide/reasoning.md): a reasoning request's KV over its
life and the batch it leaves, where its replica time goes, its cost against a chat turn, what a thinking budget
and parallel samples do to GPUs and latency; then the token mask a grammar computes on the CPU per sequence per
step, against the decode step it runs beside. Inputs: data/topics/reasoning.toml (problems/reasoning.topic()).
Values in SI units; the page formats them. Sentences whose words follow the numbers are built here (_words)."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.formulas import reasoning as rf
from ...engine.model.geometry import kv_bytes_per_token, model_kv_bytes_per_seq
from ...engine.model.scenario import scenario
from ...engine.problems.reasoning import topic
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume, phrase
from . import _reasoning as rs
from ._reasoning import crossover_words, sharing_words, tpot_words

VOCAB_MODELS = ("llama-3.1-8b", "qwen3-235b-a22b", "gpt-oss-120b")  # 128k, 152k and 201k vocabularies
ENGINES = ("llguidance", "xgrammar")


# --- sentences whose words follow the numbers ----------------------------------------------------------


def cap_words(capped: bool, cap: int | None) -> str:
    """Which limit sets the chat batch: the engine's running cap or the KV cache."""
    if capped:
        return f"the engine's running cap of {fmt.count(cap)} sequences binds before the KV cache does"
    return "the KV cache binds before the engine's running cap does"


def proportion_words(gpu_ratio: float, token_ratio: float) -> str:
    """How a thinking budget's GPU saving compares with the tokens it removes."""
    return phrase(gpu_ratio, token_ratio, "in proportion to the tokens it removes",
                  "more than in proportion to the tokens it removes", "less than in proportion to the tokens it "
                  "removes", rel=0.02)


def tail_words(p99_s: float, step_s: float) -> str:
    """Whether one p99 mask alone outlasts the step it sits in."""
    if p99_s > step_s:
        return "outlasts the whole step by itself"
    return f"takes {fmt.pct(p99_s / step_s)} of the step by itself"


# --- 8.1 reasoning models -----------------------------------------------------------------------------


def _budget_rows(e: SimpleNamespace, t: SimpleNamespace) -> list[SimpleNamespace]:
    """The reasoning request with its thinking capped at each budget, then uncapped: GPU-seconds and latency."""
    ex, r = t.example, t.reasoning_request
    rows = []
    for budget in (*t.thinking_budgets.tokens, None):
        thinking = r.thinking_tokens if budget is None else min(budget, r.thinking_tokens)
        b = rs.request_economics(ex.model, ex.gpu, ex.gpus, ex.weights, r.prompt_tokens, thinking + r.answer_tokens,
                                 ex.engine)
        rows.append(SimpleNamespace(budget=budget, thinking=thinking, e=b, gpu_ratio=e.gpu_s / b.gpu_s,
                                    token_ratio=(r.thinking_tokens + r.answer_tokens) / (thinking + r.answer_tokens),
                                    visible_s=rf.visible_ttft_s(b.prefill_alone_s, thinking, b.tpot_s)))
    return rows


def reasoning_section(t: SimpleNamespace) -> SimpleNamespace:
    ex, r, c = t.example, t.reasoning_request, t.chat_request
    output = r.thinking_tokens + r.answer_tokens
    e = rs.request_economics(ex.model, ex.gpu, ex.gpus, ex.weights, r.prompt_tokens, output, ex.engine)
    chat = rs.request_economics(ex.model, ex.gpu, ex.gpus, ex.weights, c.prompt_tokens, c.answer_tokens, ex.engine)
    reserved = scenario(ex.model, ex.gpu, gpus=ex.gpus, weights=ex.weights, seq_len=e.end_tokens).max_batch
    alone = scenario(ex.model, ex.gpu, gpus=ex.gpus, weights=ex.weights, seq_len=round(e.mean_tokens), batch=1)
    rows = _budget_rows(e, t)
    cut = next(x for x in rows if x.budget == 4000) if any(x.budget == 4000 for x in rows) else rows[len(rows) // 2]
    sc = t.self_consistency
    visible = rf.visible_ttft_s(e.prefill_alone_s, r.thinking_tokens, e.tpot_s)
    return SimpleNamespace(
        e=e, chat=chat, prompt=r.prompt_tokens, thinking=r.thinking_tokens, answer=r.answer_tokens, output=output,
        chat_prompt=c.prompt_tokens, chat_output=c.answer_tokens,
        kv_per_token=kv_bytes_per_token(e.model), kv_prompt=model_kv_bytes_per_seq(e.model, r.prompt_tokens),
        budget=e.s.kv_budget_bytes, reserved_batch=reserved,
        batch_ratio=chat.batch / e.batch, kv_ratio=e.kv_mean / chat.kv_mean,
        kv_words=(f"{fmt.times(e.kv_mean / chat.kv_mean)} less" if e.kv_mean >= chat.kv_mean else
                  f"{fmt.times(chat.kv_mean / e.kv_mean)} more"),
        cap_words=cap_words(chat.capped, chat.cap),
        # the money: the same per-token price, against what each token really costs to make
        token_ratio=output / c.answer_tokens, cost_ratio=e.cost / chat.cost,
        cost_thousand=1000 * e.cost, chat_cost_thousand=1000 * chat.cost,
        per_token_ratio=e.cost_per_million / chat.cost_per_million, gpu_ratio=e.gpu_s / chat.gpu_s,
        fewer_share=assume(e.cost_per_million > chat.cost_per_million and e.batch < chat.batch,
                           f"batch {e.batch} against {chat.batch}; {fmt.usd(e.cost_per_million)} against "
                           f"{fmt.usd(chat.cost_per_million)} a million",
                           "reasoning tokens no longer cost more to make: rewrite the reason"),
        # a thinking budget
        rows=rows, cut=cut, proportion_words=proportion_words(cut.gpu_ratio, cut.token_ratio),
        budget_steps_no_faster=assume(cut.e.tpot_s >= 0.95 * e.tpot_s,
                                      f"TPOT {fmt.ms(cut.e.tpot_s)} with the budget, {fmt.ms(e.tpot_s)} without",
                                      "the budget's batch now steps faster: the latency falls more than the tokens"),
        stop_instruction=t.qwen3_thinking_budget.stop_instruction,
        # latency: the thinking before the first visible token
        visible_s=visible, total_s=visible + r.answer_tokens * e.tpot_s, chat_ttft_s=chat.prefill_alone_s,
        alone_step_s=alone.decode_step_s, visible_floor_s=rf.visible_ttft_s(0, r.thinking_tokens, alone.decode_step_s),
        per_user=1 / e.tpot_s, tpot_words=tpot_words(e.tpot_fitted),
        # parallel samples and self-consistency
        sampled=(smp := rs.sampled(e, t.sampling.samples)), sharing_words=sharing_words(smp.saving),
        sc=sc, sc_gain=sc.majority_accuracy - sc.pass_at_1,
        output_length=t.qwen3_output_length,
        memory_bound=assume(e.s.bound == "memory" and chat.s.bound == "memory",
                            f"reasoning step {e.s.bound}-bound, chat step {chat.s.bound}-bound",
                            "the batches' steps are no longer memory-bound: the step is not the full memory read"),
        prefill_small=assume(e.prefill_share < 0.01 < 0.1 < chat.prefill_share,
                             f"prefill share: reasoning {fmt.pct(e.prefill_share)}, chat {fmt.pct(chat.prefill_share)}",
                             "rewrite 'a rounding error' and the chat contrast"),
    )


# --- 8.2 structured output ------------------------------------------------------------------------------


def structured_section(t: SimpleNamespace) -> SimpleNamespace:
    se, tw, w = t.structured_example, t.trie_walk, workloads()
    r = rs.mask_replica(se.model, se.gpu, se.gpus, se.context_tokens)
    naive = {key: rf.trie_walk_mask_s(catalog().models[key].vocab_size, tw.nodes_per_token, tw.cycles_per_node,
                                      tw.clock_hz) for key in VOCAB_MODELS}
    rows = [SimpleNamespace(engine=name, times=getattr(t.mask_time, name), **{
        f"n{n}": rs.crossover(r, getattr(t.mask_time, name).mean, n) for n in se.threads}) for name in ENGINES]
    for row in rows:
        row.words = {n: crossover_words(getattr(row, f"n{n}"), r.max_batch) for n in se.threads}
    b = rs.TAIL_BATCH
    gpu_at = r.weight_s + b * r.kv_s
    cpu_slow = rf.mask_cpu_s(b, t.mask_time.xgrammar.mean, 1)
    cpu_fast = rf.mask_cpu_s(b, t.mask_time.llguidance.mean, 1)
    k = w["draft_tokens"]
    spec = rs.crossover(r, t.mask_time.llguidance.mean, 1, k + 1)
    ff, lg = t.fast_forward, t.llgtrt
    xg, lgm = t.mask_time.xgrammar, t.mask_time.llguidance
    bound = rf.forced_token_speedup(ff.share_compact)
    llgtrt_batch = rf.mask_crossover_batch(lg.step_s, 0, lg.mask_s, lg.cores)
    return SimpleNamespace(
        r=r, model=r.s.model_spec, gpu=r.s.gpu_spec, context=se.context_tokens, threads=se.threads,
        naive=naive, vocab={key: catalog().models[key].vocab_size for key in VOCAB_MODELS},
        vocab_names={key: catalog().models[key].name for key in VOCAB_MODELS},
        naive_here=naive[se.model], naive_over_step=naive[se.model] / r.weight_s,
        bitmask=rf.token_bitmask_bytes(r.vocab), bitmask_batch=b * rf.token_bitmask_bytes(r.vocab),
        times=t.mask_time, rows=rows, fill=t.vllm_fill,
        batch=b, gpu_at=gpu_at, cpu_slow=cpu_slow, cpu_fast=cpu_fast,
        overlapped=rf.overlapped_step_s(gpu_at, cpu_slow), serial=rf.serial_step_s(gpu_at, cpu_slow),
        draft_tokens=k, spec=spec, spec_words=crossover_words(spec, r.max_batch),
        spec_plain_words=crossover_words(rs.crossover(r, t.mask_time.llguidance.mean, 1), r.max_batch),
        tail_share=rf.slow_mask_step_share(b, 0.99), tail_words=tail_words(t.mask_time.xgrammar.p99, gpu_at),
        lg_tail_words=tail_words(t.mask_time.llguidance.p99, gpu_at),
        xgr_split=assume(xg.p50 < lgm.p50 and xg.p99 > lgm.p99,
                         f"median {fmt.seconds(xg.p50)} against {fmt.seconds(lgm.p50)}, p99 {fmt.seconds(xg.p99)} "
                         f"against {fmt.seconds(lgm.p99)}", "the engines' median and tail no longer split this way"),
        medians_below=assume(max(xg.p50, lgm.p50) < naive[se.model] / 10,
                             f"medians {fmt.seconds(xg.p50)} and {fmt.seconds(lgm.p50)}, naive walk "
                             f"{fmt.seconds(naive[se.model])}", "a median is no longer a tenth of the naive walk"),
        xgr_p99_words=phrase(xg.p99, naive[se.model], "about equal to", "above", "below", rel=0.05),
        fast_words="hidden behind the forward pass" if cpu_fast <= gpu_at else "longer than the forward pass",
        ff=ff, ff_bound=bound,
        ff_claim_within=assume(ff.claimed_gain_high <= bound - 1,
                               f"claimed gain {fmt.pct(ff.claimed_gain_high)}, bound {fmt.pct(bound - 1)}",
                               "the published gain exceeds the no-cost bound: say why, or drop the bound"),
        llgtrt=lg, llgtrt_batch=llgtrt_batch,
        llgtrt_agrees=assume(abs(llgtrt_batch / lg.batch - 1) < 0.01,
                             f"formula {fmt.num(llgtrt_batch)}, README {fmt.count(lg.batch)}",
                             "the README's napkin no longer matches the formula: quote it as its own"),
    )


def model() -> SimpleNamespace:
    t = topic()
    q = reasoning_section(t)
    return SimpleNamespace(data=t, rsn=q, so=structured_section(t), problems=rs.problems(q.e))
