"""Chapter 2 (docs/guide/roofline.md): the roofline derivation for the anchor model, first on one GPU
(the whiteboard version, term by term), then on the tensor-parallel group it needs, the anchor GPU
against the compared GPU (same compute, more bandwidth), the general step time (2.5) and the chapter's
problems (roofline_problems.py). Values in SI units; the page formats them."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.calibration import report as v
from ...engine.calibration.measured import meta
from ...engine.model.geometry import model_kv_bytes_per_seq
from ...engine.model.scenario import DEFAULT_EFFICIENCY, anchor, scenario
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from . import errata
from ._shared import (
    GIB,
    bandwidth_comparison,
    max_batch_mixed_units,
    one_gpu_decode,
    orders_of_magnitude,
    source_fraction,
    speculation,
    unit_traps,
    worked_batch,
    worked_batch_words,
)
from .roofline_problems import problems


def _ratios(gpu: Any, other: Any, big: Any, other_big: Any, full: Any, other_full: Any,
            prompt: Any, other_prompt: Any) -> SimpleNamespace:
    """How far the compared GPU is ahead of the anchor GPU (above 1 where it is ahead). Its bandwidth
    ratio is _shared.bandwidth_comparison's."""
    return SimpleNamespace(
        bf16_flops=other.bf16_flops / gpu.bf16_flops,
        fp8_flops=other.fp8_flops / gpu.fp8_flops,
        memory=other.memory_bytes / gpu.memory_bytes,
        balance=(f.machine_balance(other.bf16_flops, other.bandwidth_bytes_per_s)
                 / f.machine_balance(gpu.bf16_flops, gpu.bandwidth_bytes_per_s)),
        decode_step=big.decode_step_s / other_big.decode_step_s,  # a speed-up: the anchor's time over the other's
        prefill=prompt.prefill_s / other_prompt.prefill_s,
        max_batch=other_full.max_batch / full.max_batch,
        throughput=other_full.decode_tokens_per_s / full.decode_tokens_per_s,
    )


def _general_step(full: Any, one: Any, decodes: int, chunk_tokens: int, prompt_tokens: int) -> SimpleNamespace:
    """2.5: T(b) = max((W + b KV) / (g B), FLOPs(b) / (g P)) on the anchor group. At the max batch, how many
    weight reads the step's bytes come to and the intensity that leaves; the intensity a batch can never
    pass (every byte a sequence adds is KV); and the chunked-prefill step, as chapter 4 computes it (2 N_a
    FLOPs per token, attention left out), with the tokens a step's bytes leave room for before compute binds."""
    weights, kv = full.weight_bytes, full.kv_bytes_per_seq_group
    token_flops = f.decode_step_flops(full.active_params, 1)
    reads = full.decode_bytes / weights  # the max-batch step's bytes, in weight reads
    step_bytes = f.decode_step_bytes(weights, decodes, kv)  # the decodes' step: weights plus their KV

    def chunk_step(tokens: int) -> float:
        return f.step_floor_s(step_bytes, f.decode_step_flops(full.active_params, tokens), full.gpus,
                             full.gpu_bandwidth_bytes_per_s, full.gpu_peak_flops)

    return SimpleNamespace(
        kv_total=full.batch * kv,
        weight_reads=reads,
        tokens_per_read=full.batch / reads,  # the intensity with 2 N_a FLOPs a token, BF16: one FLOP per weight byte
        intensity=full.decode_intensity,  # the engine's, attention FLOPs included
        memory_s=f.memory_time_s(full.decode_bytes, full.gpus, full.gpu_bandwidth_bytes_per_s),
        compute_s=f.compute_time_s(full.decode_flops, full.gpus, full.gpu_peak_flops),
        intensity_limit=token_flops / kv,  # b -> infinity: 2 N_a FLOPs against one sequence's KV
        intensity_limit_attention=full.decode_flops / full.batch / kv,
        # plain decode's compute-bound batch: the speculative break-even with no draft tokens
        compute_bound_batch=f.speculative_break_even_batch(weights, kv, full.decode_flops / full.batch, 0,
                                                           full.machine_balance),
        decodes=decodes, chunk_tokens=chunk_tokens, prompt_tokens=prompt_tokens,
        step_bytes=step_bytes,
        room_tokens=full.machine_balance * step_bytes / token_flops,  # compute time = memory time
        decode_only_s=chunk_step(decodes),
        chunk_s=chunk_step(decodes + chunk_tokens),
        whole_prompt_s=chunk_step(decodes + prompt_tokens),
        chunk_step_tokens=decodes + chunk_tokens,
        whole_prompt_step_tokens=decodes + prompt_tokens,
        one_floor_s=one.decode_step_s,
    )


def floor_gap(rows: Sequence[v.Checked] | None = None) -> SimpleNamespace:
    """2.6's callout: what the floor leaves out on the measured runs the serving model is validated on
    (engine/calibration/report.py, the Model against measurement page): measured TPOT over its floor, the
    median at each client concurrency, and the median TTFT over its prefill floor."""
    rows = list(rows if rows is not None else v.checked())
    by_c = v.groups(rows, lambda c: c.run.concurrency)
    table = [SimpleNamespace(concurrency=c, runs=len(by_c[c]),
                             tpot_floor=v.median_floor_ratio(by_c[c], "median_tpot_s")) for c in sorted(by_c)]
    low, high = table[0], table[-1]
    return SimpleNamespace(
        runs=len(rows), by_concurrency=table, low=low, high=high, dates=meta()["dates"], collected=meta()["collected"],
        tpot_floor=v.median_floor_ratio(rows, "median_tpot_s"), ttft_floor=v.median_floor_ratio(rows, "median_ttft_s"),
        # the chapters' planned figure is the floor / eta: this many times the floor
        eta=DEFAULT_EFFICIENCY, planned_factor=1 / DEFAULT_EFFICIENCY,
        widest_at_small=assume(low.tpot_floor is not None and high.tpot_floor is not None
                               and low.tpot_floor > high.tpot_floor,
                               f"median measured TPOT / floor at concurrency {low.concurrency}: {low.tpot_floor}, at "
                               f"{high.concurrency}: {high.tpot_floor}",
                               "the floor is no longer furthest from the runs at small batches: rewrite 2.6's callout"),
    )


def model() -> SimpleNamespace:
    w = workloads()
    batch_big, prompt_tokens = worked_batch(), w["prompt_tokens"]
    one, big, full = anchor(batch=1), anchor(batch=batch_big), anchor()
    prompt = anchor(seq_len=prompt_tokens, batch=1)
    m, gpu = full.model_spec, full.gpu_spec
    compared = bandwidth_comparison(full)
    other = compared["compared_gpu"]

    def on_compared(**kwargs: Any) -> Any:
        """The anchor model on the anchor group size of the compared GPU."""
        return scenario(w["model"], w["compared_gpu"], gpus=w["gpus"], **kwargs)

    other_big, other_full = on_compared(batch=batch_big), on_compared()
    other_prompt = on_compared(seq_len=prompt_tokens, batch=1)
    step = _general_step(full, one, w["decode_batch"], w["chunk_tokens"], prompt_tokens)
    ratios = _ratios(gpu, other, big, other_big, full, other_full, prompt, other_prompt)

    # The single-GPU whiteboard derivation, term by term (dense BF16): the shared one-GPU decode
    # terms, then the worked batch and the worked prompt on the same GPU.
    one_gpu = one_gpu_decode(full)
    bw, peak, sparse = gpu.bandwidth_bytes_per_s, gpu.bf16_flops, gpu.bf16_sparse_flops
    weights = full.weight_bytes
    balance = f.machine_balance(peak, bw)
    weight_read_s = one_gpu["weight_read_one_gpu_s"]
    batch_flops = f.decode_step_flops(m.active, batch_big)
    intensity_one = f.intensity(one_gpu["flops_one_token"], weights)
    intensity_big = f.intensity(batch_flops, weights)
    prompt_flops = f.prefill_flops(m.active, prompt_tokens)
    prompt_compute_s = f.compute_time_s(prompt_flops, 1, peak)
    prompt_attention = f.attention_flops_causal(m.layers, m.query_heads, m.head_dim, prompt_tokens)
    balances = {key: f.machine_balance(g.bf16_flops, g.bandwidth_bytes_per_s) for key, g in catalog().gpus.items()}
    launch = catalog().claims["h200-launch-batches"]
    return SimpleNamespace(
        floor_gap=floor_gap(),
        model=m, gpu=gpu, gpu_key=w["gpu"],
        batch_one=1, batch_big=batch_big, batch_words=worked_batch_words(), prompt_tokens=prompt_tokens,
        **one_gpu,
        # "decode is memory-bound by about two and a half orders of magnitude"
        memory_bound_by=orders_of_magnitude(one_gpu["memory_over_compute_one_gpu"]),
        # "The source says ... a compute time of half this one": its 0.07 ms against one token's compute
        source_half=source_fraction(errata.SOURCE_FIGURES.compute_s, "0.07 ms", one_gpu["decode_compute_one_gpu_s"]),
        **compared,
        **unit_traps(full),
        # 2.1: the machine balance, on every GPU in the data
        balance=balance,
        balances=balances,
        balance_low=min(balances.values()),
        balance_high=max(balances.values()),
        compared_balance=f.machine_balance(other.bf16_flops, other.bandwidth_bytes_per_s),
        # the units trap: decimal against binary
        bandwidth_tib_per_s=bw / 2**40,
        weight_read_as_gib_s=f.memory_time_s(weights / 1e9 * GIB, 1, bw),
        kv_seq_default=model_kv_bytes_per_seq(m, full.seq_len),
        max_batch_mixed_units=max_batch_mixed_units(full),
        # 2.2: decode on one GPU, at batch 1 and at the worked batch
        weight_bytes=weights,
        batch_flops=batch_flops,
        intensity_one=intensity_one,
        intensity_big=intensity_big,
        below_balance_one=balance / intensity_one,
        below_balance_big=balance / intensity_big,
        idle_one=f.compute_idle_fraction(intensity_one, balance),
        idle_big=f.compute_idle_fraction(intensity_big, balance),
        idle_one_with_kv=f.compute_idle_fraction(one.decode_intensity, balance),
        idle_big_with_kv=f.compute_idle_fraction(big.decode_intensity, balance),
        # 2.3: prefill of the worked prompt on one GPU
        prompt_flops=prompt_flops,
        prompt_intensity=f.intensity(prompt_flops, weights),
        prompt_over_balance=f.intensity(prompt_flops, weights) / balance,
        prompt_compute_s=prompt_compute_s,
        prompt_compute_over_memory=prompt_compute_s / weight_read_s,
        prompt_floor_s=f.prefill_time_s(m.active, prompt_tokens, weights, 1, peak, bw),
        prompt_compute_sparse_s=f.compute_time_s(prompt_flops, 1, sparse),
        prompt_attention_flops=prompt_attention,
        prompt_attention_share=prompt_attention / prompt_flops,
        # the group the model runs on: batch 1, the worked batch, the max batch, the worked prompt
        one=one, big=big, full=full, prompt=prompt,
        # 2.4: the compared GPU on the same group
        compared_big=other_big, compared_full=other_full, compared_prompt=other_prompt,
        ratio=ratios,
        # "the throughput ratio grows to ...": the larger batch the extra capacity holds adds to the bandwidth
        capacity_adds=assume(
            ratios.throughput > compared["compared_bandwidth_ratio"] * (1 + 1e-3),
            f"throughput at the largest batch: {full.max_batch} on the {gpu.name}, {other_full.max_batch} on the "
            f"{other.name}, {fmt.times(ratios.throughput)} against the bandwidth ratio "
            f"{fmt.times(compared['compared_bandwidth_ratio'])}",
            "the extra capacity no longer adds to the bandwidth's speed-up: say what limits the batch"),
        launch_batch_ratio=launch.high / launch.low,
        # 2.5: what follows
        batching_gain=big.decode_tokens_per_s / one.decode_tokens_per_s,
        draft_tokens=w["draft_tokens"],
        **speculation(full, w["draft_tokens"]),
        # 2.6, FP8 weights: the batch-1 floor (one read of the weights plus one sequence's KV), as in BF16
        fp8_one=anchor(batch=1, weights="fp8"),
        # 2.5 the general step time, and the chunked-prefill step of chapter 4
        step=step,
        # "That is below the balance, so ... memory-bound at every batch": the intensity a batch tends to
        limit_below_balance=assume(
            max(step.intensity_limit, step.intensity_limit_attention) < balance,
            f"the intensity at an unbounded batch {fmt.num(step.intensity_limit)} FLOP/B "
            f"({fmt.num(step.intensity_limit_attention)} with attention), the balance {fmt.num(balance)}",
            "a large enough batch now turns compute-bound: say at which batch"),
        problems=problems(),
    )
