"""The problems at the end of chapter 10 (docs/guide/moe-at-scale.md), each on other models or GPUs than the
chapter's examples (DeepSeek-V3 on H200 and GB200; Llama-3.1-70B on H100): the page model's (moe_at_scale.py)
functions applied to them. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.fleet.disaggregated import disaggregate
from ...engine.fleet.workload_file import design
from ...engine.formulas import moe_comms as mc
from ...engine.lookup import dtype_bytes, get_gpu, get_model
from ...engine.model.scenario import model_kv_bytes_per_seq, prefill_floor_s, scenario
from ...engine.problems.moe_comms import moe_at_scale_data
from ...engine.specs import catalog
from ...engine.workloads import workloads
from . import moe_at_scale as base

# P1 and P5: Qwen3-235B-A22B on H200s; P2: GPT-OSS-120B across B200 nodes; P3: DeepSeek-V3 on MI300X
QWEN, GPT_OSS, MI300X, B200 = "qwen3-235b-a22b", "gpt-oss-120b", "mi300x", "b200"
GPT_OSS_EP = 32  # four B200 nodes
QWEN_WIDE = 32
RAG_MODEL, RAG_GPU, RAG_WEIGHTS = "qwen2.5-72b", "h200", "fp8"  # P6: the RAG traffic on another model and GPU
LONG_PROMPT = 32768  # P7: DeepSeek-V3's handoff under DP attention
SMALL_MODEL, SMALL_GPU, SMALL_PROMPT = "llama-3.1-8b", "l40s", 8000  # P8: a small model on a PCIe GPU, over TCP
REASONING_GPU, REASONING_WEIGHTS, REASONING_OUTPUT_MULTIPLE = "b200", "fp8", 4  # P9: outputs four times longer
SMALL_SPLIT_GPU, SMALL_SPLIT_RATE = "h200", 100.0  # P10: the chat traffic on the 8B, on H200s


def _alltoall_problem(model: str, gpu: str, gpus: int, weights: str | None = None) -> SimpleNamespace:
    c = base.ep_case(gpu, gpus, model, weights)
    return SimpleNamespace(case=c, moe_layers=c.model.layers - (c.model.dense_layers or 0))


def _hot_expert() -> SimpleNamespace:
    """P4: Qwen3's 128 experts at EP32, one at HOT_MULTIPLE times the mean, with and without redundant slots."""
    m, redundant = get_model(QWEN), moe_at_scale_data()["deepseek_service"]["redundant_experts"]
    experts, slots = m.experts / QWEN_WIDE, (m.experts + redundant) / QWEN_WIDE
    slot_bytes = f.moe_expert_params(m.params, m.active, m.experts, m.experts_per_token) * dtype_bytes("fp8")
    half = base.HOT_MULTIPLE / 2  # EPLB gives the hot expert half the copies it needs
    return SimpleNamespace(model=m, gpus=QWEN_WIDE, experts_per_gpu=experts, slots_per_gpu=slots, redundant=redundant,
                           hot=base.HOT_MULTIPLE, factor=mc.hottest_gpu_load(experts, base.HOT_MULTIPLE),
                           copies=half, factor_half=mc.hottest_gpu_load(experts, base.HOT_MULTIPLE, half),
                           slot_bytes=slot_bytes, redundant_bytes=redundant * slot_bytes)


def _mla_handoff() -> SimpleNamespace:
    """P7: a 32k prompt's KV leaving a DP-attention prefill rank (one GPU, one NIC) against a 70B's TP8 replica."""
    m, nic = get_model(workloads()["moe_model"]), catalog().claims["nic-bandwidth"].low
    chat = design("consumer-chat")[0]
    dense = get_model(chat.model)
    kv, dense_kv = model_kv_bytes_per_seq(m, LONG_PROMPT), model_kv_bytes_per_seq(dense, LONG_PROMPT)
    return SimpleNamespace(model=m, dense=dense, prompt=LONG_PROMPT, kv=kv, dense_kv=dense_kv,
                           one_nic_s=f.transfer_time_s(kv, nic),
                           dense_s=f.transfer_time_s(dense_kv, base.POOL_GPUS * nic),
                           smaller=dense_kv / kv)


def _small_tcp() -> SimpleNamespace:
    """P8: an 8B on one L40S, an 8,000-token prompt's KV over the node's TCP path, whole and layer by layer."""
    m, g = get_model(SMALL_MODEL), get_gpu(SMALL_GPU)
    kv, tcp = model_kv_bytes_per_seq(m, SMALL_PROMPT), moe_at_scale_data()["tcp_path"]["bytes_per_s"]
    prefill = prefill_floor_s(m, g, 1, "bf16", SMALL_PROMPT)
    whole = f.transfer_time_s(kv, tcp)
    keeps_up = whole <= prefill
    return SimpleNamespace(model=m, gpu=g, prompt=SMALL_PROMPT, kv=kv, prefill_s=prefill, whole_s=whole,
                           layerwise_s=mc.layerwise_exposed_s(whole, prefill, m.layers), tcp=tcp,
                           link_words=("keeps up with the prefill, so layer by layer only the last layer's share waits"
                                       if keeps_up else "falls behind the prefill, so even layer by layer this much "
                                       "is still exposed"))


def _reasoning_shift() -> SimpleNamespace:
    """P9: the chat traffic on B200s in FP8, then the same requests with outputs four times longer."""
    chat = design("consumer-chat")[0]
    hardware = (chat.model, REASONING_GPU, REASONING_WEIGHTS, chat.efficiency)
    cached = round(chat.prompt_tokens * chat.prefix_hit_rate)
    before = base.pool_napkin(chat.prompt_tokens, cached, chat.output_tokens, chat.ttft_s, chat.tpot_s, hardware)
    after = base.pool_napkin(chat.prompt_tokens, cached, REASONING_OUTPUT_MULTIPLE * chat.output_tokens, chat.ttft_s,
                             chat.tpot_s, hardware)
    total = before.prefill_per_rate + before.decode_per_rate
    rate = total / (after.prefill_per_rate + after.decode_per_rate)  # the rate the same fleet's GPUs now carry
    return SimpleNamespace(before=before, after=after, gpu=get_gpu(REASONING_GPU), multiple=REASONING_OUTPUT_MULTIPLE,
                           rate=rate, decode_load=rate * after.decode_per_rate / before.decode_per_rate,
                           prefill_load=rate * after.prefill_per_rate / before.prefill_per_rate)


def _small_split() -> SimpleNamespace:
    """P10: the chat traffic on Llama-3.1-8B on H200s, split or together (the fitted model)."""
    chat = design("consumer-chat")[0]
    cached = round(chat.prompt_tokens * chat.prefix_hit_rate)
    d = disaggregate(SMALL_MODEL, SMALL_SPLIT_GPU, "bf16", chat.kv, chat.engine, chat.prompt_tokens, cached,
                     chat.output_tokens, SMALL_SPLIT_RATE, chat.ttft_s, chat.tpot_s, chat.headroom)
    return SimpleNamespace(model=get_model(SMALL_MODEL), gpu=get_gpu(SMALL_SPLIT_GPU), rate=SMALL_SPLIT_RATE, d=d,
                           words=base.split_words(d.gpus, d.colocated_gpus), design=chat, cached=cached)


def problems() -> SimpleNamespace:
    rag = design("rag")[0]
    wide = [scenario(QWEN, base.HOPPER, gpus=g, layout="dp-attention", weights="fp8") for g in (8, QWEN_WIDE)]
    rag_pools = base.pool_napkin(rag.prompt_tokens, round(rag.prompt_tokens * rag.prefix_hit_rate),
                                 rag.output_tokens, rag.ttft_s, rag.tpot_s,
                                 (RAG_MODEL, RAG_GPU, RAG_WEIGHTS, rag.efficiency))
    mla_seq = model_kv_bytes_per_seq(get_model(workloads()["moe_model"]), base.DEFAULT_SEQ_LEN)
    return SimpleNamespace(
        qwen=_alltoall_problem(QWEN, base.HOPPER, 8, "fp8"), oss=_alltoall_problem(GPT_OSS, B200, GPT_OSS_EP),
        mi300x=_alltoall_problem(workloads()["moe_model"], MI300X, 8), hot=_hot_expert(),
        wide=SimpleNamespace(narrow=wide[0], wide=wide[1], per_gpu=[s.max_batch / s.gpus for s in wide],
                             weights=[s.weight_bytes_held / s.gpus for s in wide],
                             gain=(wide[1].max_batch / wide[1].gpus) / (wide[0].max_batch / wide[0].gpus),
                             kv_over_mla=wide[1].kv_bytes_per_seq / mla_seq),
        rag=SimpleNamespace(design=rag, pools=rag_pools, model=get_model(RAG_MODEL), gpu=get_gpu(RAG_GPU),
                            against=base.pool_napkin(rag.prompt_tokens, round(rag.prompt_tokens * rag.prefix_hit_rate),
                                                     rag.output_tokens, rag.ttft_s, rag.tpot_s)),
        mla=_mla_handoff(), tcp=_small_tcp(), reasoning=_reasoning_shift(), small=_small_split(),
    )
