"""docs/questions.md, the thirty-five questions: every figure the answers quote.

The anchor (the 70B preset on four H100s) and the chapters' examples come from data/workloads.toml;
the scenarios are the anchor at another batch, context, dtype or group size. SI units throughout.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.lookup import get_model
from ...engine.model.geometry import mha_kv_bytes_per_token, model_kv_bytes_per_seq
from ...engine.model.scenario import anchor, scenario
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from ._shared import (
    GIB,
    bandwidth_comparison,
    cache_against_weights,
    gpu_share_words,
    kv_transfer_s,
    one_gpu_decode,
    operations_examples,
    request_spread,
    speculation,
    worked_batch,
    worked_batch_words,
)
from .errata import SOURCE_FIGURES
from .errata_checks import reproduces, source_quotes

BATCH_ONE = 1  # one sequence: decode at its least efficient
SOURCE_BATCH = 130  # question 15 as the source asks it: its decimal budget over a binary KV size


def _roofline(s, gpu, prompt_tokens: int) -> dict:
    """Questions 6 to 12: intensities, the one-GPU whiteboard terms, the H100 against the H200."""
    balance = s.machine_balance
    intensity_one = f.intensity(f.decode_step_flops(s.active_params, BATCH_ONE), s.weight_bytes)
    flops_big = f.decode_step_flops(s.active_params, worked_batch())
    prompt_flops = f.decode_step_flops(s.active_params, prompt_tokens)
    prefill_intensity = f.intensity(prompt_flops, s.weight_bytes)
    return dict(
        **one_gpu_decode(s),
        **bandwidth_comparison(s),
        intensity_one=intensity_one,
        balance_over_intensity_one=balance / intensity_one,
        compute_idle_one=f.compute_idle_fraction(intensity_one, balance),
        balance_over_intensity_big=balance / f.intensity(flops_big, s.weight_bytes),
        prefill_intensity=prefill_intensity,
        prefill_over_balance=prefill_intensity / balance,
        prompt_flops=prompt_flops,
        prompt_compute_one_gpu_s=f.compute_time_s(prompt_flops, 1, gpu.bf16_flops),
        prompt_compute_sparse_s=f.compute_time_s(prompt_flops, 1, gpu.bf16_sparse_flops),
        full_batch_one_gpu_read_s=s.decode_bytes / gpu.bandwidth_bytes_per_s,
    )


def _fewest_gpus(s) -> int:
    """The fewest GPUs of the anchor's type (any count, not only a power of two) that hold the weights,
    the reserve and one sequence: from the count the weights alone need, up to the anchor group."""
    g = int(f.blocks_needed(s.weight_bytes, s.gpu_spec.memory_bytes))
    while g < s.gpus and not anchor(gpus=g).fits:
        g += 1
    return g


def _memory(s, gpu, w: dict) -> dict:
    """Questions 4 and 13 to 16: GQA against MHA, the smallest group, long context, the crossover."""
    m = s.model_spec
    mha_per_token = mha_kv_bytes_per_token(m)
    mha_per_seq = mha_per_token * s.seq_len
    long_kv = model_kv_bytes_per_seq(m, w["long_context_tokens"])
    min_gpus = _fewest_gpus(s)
    crossover = f.kv_overtakes_weights_batch(s.weight_bytes, s.kv_bytes_per_seq)
    return dict(
        gqa_saving=mha_per_token / s.kv_bytes_per_token,
        mha_kv_per_token=mha_per_token,
        mha_kv_per_seq=mha_per_seq,
        mha_max_batch=int(f.max_batch(s.kv_budget_bytes, mha_per_seq)),
        min_group=anchor(gpus=min_gpus),
        # "N GPUs hold the weights, but ... too few to be worth serving. So {s.gpus}": a smaller group first
        min_group_smaller=assume(min_gpus < s.gpus, f"the fewest {gpu.name} that hold the weights, the reserve and "
                                 f"one sequence: {min_gpus}; the anchor group: {s.gpus}",
                                 "the smallest group that fits is the anchor group itself: say so"),
        min_group_batch_one=anchor(gpus=min_gpus, batch=BATCH_ONE),
        long_context_tokens=w["long_context_tokens"],
        long_context_kv=long_kv,
        long_context_gpu_share=long_kv / gpu.memory_bytes,
        long_context_gpu_words=gpu_share_words(long_kv / gpu.memory_bytes),  # "about half a GPU"
        # the source's "39 GB", quoted, is this cache in GiB with a GB label
        often_quoted=source_quotes().kv_long_short,
        often_quoted_is_binary=assume(
            reproduces(long_kv / GIB, SOURCE_FIGURES.kv_long_bytes / 1e9, 1),
            f"KV of {w['long_context_tokens']:,} tokens: {fmt.binary(long_kv)}, the source's "
            f"\u201c{source_quotes().kv_long_short}\u201d",
            "the quoted figure is no longer this cache in GiB: drop the aside"),
        source_batch=SOURCE_BATCH,
        source_batch_kv=SOURCE_BATCH * s.kv_bytes_per_seq,
        # Q15: "... would need X of cache, more than the budget"; "the cache ... is the dominant consumer"
        source_batch_over_budget=assume(SOURCE_BATCH * s.kv_bytes_per_seq > s.kv_budget_bytes,
                                        f"{SOURCE_BATCH} sequences: {fmt.bytes_(SOURCE_BATCH * s.kv_bytes_per_seq)} of "
                                        f"KV, budget {fmt.bytes_(s.kv_budget_bytes)}",
                                        f"{SOURCE_BATCH} sequences now fit the budget: the source's batch is no slip"),
        cache=cache_against_weights(s),  # the cache against the weights, in words
        kv_overtakes_from_batch=math.floor(crossover) + 1,
        double_context=anchor(seq_len=2 * s.seq_len),
    )


def _batching(s, w: dict) -> dict:
    """Questions 17 to 21: static batching, paging, chunked prefill, the scheduler's pace."""
    claim = catalog().claims["static-batching-utilisation"]
    util = f.static_batch_utilisation(w["output_lengths"])
    block = catalog().claims["paged-block-tokens"].low
    blocks = int(f.blocks_needed(w["generated_tokens"], block))
    return dict(
        static_claim=claim,
        static_waste_low=1 - claim.high,
        static_waste_high=1 - claim.low,
        output_lengths=w["output_lengths"],
        static_utilisation=util,
        static_waste=1 - util,
        continuous_gain=1 / util,
        arrival_step=w["arrival_step"],
        arrival_wait_steps=max(w["output_lengths"]) - w["arrival_step"],
        generated_tokens=w["generated_tokens"],
        reserved_waste=f.reserved_waste_fraction(s.seq_len, w["generated_tokens"]),
        blocks=blocks,
        block_slots_empty=int(blocks * block - w["generated_tokens"]),
        chunk_tokens=w["chunk_tokens"],
        prompt_chunks=int(f.blocks_needed(w["prompt_tokens"], w["chunk_tokens"])),
        chunk=anchor(seq_len=w["chunk_tokens"], batch=BATCH_ONE),
        scheduler_decisions_per_s=1 / s.decode_step_s,
    )


def _toolkit(s, gpu, w: dict) -> dict:
    """Questions 22 to 28: prefix caching, speculation, quantization, parallelism, disaggregation."""
    turns, per_turn = w["turns"], w["tokens_per_turn"]
    uncached = f.multi_turn_prefill_tokens(turns, per_turn, False)
    cached = f.multi_turn_prefill_tokens(turns, per_turn, True)
    history = turns * per_turn

    def prefill_s(tokens: int) -> float:
        return f.prefill_time_s(s.active_params, tokens, s.weight_bytes, s.gpus, gpu.bf16_flops,
                                gpu.bandwidth_bytes_per_s)

    fp8 = anchor(weights="fp8")
    at_batch_one = anchor(batch=BATCH_ONE)
    prompt_kv = model_kv_bytes_per_seq(s.model_spec, w["prompt_tokens"])
    return dict(
        turns=turns, tokens_per_turn=per_turn,
        prefill_tokens_uncached=uncached, prefill_tokens_cached=cached, prefix_cache_saving=uncached / cached,
        history_tokens=history, history_prefill_s=prefill_s(history), turn_prefill_s=prefill_s(per_turn),
        draft_tokens=w["draft_tokens"],
        **speculation(s, w["draft_tokens"]),
        fp8=fp8, fp8_batch_one=anchor(weights="fp8", batch=BATCH_ONE),
        fp8_freed_bytes=s.weight_bytes - fp8.weight_bytes,
        pipeline_batch_one_s=f.memory_time_s(at_batch_one.decode_bytes, 1, gpu.bandwidth_bytes_per_s),
        mla_model=get_model(w["mla_model"]), moe_model=get_model(w["moe_model"]),
        prompt_kv=prompt_kv,
        prompt_kv_transfer_s=kv_transfer_s(s, prompt_kv, catalog().claims["nic-bandwidth"].low),
        prompt_kv_per_gpu=s.kv_copies * prompt_kv / s.gpus,
    )


def _serving(s, w: dict) -> dict:
    """Questions 29 to 35: the request-cost spread, signals, scale-up, warm pools, fairness, failure."""
    ops = operations_examples(s)
    big_kv = model_kv_bytes_per_seq(s.model_spec, w["big_prompt"])
    price = catalog().prices[w["gpu"]]
    return dict(
        **ops,
        spread=request_spread(s.model_spec),
        warm_gpus=ops["warm_replicas"] * s.gpus, price=price,
        warm_pool_usd_per_hour=ops["warm_replicas"] * s.gpus * price.typical,
        big_prompt_kv=big_kv,
        big_prompt_budget_share=big_kv / s.kv_budget_bytes,
        replica_reprefill_s=s.max_batch * s.prefill_s,
    )


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    gpu = s.gpu_spec
    batch_big = worked_batch()
    at_batch_one, at_batch_big = anchor(batch=BATCH_ONE), anchor(batch=batch_big)
    weight_read_group_s = f.memory_time_s(s.weight_bytes, s.gpus, gpu.bandwidth_bytes_per_s)
    return SimpleNamespace(
        anchor=s, model=s.model_spec, gpu=gpu,
        batch_one=BATCH_ONE, batch_big=batch_big, batch_words=worked_batch_words(),
        at_batch_one=at_batch_one, at_batch_big=at_batch_big,
        batching_throughput_gain=at_batch_big.decode_tokens_per_s / at_batch_one.decode_tokens_per_s,
        compared_at_batch_big=scenario(w["model"], w["compared_gpu"], gpus=w["gpus"], batch=batch_big),
        prompt_tokens=w["prompt_tokens"], prompt=anchor(seq_len=w["prompt_tokens"], batch=BATCH_ONE),
        weight_read_group_s=weight_read_group_s,
        prompt_decode_s=w["prompt_tokens"] * weight_read_group_s,  # as many tokens generated for one user
        big_prompt=w["big_prompt"],
        **_roofline(s, gpu, w["prompt_tokens"]),
        **_memory(s, gpu, w),
        **_batching(s, w),
        **_toolkit(s, gpu, w),
        **_serving(s, w),
    )
