"""Chapter 5, the rest of the toolkit (docs/guide/toolkit.md): prefix caching over a conversation,
speculative decoding's batch ceiling, quantization, the parallelism axes and the KV transfer of
disaggregated serving, all on the anchor. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.scenario import anchor, get_gpu, get_model, kv_bytes_per_seq, scenario
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import kv_transfer_s, speculation

WEIGHT_FORMATS = ("bf16", "fp8", "int4")  # the quantization table's rows
MOE_BATCHES = (1, 8, 64)
LONG_CONTEXT = 32768  # speculation at long context, where the KV read dominates the step
RACK_GPU = "gb200"  # the GB200 NVL72: an NVLink domain of a whole rack


def _quantization_rows(weights: tuple[str, ...]) -> list[SimpleNamespace]:
    """The anchor in each weight format, at batch 1 and at its max batch."""
    precisions = catalog().precisions
    return [SimpleNamespace(name=precisions[w].name, one=anchor(weights=w, batch=1), full=anchor(weights=w))
            for w in weights]


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

    last_prefix_kv = kv_bytes_per_seq(m, turns * per_turn)
    decode_gpu = get_gpu(w["decode_gpu"])
    nvlink = catalog().claims["nvlink-domain"]
    rack_gpu = get_gpu(RACK_GPU)
    stage = m.layers // s.gpus  # layers per pipeline stage
    prompt_tokens, long_prompt_tokens = w["prompt_tokens"], w["big_prompt"]
    prompt_kv, long_kv = kv_bytes_per_seq(m, prompt_tokens), kv_bytes_per_seq(m, long_prompt_tokens)
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
    )
