"""Chapter 5, the rest of the toolkit (docs/guide/toolkit.md): prefix caching over a conversation,
speculative decoding's batch ceiling, quantization, the parallelism axes and the KV transfer of
disaggregated serving, all on the anchor. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.model.scenario import (
    ALLREDUCE_LATENCY_CLAIM,
    Scenario,
    anchor,
    get_gpu,
    get_model,
    model_kv_bytes_per_seq,
    scenario,
)
from ...engine.serving.calibration import params_for
from ...engine.serving.replica import build_replica
from ...engine.specs import catalog
from ...engine.workloads import workloads
from . import _tp_scaling as tp
from ._shared import kv_transfer_s, speculation

WEIGHT_FORMATS = ("bf16", "fp8", "int4")  # the quantization table's rows
MOE_BATCHES = (1, 8, 64)
LONG_CONTEXT = 32768  # speculation at long context, where the KV read dominates the step
RACK_GPU = "gb200"  # the GB200 NVL72: an NVLink domain of a whole rack

# The problems at the end of the chapter: other models and GPUs than the anchor (page-only inputs).
SPEC_GPU = "h200"  # P1: speculative decoding's break-even on the anchor model, on H200s
CHAT_MODEL, CHAT_GPU = "llama-3.1-8b", "l4"  # P2: a 20-turn conversation with an 8B on one L4
MOE_GPU, MOE_GPUS, MOE_WEIGHTS = "h200", 8, "fp8"  # P3: DeepSeek-V3, TP against DP attention + EP


def _quantization_rows(weights: tuple[str, ...]) -> list[SimpleNamespace]:
    """The anchor in each weight format, at batch 1 and at its max batch."""
    precisions = catalog().precisions
    return [SimpleNamespace(name=precisions[w].name, one=anchor(weights=w, batch=1), full=anchor(weights=w))
            for w in weights]


def _speculation_on(s) -> SimpleNamespace:
    """Speculative decoding on scenario s, with the terms of its break-even batch for the derivation."""
    return SimpleNamespace(s=s, flops_per_token=s.decode_flops / s.batch,
                           weights_read=s.decode_bytes - s.batch * s.kv_bytes_per_seq_group,
                           **speculation(s, workloads()["draft_tokens"]))


def problems(s) -> SimpleNamespace:
    """The chapter's problems, each on other models or GPUs than the anchor scenario s."""
    w = workloads()
    # P2: the conversation of 5.1 with an 8B on one L4
    chat = scenario(CHAT_MODEL, CHAT_GPU, gpus=1)
    turns, per_turn = w["turns"], w["tokens_per_turn"]
    uncached = f.multi_turn_prefill_tokens(turns, per_turn, False)
    cached = f.multi_turn_prefill_tokens(turns, per_turn, True)
    gpu = chat.gpu_spec

    def chat_prefill_s(tokens: float) -> float:
        return f.prefill_time_s(chat.active_params, tokens, chat.weight_bytes, 1, gpu.bf16_flops,
                                gpu.bandwidth_bytes_per_s)

    prefix_kv = model_kv_bytes_per_seq(chat.model_spec, turns * per_turn)
    # P3: DeepSeek-V3 on 8 x H200 (or the fewest that hold it under both layouts, when 8 no longer do), its
    # KV held whole on every rank (TP) or once (DP attention + EP)
    moe_gpus = max(MOE_GPUS, *(scenario(w["moe_model"], MOE_GPU, weights=MOE_WEIGHTS, layout=layout).gpus
                               for layout in ("tp", "dp-attention")))
    moe = {layout: scenario(w["moe_model"], MOE_GPU, gpus=moe_gpus, weights=MOE_WEIGHTS, layout=layout)
           for layout in ("tp", "dp-attention")}
    # P4: the worked prompt's KV cache for the MLA model against the anchor's
    mla_kv = model_kv_bytes_per_seq(moe["tp"].model_spec, w["prompt_tokens"])
    nic = catalog().claims["nic-bandwidth"].low
    return SimpleNamespace(
        spec=_speculation_on(scenario(w["model"], SPEC_GPU, gpus=w["gpus"])), spec_anchor=_speculation_on(s),
        verified_tokens=w["draft_tokens"] + 1,  # the k drafts and the target's own next token
        chat=chat, chat_uncached=uncached, chat_cached=cached,
        chat_uncached_s=chat_prefill_s(uncached), chat_cached_s=chat_prefill_s(cached),
        chat_prefix_tokens=turns * per_turn, chat_prefix_kv=prefix_kv,
        chat_prefix_share=prefix_kv / chat.kv_budget_bytes,
        moe_tp=moe["tp"], moe_dp=moe["dp-attention"],
        moe_batch_gain=moe["dp-attention"].max_batch / moe["tp"].max_batch,
        moe_attention_held=moe["dp-attention"].weight_bytes_held - moe["dp-attention"].weight_bytes,
        mla_kv=mla_kv, mla_kv_saving=model_kv_bytes_per_seq(s.model_spec, w["prompt_tokens"]) / mla_kv,
        mla_kv_network_s=f.transfer_time_s(mla_kv, nic),  # DP attention: one rank holds it, one link sends it
    )


def _block_format(key: str) -> SimpleNamespace:
    """A block-scaled format from precisions.toml: its block of elements, its scale, its bits per value."""
    p = catalog().precisions[key]
    return SimpleNamespace(name=p.name, block_size=p.block_size, scale_bits=p.scale_bits, bits_per_value=p.bytes * 8)


def _doubling_again(narrow: tp.Split, wide: tp.Split | None) -> SimpleNamespace | None:
    """Past the widest useful split: what the divided terms save, what the all-reduces add, and whether
    the all-reduces take back at least half of it (the sentence says which)."""
    if wide is None:
        return None
    a, b = narrow.classes_s, wide.classes_s
    saved = sum(a[k] - b[k] for k in ("dense", "experts", "attention"))
    grown = b["communication"] - a["communication"]
    return SimpleNamespace(saved_s=saved, comm_grown_s=grown, comm_takes_most=grown >= saved / 2)


def tp_derivation(s: Scenario) -> SimpleNamespace:
    """5.4: the anchor's all-reduces spelled out (formulas.tp_allreduce_s's parts), and the step model's TP
    scaling on a measured setup (pages/_tp_scaling.py) with the widest split worth its GPUs."""
    m, link = s.model_spec, s.gpu_spec.interconnect_bytes_per_s
    latency = catalog().claims[ALLREDUCE_LATENCY_CLAIM].low
    sent = f.ring_allreduce_bytes(s.gpus, s.batch, m.hidden_size)
    splits = list(tp.tp_scaling())
    widest = tp.widest_useful(splits)
    wider = next((x for x in splits if x.gpus == 2 * widest.gpus), None)
    narrowest = splits[0]
    params = params_for(tp.GPU, tp.ENGINE, build_replica(tp.MODEL, tp.GPU, 1).attention)
    return SimpleNamespace(
        ring_factor=f.ring_allreduce_bytes(s.gpus, 1, 1, 1),  # 2 (g - 1) / g
        sent_bytes=sent, link=link, latency_s=latency, wire_s=f.transfer_time_s(sent, link),
        one_s=f.transfer_time_s(sent, link) + latency,
        splits=splits, widest=widest, wider=wider, narrowest=narrowest, min_gain=tp.MIN_GAIN,
        names=tp.names(), concurrency=tp.CONCURRENCY, isl=tp.ISL, osl=tp.OSL, source=tp.source(),
        hop_latency_s=params.link_latency_s,
        # from one GPU to the widest useful split: the step's gain, and the fixed cost's share of the widest step
        widest_gain=1 - widest.estimate.step_s / narrowest.estimate.step_s,
        widest_fixed_share=widest.classes_s["fixed"] / widest.estimate.step_s,
        wider_gain=None if wider is None else 1 - wider.estimate.step_s / widest.estimate.step_s,
        # "what the weights and experts give back, the all-reduces take": widening past the widest useful split,
        # the all-reduces grow by at least half of what the divided terms save
        doubling_again=_doubling_again(widest, wider),
        measured_gain=(None if widest.measured is None or narrowest.measured is None
                       else 1 - widest.measured.median_tpot_s / narrowest.measured.median_tpot_s),
    )


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m, gpu = s.model_spec, s.gpu_spec
    turns, per_turn = w["turns"], w["tokens_per_turn"]
    uncached = f.multi_turn_prefill_tokens(turns, per_turn, False)
    cached = f.multi_turn_prefill_tokens(turns, per_turn, True)

    def prefill_s(tokens: float) -> float:
        """Prefilling `tokens` prompt tokens on the anchor group."""
        return f.prefill_time_s(s.active_params, tokens, s.weight_bytes, s.gpus, gpu.bf16_flops,
                                gpu.bandwidth_bytes_per_s)

    last_prefix_kv = model_kv_bytes_per_seq(m, turns * per_turn)
    decode_gpu = get_gpu(w["decode_gpu"])
    nvlink = catalog().claims["nvlink-domain"]
    rack_gpu = get_gpu(RACK_GPU)
    stage = m.layers // s.gpus  # layers per pipeline stage
    prompt_tokens, long_prompt_tokens = w["prompt_tokens"], w["big_prompt"]
    prompt_kv, long_kv = model_kv_bytes_per_seq(m, prompt_tokens), model_kv_bytes_per_seq(m, long_prompt_tokens)
    nic = catalog().claims["nic-bandwidth"].low
    return SimpleNamespace(
        s=s, model=m, gpu=gpu,
        # 5.1 prefix caching over a conversation
        turns=turns, tokens_per_turn=per_turn,
        uncached=uncached, cached=cached,
        uncached_prefill_s=prefill_s(uncached), cached_prefill_s=prefill_s(cached),
        cache_gain=uncached / cached,
        last_prefix_tokens=turns * per_turn,
        last_prefix_kv=last_prefix_kv,
        last_prefix_in_sequences=last_prefix_kv / s.kv_bytes_per_seq,
        pcie_bytes_per_s=w["pcie_bytes_per_s"],
        prefix_reload_s=kv_transfer_s(s, last_prefix_kv, w["pcie_bytes_per_s"]),  # from host memory
        prefix_prefill_s=prefill_s(turns * per_turn),
        # 5.2 speculative decoding
        idle_at_batch_one=f.compute_idle_fraction(1, s.machine_balance),
        draft_tokens=w["draft_tokens"],
        **speculation(s, w["draft_tokens"]),
        long_context_tokens=LONG_CONTEXT,
        spec_long=SimpleNamespace(s=anchor(seq_len=LONG_CONTEXT), **speculation(anchor(seq_len=LONG_CONTEXT),
                                                                               w["draft_tokens"])),
        # 5.3 quantization
        quantization_rows=_quantization_rows(WEIGHT_FORMATS),
        s_kv8=anchor(kv="fp8"),
        fp4_formats=SimpleNamespace(**{key: _block_format(key) for key in ("mxfp4", "nvfp4")}),
        # 5.4 parallelism
        nvlink_node=int(nvlink.low), nvlink_rack=int(nvlink.high),
        rack_gpu=rack_gpu,
        rack_memory=nvlink.high * rack_gpu.memory_bytes,
        allreduces_per_step=f.tp_allreduces_per_step(m.layers),
        # a rack-wide TP group would hold each of the anchor's KV heads this many times over
        rack_kv_copies=f.kv_copies("tp", int(nvlink.high), m.kv_heads, m.is_mla),
        stage_layers=stage, second_stage_first=stage + 1, second_stage_last=2 * stage,
        moe=get_model(w["moe_model"]), moe_batches=MOE_BATCHES,
        # 5.5 disaggregation: the decode pool's GPU on the anchor group size, and the KV transfer
        decode_gpu=decode_gpu,
        s_decode=scenario(w["model"], w["decode_gpu"], gpus=w["gpus"]),
        decode_bandwidth_gain=decode_gpu.bandwidth_bytes_per_s / gpu.bandwidth_bytes_per_s - 1,
        prompt_tokens=prompt_tokens, long_prompt_tokens=long_prompt_tokens,
        prompt_kv=prompt_kv, long_kv=long_kv,
        # each GPU of the group sends the share of the cache it holds over its own link
        prompt_kv_network_s=kv_transfer_s(s, prompt_kv, nic),
        long_kv_network_s=kv_transfer_s(s, long_kv, nic),
        prompt_kv_nvlink_s=kv_transfer_s(s, prompt_kv, gpu.interconnect_bytes_per_s),
        prompt_kv_per_gpu=s.kv_copies * prompt_kv / s.gpus,
        p4=anchor(seq_len=prompt_tokens),
        tp=tp_derivation(s),
        problems=problems(s),
    )
