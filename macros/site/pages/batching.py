"""Chapter 4, batching (docs/guide/batching.md): the static-batching example, PagedAttention's waste
against a contiguous reservation, and chunked prefill on the anchor. Values in SI units (tokens,
steps, bytes, seconds); the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.scenario import anchor, kv_bytes_per_seq, scenario
from ...engine.specs import catalog
from ...engine.workloads import workloads

SAMPLES = 4  # parallel sampling: completions of one prompt sharing its KV blocks


def _static_rows(lengths: tuple[int, ...]) -> list[SimpleNamespace]:
    """The static batch step by step: when each sequence finishes and how long its slot then idles."""
    longest = max(lengths)
    return [SimpleNamespace(step=n, sequence=lengths.index(n), last=n == longest, idle=longest - n)
            for n in sorted(lengths)]


def _chunk_step(s, step_bytes: float, decodes: int, extra_tokens: int) -> SimpleNamespace:
    """One step of `decodes` decoding sequences plus `extra_tokens` of prefill on the anchor group."""
    tokens = decodes + extra_tokens
    floor = f.step_time_s(step_bytes, f.decode_step_flops(s.active_params, tokens), s.gpus,
                          s.gpu_bandwidth_bytes_per_s, s.gpu_peak_flops)
    return SimpleNamespace(tokens=tokens, floor_s=floor)


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
    prompt_kv = kv_bytes_per_seq(m, prompt_tokens)
    # 4.4: prefill on one GPU and on the anchor group, whole and as one chunk (one GPU cannot hold the
    # weights, so its scenario has no decode figures: the prefill floor is computed term by term)
    gpu = s.gpu_spec
    p1 = scenario(w["model"], w["gpu"], gpus=1, seq_len=prompt_tokens)
    step_bytes = f.decode_step_bytes(s.weight_bytes, decodes, s.kv_bytes_per_seq)
    return SimpleNamespace(
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
        max_context_batch=f.max_batch(s.kv_budget_bytes, kv_bytes_per_seq(m, m.max_context)),
        samples=SAMPLES,
        prompt_tokens=prompt_tokens,
        prompt_kv=prompt_kv,
        samples_kv=SAMPLES * prompt_kv,  # what copying the prompt's KV per sample would cost
        # 4.4 chunked prefill
        p1=p1,
        prefill_one_gpu_s=f.prefill_time_s(p1.active_params, prompt_tokens, p1.weight_bytes, 1, gpu.bf16_flops,
                                           gpu.bandwidth_bytes_per_s),
        c1=scenario(w["model"], w["gpu"], seq_len=chunk_tokens, gpus=1),
        p4=anchor(seq_len=prompt_tokens),
        c4=anchor(seq_len=chunk_tokens),
        half_prompt=prompt_tokens // 2,  # what the source's figure corresponds to
        chunk_tokens=chunk_tokens,
        chunks=f.blocks_needed(prompt_tokens, chunk_tokens),
        decodes_per_step=decodes,
        step_bytes=step_bytes,
        step_decode=_chunk_step(s, step_bytes, decodes, 0),
        step_chunk=_chunk_step(s, step_bytes, decodes, chunk_tokens),
        step_prefill=_chunk_step(s, step_bytes, decodes, prompt_tokens),
    )
