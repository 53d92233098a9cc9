"""Chapter 4, batching (docs/guide/batching.md): the static-batching example, PagedAttention's waste
against a contiguous reservation and the batch of real lengths it allows, chunked prefill on the anchor,
the latency-throughput curve's marked points, and the end-of-chapter problems on other models and GPUs.
Values in SI units (tokens, steps, bytes, seconds); the page formats them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet.workload_file import design
from ...engine.lookup import get_gpu, get_model
from ...engine.model.scenario import Scenario, anchor, model_kv_bytes_per_seq, scenario
from ...engine.serving.profiles import engines
from ...engine.serving.sweep import SWEEP_FRACTIONS, SWEEP_REQUESTS
from ...engine.specs import Gpu, catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import Assumption, assume, close
from . import errata
from ._budget import budgets
from ._shared import group_words, memory_bound, source_fraction, worked_batch
from ._sweep import AnchorSweep, load_figures, replica_tokens_per_s

SAMPLES = 4  # parallel sampling: completions of one prompt sharing its KV blocks
TRAFFIC = "consumer-chat"  # the design whose mean prompt, mean reply and TPOT target the chapter borrows
CURVE_GPUS = ("h100", "h200")  # the latency-throughput curve: the anchor group, and the same group of H200s
SMALL = ("llama-3.1-8b", "l4")  # the problems' small case: an 8B on the fewest L4s that hold it (one, today)
CHUNK_GPU = "h200"  # the chunk-size problem's GPU, in the anchor's group size


def _static_rows(lengths: tuple[int, ...]) -> list[SimpleNamespace]:
    """The static batch step by step: when each sequence finishes and how long its slot then idles."""
    longest = max(lengths)
    return [SimpleNamespace(step=n, sequence=lengths.index(n), last=n == longest, idle=longest - n)
            for n in sorted(lengths)]


def _chunk_step(s, step_bytes: float, decodes: int, extra_tokens: int) -> SimpleNamespace:
    """One step of `decodes` decoding sequences plus `extra_tokens` of prefill on the anchor group."""
    tokens = decodes + extra_tokens
    floor = f.step_floor_s(step_bytes, f.decode_step_flops(s.active_params, tokens), s.gpus,
                          s.gpu_bandwidth_bytes_per_s, s.gpu_peak_flops)
    return SimpleNamespace(tokens=tokens, floor_s=floor)


def mean_held_tokens(prompt: float, output: float, block: int) -> float:
    """Tokens a sequence in flight holds on average, paged: its prompt, half its reply (it is on average
    halfway through generating), and half a block of unfilled tail."""
    return prompt + output / 2 + block / 2


def largest_batch_within(model: str, gpu: str, gpus: int, tpot_s: float, **kwargs: Any) -> Scenario:
    """The largest batch whose planned step (floor / efficiency) meets `tpot_s`, by bisection over the
    engine's scenarios (the step grows with the batch); kwargs go to scenario() (a context, say)."""
    def at(b: int) -> Scenario:
        return scenario(model, gpu, gpus=gpus, batch=b, **kwargs)

    low, high = 1, scenario(model, gpu, gpus=gpus, **kwargs).max_batch
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if at(mid).planned_step_s <= tpot_s else (low, mid - 1)
    return at(low)


def largest_chunk(s, tpot_s: float) -> int:
    """The largest prefill chunk that rides with s.batch decodes and keeps the planned step within
    `tpot_s`: compute-bound, 2 N_a (b + c) / (g P) <= tpot * efficiency (attention ignored, as in 4.4)."""
    return int(f.largest_prefill_chunk(tpot_s, s.efficiency, s.gpus, s.gpu_peak_flops, s.active_params, s.batch))


def chunk_on_other_gpu(chunk: int, other_chunk: int, gpu: Gpu, other: Gpu, other_reads_s: float,
                       floor_s: float) -> str:
    """"On H100s ...": the chunk-size answer on `other` against `gpu`'s, in words. The largest chunk is
    set by compute (largest_chunk), so it is the same answer exactly when the dense BF16 peaks match;
    unless the decodes alone read for longer than the step may take there, and no chunk rides along."""
    if other_reads_s >= floor_s:
        return (f"no chunk rides along: the decodes alone read for {fmt.ms(other_reads_s)}, over the "
                f"{fmt.ms(floor_s)} the step may take, so the step is memory-bound before any prefill joins it")
    if close(gpu.bf16_flops, other.bf16_flops):
        return (f"the answer is the same, {fmt.count(other_chunk)} tokens: the two GPUs have the same compute, "
                "and a compute-bound step does not care about bandwidth")
    ratio = fmt.times(other.bf16_flops / gpu.bf16_flops)
    return (f"the answer is {fmt.count(other_chunk)} tokens against {fmt.count(chunk)}: the {other.name} has "
            f"{ratio} the dense BF16 compute of the {gpu.name}, and a compute-bound step is set by compute, "
            "not by bandwidth")


def decodes_leave_room(cases: list[tuple[Scenario, float]], floor_s: float) -> Assumption:
    """"The decodes alone ... under the limit": on each GPU the batch's reads take less than the step
    may, so a chunk's FLOPs are what fill it (the step turns compute-bound, as largest_chunk assumes)."""
    shown = ", ".join(f"{s.gpu_spec.name} {fmt.ms(t)}" for s, t in cases)
    return assume(all(t < floor_s for _, t in cases),
                  f"the decodes' reads: {shown}, against a step of at most {fmt.ms(floor_s)}",
                  "the decodes alone no longer fit the step: no chunk rides along; say so")


def _curve(w, gpu: str) -> list[SimpleNamespace]:
    """The curve's marked points on one GPU type: batch 1, the example batch, the max batch."""
    most = scenario(w["model"], gpu, gpus=w["gpus"])
    return [scenario(w["model"], gpu, gpus=w["gpus"], batch=b) for b in (1, worked_batch(), most.max_batch)]


def load_curve(tpot_s: float, swept: AnchorSweep | None = None) -> SimpleNamespace:
    """4.5's simulated curve (pages/_sweep.py, the Load explorer's sweep) against the floor's answer for the
    same replica and lengths: the largest batch whose planned step meets the same TPOT target, every
    sequence at the sweep's prompt plus reply (the planner's worst case)."""
    x = load_figures(tpot_s, swept)
    start = x.sweep.start
    context = start["input_tokens"] + start["output_tokens"]
    floor = largest_batch_within(start["model"], start["gpu"], start["gpus"], tpot_s, seq_len=context)
    within = x.within_tpot
    return SimpleNamespace(
        x=x, context=context, floor=floor, model_name=get_model(start["model"]).name,
        gpu_name=get_gpu(start["gpu"]).name, engine_name=engines()[start["engine"]]["name"],
        fractions=len(SWEEP_FRACTIONS), lightest_fraction=SWEEP_FRACTIONS[0], heaviest_fraction=SWEEP_FRACTIONS[-1],
        sweep_requests=SWEEP_REQUESTS, light_tokens_per_s=replica_tokens_per_s(x.light, x.gpus),
        within_tokens_per_s=None if within is None else replica_tokens_per_s(within, x.gpus),
        # the p99 TTFT over the p50 at the knee: the tail the median hides
        knee_tail_ratio=None if x.knee is None else x.knee.ttft_p99_s / x.knee.ttft_p50_s,
        # "the tail moves first": from the lightest rate to the knee, p99 TTFT grows by more than p50 does
        tail_first=assume(x.knee is not None and x.knee.ttft_p99_s / x.light.ttft_p99_s
                          > x.knee.ttft_p50_s / x.light.ttft_p50_s,
                          "TTFT from the lightest rate to the knee: " + ("no knee" if x.knee is None else
                          f"p50 {fmt.ms(x.light.ttft_p50_s)} to {fmt.ms(x.knee.ttft_p50_s)}, "
                          f"p99 {fmt.ms(x.light.ttft_p99_s)} to {fmt.ms(x.knee.ttft_p99_s)}"),
                          "the median now grows as fast as the tail: rewrite 4.5's knee sentence"),
        below_floor=assume(within is not None and within.mean_batch < floor.batch,
                           f"simulated mean batch within the TPOT target: "
                           f"{'none' if within is None else fmt.num(within.mean_batch)}; the floor's: {floor.batch}",
                           "the simulated batch within the target no longer falls short of the floor's: "
                           "rewrite 4.5's comparison"))


def problems(w, traffic, block: int) -> SimpleNamespace:
    """The end-of-chapter problems: each case's scenarios and figures."""
    lengths = w["output_lengths"]
    wait_steps = max(lengths) - w["arrival_step"]
    small_static = scenario(*SMALL, batch=len(lengths))  # the group chosen: the fewest GPUs that hold the batch
    small = scenario(*SMALL, gpus=small_static.gpus)
    m = small.model_spec
    held = mean_held_tokens(traffic.prompt_tokens, traffic.output_tokens, block)
    chunk_s = scenario(w["model"], CHUNK_GPU, gpus=w["gpus"], batch=worked_batch())
    chunk = largest_chunk(chunk_s, traffic.tpot_s)
    h100_s = scenario(w["model"], CURVE_GPUS[0], gpus=w["gpus"], batch=worked_batch())
    chunk_h100 = largest_chunk(h100_s, traffic.tpot_s)
    memory_s = [(x, f.memory_time_s(x.decode_bytes, x.gpus, x.gpu_bandwidth_bytes_per_s)) for x in (chunk_s, h100_s)]
    slo = {gpu: largest_batch_within(w["model"], gpu, w["gpus"], traffic.tpot_s) for gpu in CURVE_GPUS}
    return SimpleNamespace(
        small=small, small_static=small_static, wait_steps=wait_steps,
        small_group=group_words(small),
        small_wait_s=wait_steps * small_static.decode_step_s,
        small_max_context_kv=model_kv_bytes_per_seq(m, m.max_context),
        small_held_tokens=held,
        small_paged_batch=int(f.max_batch(small.kv_budget_bytes, held * small.kv_bytes_per_token)),
        slo_h100=slo["h100"], slo_h200=slo["h200"],
        slo_gain=slo["h200"].batch / slo["h100"].batch,
        slo_memory_bound=memory_bound(slo["h100"], slo["h200"]),  # "Decode is memory-bound here"
        tpot_floor_s=traffic.tpot_s * chunk_s.efficiency,
        chunk_s=chunk_s, chunk=chunk, chunk_step_tokens=chunk_s.batch + chunk,
        chunk_step=_chunk_step(chunk_s, chunk_s.decode_bytes, chunk_s.batch, chunk),
        chunk_step_over=_chunk_step(chunk_s, chunk_s.decode_bytes, chunk_s.batch, chunk + 1),
        chunk_h100=chunk_h100,
        chunk_h100_words=chunk_on_other_gpu(chunk, chunk_h100, chunk_s.gpu_spec, h100_s.gpu_spec, memory_s[1][1],
                                            traffic.tpot_s * chunk_s.efficiency),
        chunk_memory_s=memory_s[0][1],
        decodes_leave_room=decodes_leave_room(memory_s[:1], traffic.tpot_s * chunk_s.efficiency),
    )


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m = s.model_spec
    lengths = w["output_lengths"]
    longest, batch_size = max(lengths), len(lengths)
    util = f.static_batch_utilisation(lengths)
    s_small = anchor(batch=batch_size)  # the static batch on the anchor group
    wait_steps = longest - w["arrival_step"]
    # 4.3: a contiguous reservation of the default context against paging
    reserved, generated = s.seq_len, w["generated_tokens"]
    block = catalog().claims["paged-block-tokens"].low
    blocks = f.blocks_needed(generated, block)
    prompt_tokens, chunk_tokens, decodes = w["prompt_tokens"], w["chunk_tokens"], w["decode_batch"]
    prompt_kv = model_kv_bytes_per_seq(m, prompt_tokens)
    # 4.4: prefill on one GPU and on the anchor group, whole and as one chunk (one GPU cannot hold the
    # weights, so its scenario has no decode figures: the prefill floor is computed term by term)
    gpu = s.gpu_spec
    p1 = scenario(w["model"], w["gpu"], gpus=1, seq_len=prompt_tokens)
    step_bytes = f.decode_step_bytes(s.weight_bytes, decodes, s.kv_bytes_per_seq)
    traffic = design(TRAFFIC)[0]
    held = mean_held_tokens(traffic.prompt_tokens, traffic.output_tokens, block)
    h100, h200 = (_curve(w, gpu) for gpu in CURVE_GPUS)
    return SimpleNamespace(
        budget=budgets(),  # 4.4's trade-off: the token budget, on the consumer-chat design's answer
        s=s, model=m, gpu=gpu,
        # 4.1 static batching
        output_lengths=lengths, batch_size=batch_size, longest=longest,
        static_rows=_static_rows(lengths),
        mean_length=sum(lengths) / batch_size,
        util=util,
        slot_steps=batch_size * longest,
        idle_slot_steps=batch_size * longest - sum(lengths),
        arrival_step=w["arrival_step"],
        wait_steps=wait_steps,
        s_small=s_small,
        wait_s=wait_steps * s_small.decode_step_s,
        # 4.2 continuous batching: every slot busy instead of util of them
        continuous_gain=1 / util,
        # 4.3 PagedAttention
        reserved_tokens=reserved, generated_tokens=generated,
        waste_fraction=f.reserved_waste_fraction(reserved, generated),
        waste_bytes=(reserved - generated) * s.kv_bytes_per_token,
        block=block,
        blocks=blocks,
        tail_slots=blocks * block - generated,
        tail_bytes=(blocks * block - generated) * s.kv_bytes_per_token,
        max_context_batch=f.max_batch(s.kv_budget_bytes, model_kv_bytes_per_seq(m, m.max_context)),
        samples=SAMPLES,
        prompt_tokens=prompt_tokens,
        prompt_kv=prompt_kv,
        samples_kv=SAMPLES * prompt_kv,  # what copying the prompt's KV per sample would cost
        # the batch of real lengths: a mean sequence in flight, paged, in the same budget
        traffic=traffic,
        held_tokens=held,
        held_kv=held * s.kv_bytes_per_token,
        paged_batch=int(f.max_batch(s.kv_budget_bytes, held * s.kv_bytes_per_token)),
        paged_gain=int(f.max_batch(s.kv_budget_bytes, held * s.kv_bytes_per_token)) / s.max_batch,
        # 4.4 chunked prefill
        p1=p1,
        prefill_one_gpu_s=f.prefill_time_s(p1.active_params, prompt_tokens, p1.weight_bytes, 1, gpu.bf16_flops,
                                           gpu.bandwidth_bytes_per_s),
        # "The source gave about half of that": its 141 ms against one GPU's dense-rate prefill
        source_half=source_fraction(errata.SOURCE_FIGURES.prefill_s, "141 ms",
                                    f.prefill_time_s(p1.active_params, prompt_tokens, p1.weight_bytes, 1,
                                                     gpu.bf16_flops, gpu.bandwidth_bytes_per_s)),
        c1=scenario(w["model"], w["gpu"], seq_len=chunk_tokens, gpus=1),
        p4=anchor(seq_len=prompt_tokens),
        c4=anchor(seq_len=chunk_tokens),
        half_prompt=prompt_tokens // 2,  # what the source's figure corresponds to
        chunk_tokens=chunk_tokens,
        # "a chunk's tokens still give an intensity above the machine balance, so it stays compute-bound"
        chunk_compute_bound=assume(chunk_tokens * 2 * s.active_params / s.weight_bytes > s.machine_balance,
                                   f"a {chunk_tokens:,}-token chunk: intensity "
                                   f"{fmt.num(chunk_tokens * 2 * s.active_params / s.weight_bytes)} FLOP/B against "
                                   f"the balance {fmt.num(s.machine_balance)}",
                                   "a chunk is now memory-bound: size it by its bytes"),
        chunks=f.blocks_needed(prompt_tokens, chunk_tokens),
        decodes_per_step=decodes,
        step_bytes=step_bytes,
        step_decode=_chunk_step(s, step_bytes, decodes, 0),
        step_chunk=_chunk_step(s, step_bytes, decodes, chunk_tokens),
        step_prefill=_chunk_step(s, step_bytes, decodes, prompt_tokens),
        # 4.5 the latency-throughput curve's marked points (batch 1, the example batch, the max batch)
        curve_h100=h100, curve_h200=h200,
        curve_gain=h100[-1].decode_tokens_per_s / h100[0].decode_tokens_per_s,  # batch 1 to the max batch
        curve_user_share=h100[-1].decode_tokens_per_s_per_user / h100[0].decode_tokens_per_s_per_user,
        load=load_curve(traffic.tpot_s),  # 4.5: the simulator's latency against load
        problems=problems(w, traffic, block),
    )
