"""Figures that several page models quote, computed in one place so the pages cannot disagree:
the request-cost spread (overview, chapter 6, questions), the one-GPU whiteboard derivation of
decode (home, overview, conventions, questions), the H100-against-H200 comparison, chapter 6's
examples (chapter 6, questions) and the two unit traps (home, conventions)."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.lookup import get_gpu
from ...engine.model.geometry import request_flops
from ...engine.model.scenario import DEFAULT_SEQ_LEN, Scenario, scenario
from ...engine.specs import Gpu, Model
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import Assumption, assume, close, phrase


def request_spread(model: Model) -> SimpleNamespace:
    """Tokens and FLOPs of the small and the big example request on `model`, and their ratios."""
    w = workloads()
    small_tokens = w["small_prompt"] + w["small_output"]
    big_tokens = w["big_prompt"] + w["big_output"]
    small_flops = request_flops(model, small_tokens)
    big_flops = request_flops(model, big_tokens)
    return SimpleNamespace(
        small_prompt=w["small_prompt"], small_output=w["small_output"],
        big_prompt=w["big_prompt"], big_output=w["big_output"],
        small_tokens=small_tokens, big_tokens=big_tokens,
        token_ratio=big_tokens / small_tokens,
        small_flops=small_flops, big_flops=big_flops,
        flop_ratio=big_flops / small_flops,
        source_ratio=w["source_cost_spread"],  # the source's own "10,000x", quoted to be corrected
    )


def worked_batch() -> int:
    """The batch the chapters work at: the source's example batch (workloads.toml) while the anchor group
    holds it on the anchor GPU and on the compared one, else the most it holds on both (a changed spec
    can shrink the memory or grow the weights until it no longer does). The figures are then the
    figures of a batch that runs, and worked_batch_words() says so on the page."""
    w = workloads()
    return min(w["batch"], *(_anchor_max_batch(g) for g in (w["gpu"], w["compared_gpu"])))


def _anchor_max_batch(gpu: str) -> int:
    w = workloads()
    return scenario(w["model"], gpu, gpus=w["gpus"]).max_batch


def worked_batch_words() -> str:
    """"" while the anchor group holds the source's example batch; otherwise a sentence that says it does
    not and which batch the page works at instead."""
    w, batch = workloads(), worked_batch()
    if batch == w["batch"]:
        return ""
    held = "; ".join(f"{w['gpus']} × {get_gpu(g).name} hold at most {fmt.count(_anchor_max_batch(g))}"
                     for g in dict.fromkeys((w["gpu"], w["compared_gpu"])))
    return (f"The source's example batch of {fmt.count(w['batch'])} sequences of {fmt.count(DEFAULT_SEQ_LEN)} "
            f"tokens does not fit on these specs ({held}), so this page works at a batch of {fmt.count(batch)}.")


def cache_against_weights(s: Scenario) -> SimpleNamespace:
    """The observation "the KV cache outweighs the weights" at the scenario's max batch, in words that
    follow the data: a changed spec (less memory, a bigger model) can leave the weights the larger."""
    outweighs = s.kv_bytes_total > s.weight_bytes
    if outweighs:
        return SimpleNamespace(
            outweighs=True, headline="The KV cache outweighs the weights.", against="more than",
            larger="The cache, not the model, is the largest consumer of memory. Most people's intuition says "
                   "the opposite.",
            limits="the cache, not the model, is what limits the batch",
            dominant="The cache, not the model, is the dominant consumer, which is the opposite of most "
                     "people's intuition.")
    return SimpleNamespace(
        outweighs=False, headline="Even at the max batch the weights outweigh the KV cache.", against="less than",
        larger="The model is the largest consumer of memory here: the weights leave the cache little room.",
        limits="the weights leave the cache little room, and that is what limits the batch",
        dominant="On these specs the model, not the cache, is the dominant consumer: the weights leave the "
                 "cache little room.")


def group_words(s: Scenario) -> str:
    """The scenario's replica in words: "one L4", or "2 × L4" when a changed spec no longer fits it on one."""
    return f"one {s.gpu_spec.name}" if s.gpus == 1 else f"{s.gpus} × {s.gpu_spec.name}"


def one_gpu_decode(s: Scenario) -> dict:
    """The whiteboard version of decode: one token (batch 1) on ONE GPU of the scenario's type,
    every weight read against 2 * N_a FLOPs at the dense BF16 peak, and at the sparse peak that
    circulates by mistake. The ratio of the two times is the machine balance."""
    gpu = s.gpu_spec
    flops = f.decode_step_flops(s.active_params, 1)
    read_s = f.memory_time_s(s.weight_bytes, 1, gpu.bandwidth_bytes_per_s)
    compute_s = f.compute_time_s(flops, 1, gpu.bf16_flops)
    return dict(
        flops_one_token=flops,
        weight_read_one_gpu_s=read_s,
        decode_compute_one_gpu_s=compute_s,
        decode_compute_sparse_s=f.compute_time_s(flops, 1, gpu.bf16_sparse_flops),
        memory_over_compute_one_gpu=read_s / compute_s,
        sparse_balance=f.machine_balance(gpu.bf16_sparse_flops, gpu.bandwidth_bytes_per_s),
    )


def bandwidth_comparison(s: Scenario) -> dict:
    """The H100-against-H200 argument: the compared GPU (workloads.toml) and its bandwidth over the
    scenario's GPU's, the decode step at an equal batch and the prefill of the worked prompt on both.

    The argument rests on facts, declared as assumptions for the sentences that make it: the two
    have the same dense compute, the compared GPU has more bandwidth, the equal-batch step speeds up
    by exactly the bandwidth ratio (decode is memory-bound on both). Where a sentence only states a
    comparison (how time to first token moves, more or less bandwidth), the words are generated from it."""
    w = workloads()
    gpu, other = s.gpu_spec, get_gpu(w["compared_gpu"])
    ratio = other.bandwidth_bytes_per_s / gpu.bandwidth_bytes_per_s
    peaks = [(name, getattr(gpu, f"{name}_flops"), getattr(other, f"{name}_flops")) for name in ("bf16", "fp8")]
    peaks_shown = "dense peaks: " + "; ".join(f"{name.upper()} {gpu.name} {_peak(a)}, {other.name} {_peak(b)}"
                                              for name, a, b in peaks)
    same_compute = assume(
        all(a is not None and b is not None and close(a, b) for _, a, b in peaks), peaks_shown,
        "the argument isolates bandwidth only while the compute is equal: compare compute too, "
        "or compare GPUs that share it")
    more_bandwidth = assume(
        ratio > 1, f"bandwidth: {gpu.name} {fmt.bandwidth(gpu.bandwidth_bytes_per_s)}, "
                   f"{other.name} {fmt.bandwidth(other.bandwidth_bytes_per_s)}",
        f"the {other.name} no longer has more bandwidth, so it is not the faster decoder")
    batch = worked_batch()
    at_batch = [scenario(s.model_spec, g, gpus=s.gpus, batch=batch) for g in (gpu, other)]
    step, other_step = (x.decode_step_s for x in at_batch)
    peak, other_peak = (x.gpu_peak_flops for x in at_batch)  # the scenario's format: dense BF16 for the anchor
    prefill, other_prefill = (scenario(s.model_spec, g, gpus=s.gpus, seq_len=w["prompt_tokens"], batch=1).prefill_s
                              for g in (gpu, other))
    speedup = step / other_step
    step_shown = (f"decode step at batch {batch} on {s.gpus} GPUs: {gpu.name} {fmt.ms(step)}, {other.name} "
                  f"{fmt.ms(other_step)} ({fmt.times(speedup)}), bandwidth ratio {fmt.times(ratio)}")
    return dict(
        compared_gpu=other, compared_bandwidth_ratio=ratio, compared_extra_bandwidth=ratio - 1,
        compared_step_speedup=speedup, compared_prefill_ratio=prefill / other_prefill,
        same_compute=same_compute, more_bandwidth=more_bandwidth,
        # "if decode were compute-bound, it would be exactly as fast": the peak the scenario's matmuls use
        same_peak=assume(close(peak, other_peak), f"dense {s.weights_dtype.upper()} peak: {gpu.name} "
                         f"{fmt.flops_rate(peak)}, {other.name} {fmt.flops_rate(other_peak)}",
                         "the argument isolates bandwidth only while the compute is equal: compare compute too"),
        # "exactly the bandwidth ratio": the equal-batch step is memory-bound on both GPUs
        step_is_bandwidth_ratio=assume(
            close(speedup, ratio, 1e-3), step_shown,
            "the step no longer speeds up by the bandwidth ratio (one GPU is compute-bound at this batch): "
            "say which bound each GPU is at"),
        faster_decode=assume(
            speedup > 1 + 1e-3, step_shown, f"the {other.name} is no longer the faster decoder: compare the steps"),
        compute=compute_words(gpu, other, "the same compute", "the same dense BF16 compute",
                              "{ratio} the dense BF16 compute"),
        compute_as=compute_words(gpu, other, "the same compute as", "the same dense BF16 compute as",
                                 "{ratio} the dense BF16 compute of"),
        compute_short=compute_words(gpu, other, "same compute", "same dense BF16 compute",
                                    "{ratio} the dense BF16 compute"),
        compute_short_start=compute_words(gpu, other, "Same compute", "Same dense BF16 compute",
                                          "{ratio} the dense BF16 compute"),
        bandwidth_more=phrase(ratio, 1, "the same bandwidth", f"{fmt.pct(ratio - 1, 2)} more bandwidth",
                              f"{fmt.pct(1 - ratio, 2)} less bandwidth"),
        decode_faster=phrase(speedup, 1, "no faster at decode", "faster at decode", "slower at decode", 1e-3),
        # "prefill of the prompt is ... on both": one figure while they match, else both
        prefill_both=phrase(prefill / other_prefill, 1, f"{fmt.ms(prefill)} on both",
                            f"{fmt.ms(prefill)} against {fmt.ms(other_prefill)}",
                            f"{fmt.ms(prefill)} against {fmt.ms(other_prefill)}", 1e-3),
        # "time to first token ...": prefill on the compared GPU against the scenario's
        ttft_moves=phrase(prefill / other_prefill, 1, "does not move",
                          f"is {fmt.times(prefill / other_prefill)} shorter",
                          f"is {fmt.times(other_prefill / prefill)} longer", 1e-3),
    )


def compute_words(gpu: Gpu, other: Gpu, same: str, same_bf16: str, ratio: str) -> str:
    """How `other`'s compute compares with `gpu`'s, in words: `same` when both dense peaks (BF16 and
    FP8) match, `same_bf16` when only BF16 does, else `ratio` with {ratio} the BF16 ratio ("1.5×")."""
    if close(other.bf16_flops, gpu.bf16_flops):
        both = gpu.fp8_flops is not None and other.fp8_flops is not None and close(gpu.fp8_flops, other.fp8_flops)
        return same if both else same_bf16
    return ratio.format(ratio=fmt.times(other.bf16_flops / gpu.bf16_flops))


def source_fraction(source: float, printed: str, ours: float, low: float = 0.4, high: float = 0.6) -> Assumption:
    """"The source gave about half of that": the source's figure over ours, between `low` and `high`."""
    return assume(low <= source / ours <= high, f"the source's {printed} against {fmt.ms(ours)} today "
                  f"({fmt.pct(source / ours)})", "the source's figure is no longer about half of ours: say how far")


def memory_bound(*cases: Scenario) -> Assumption:
    """"Decode is memory-bound here": each scenario's decode step is below its machine balance."""
    shown = "; ".join(f"{s.gpus} × {s.gpu_spec.name} at batch {s.batch}: intensity {fmt.num(s.decode_intensity)} "
                      f"against a balance of {fmt.num(s.machine_balance)} FLOP/B" for s in cases)
    return assume(all(s.decode_intensity < s.machine_balance for s in cases), shown,
                  "a step is compute-bound now: say so, and size it by its FLOPs")


def gpu_share_words(share: float, gpu: str = "a GPU") -> str:
    """How much of one GPU's memory a share is, in words: "about half a GPU" from 40 to 60 %;
    `gpu` names it ("one H100 SXM": "about half of one H100 SXM")."""
    of = "" if gpu == "a GPU" else "of "
    if share > 1:
        return f"more than {gpu}"
    if share > 0.6:
        return f"most of {gpu}"
    return f"about half {of}{gpu}" if share >= 0.4 else f"a fraction of {gpu}"


def orders_of_magnitude(ratio: float) -> str:
    """A ratio to the nearest half order of magnitude, in words: 295 -> "about two and a half"."""
    halves = round(math.log10(ratio) * 2)
    whole, half = divmod(halves, 2)
    names = ("zero", "one", "two", "three", "four", "five", "six")
    words = names[whole] if whole < len(names) else f"{whole}"
    return f"about {words}{' and a half' if half else ''} orders of magnitude"


def _peak(flops: float | None) -> str:
    return "none" if flops is None else fmt.flops_rate(flops)


def operations_examples(s: Scenario) -> dict:
    """Chapter 6's worked examples (workloads.toml), also answered on the questions page: the
    utilisation counter against compute actually used, the weight load over network storage,
    the warm pool sized from the forecast error, and two tenants with the same request count."""
    w = workloads()
    return dict(
        util_reading=w["util_reading"],
        compute_used_full_batch=s.decode_intensity / s.machine_balance,
        kv_target=w["kv_occupancy_target"],
        network_storage_bytes_per_s=w["network_storage_bytes_per_s"],
        weight_load_network_s=f.transfer_time_s(s.weight_bytes, w["network_storage_bytes_per_s"]),
        forecast_replicas=w["forecast_replicas"], forecast_error=w["forecast_error"],
        warm_replicas=math.ceil(w["forecast_replicas"] * w["forecast_error"]),  # from the error, not the load
        tenant_requests=w["tenant_requests"], tenant_small_tokens=w["tenant_small_tokens"],
        tenant_big_total=w["tenant_requests"] * w["big_prompt"],
        tenant_small_total=w["tenant_requests"] * w["tenant_small_tokens"],
        tenant_ratio=w["big_prompt"] / w["tenant_small_tokens"],
    )


GIB = 2**30  # bytes in a gibibyte


def max_batch_mixed_units(s: Scenario) -> int:
    """The batch the source got by dividing the decimal KV budget by the per-sequence size computed in
    GiB and written as GB: more sequences than fit."""
    return int(s.kv_budget_bytes // (s.kv_bytes_per_seq / GIB * 1e9))


def unit_traps(s: Scenario) -> dict:
    """The two traps of docs/conventions.md, which the home page also quotes: how much larger a
    GiB is than a GB, and how many times the datasheet's "with sparsity" peak exceeds the dense one."""
    gpu = s.gpu_spec
    return dict(gib_over_gb=GIB / 1e9 - 1, sparse_over_dense=gpu.bf16_sparse_flops / gpu.bf16_flops)


def speculation(s: Scenario, draft_tokens: int) -> dict:
    """Speculative decoding on scenario s (every sequence at s.seq_len): the break-even batch with the
    KV read shared by the k + 1 verified tokens, the old weights-only ceiling it replaces, and what
    verification costs at s's batch (its step over the plain step, the compute still idle)."""
    flops_per_token = s.decode_flops / s.batch  # weights and attention, one token of one sequence
    weights_read = s.decode_bytes - s.batch * s.kv_bytes_per_seq_group
    verify_flops = (draft_tokens + 1) * s.decode_flops
    verify_step = f.step_floor_s(s.decode_bytes, verify_flops, s.gpus, s.gpu_bandwidth_bytes_per_s, s.gpu_peak_flops)
    return dict(
        spec_break_even=f.speculative_break_even_batch(weights_read, s.kv_bytes_per_seq_group, flops_per_token,
                                                       draft_tokens, s.machine_balance),
        spec_ceiling_weights_only=f.speculative_batch_ceiling(s.machine_balance, draft_tokens),
        spec_batch=s.batch,
        spec_idle=f.compute_idle_fraction(s.decode_intensity, s.machine_balance),
        spec_verify_idle=f.compute_idle_fraction(f.intensity(verify_flops, s.decode_bytes), s.machine_balance),
        spec_verify_step_ratio=verify_step / s.decode_step_s,
    )


def kv_transfer_s(s: Scenario, kv_bytes: float, link_bytes_per_s: float) -> float:
    """Sending one sequence's KV cache (kv_bytes, one copy) out of s's group: each GPU sends the share
    it holds (copies / g of it) over its own link, all at once."""
    return f.transfer_time_s(s.kv_copies * kv_bytes / s.gpus, link_bytes_per_s)


def preemption_costs(s: Scenario) -> dict:
    """Preempting one of the scenario's sequences: swapping its KV to host memory and back over one
    PCIe link, against dropping it and recomputing it by a prefill (chapter 6.4, the overview's D3)."""
    swap_round_trip_s = 2 * f.transfer_time_s(s.kv_bytes_per_seq, workloads()["pcie_bytes_per_s"])  # out and back
    return {"swap_round_trip_s": swap_round_trip_s, "swap_speedup": s.prefill_s / swap_round_trip_s}
