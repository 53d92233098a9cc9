"""Chapter 11's problems (docs/guide/long-context.md, "Problems"): each on another model or GPU than the
chapter's examples, computed through the chapter's page model (long_context.py) and the engine. Values in SI
units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.formulas import kv_tiers as kt
from ...engine.lookup import get_gpu, get_model
from ...engine.model.geometry import model_kv_bytes_per_seq, model_weight_bytes, prefill_attention_flops
from ...engine.model.scenario import DEFAULT_RESERVE_BYTES, scenario
from ...engine.problems.kv_tiers import hybrids, tiers
from ...engine.specs import catalog

P1 = ("llama-3.1-8b", "h100", 1)  # the chapter's small model on the GPU before Blackwell
P2 = ("qwen2.5-72b", "h200", 2)  # a 32K-token prefix from the network store, FP8 cache
P2_TOKENS = 32_768
P3 = ("deepseek-v3", "h200", 8)  # MLA under tensor parallelism: every rank needs the whole latent
P4 = ("llama-3.1-70b", "b200", "fp8")  # one B200 holds the FP8 weights: how long do its tiers keep a prefix?
P5 = ("mixtral-8x7b", "h100")  # a hit rate's prefill capacity, and what it asks of the host link
P6 = ("llama-3.1-405b", ("h200", "b200"))  # a million tokens: does one node of either hold it?
P7 = ("qwen2.5-72b", "gb200", 72)  # a million tokens on a whole NVL72 rack
P8 = ("llama-3.1-8b", "b200", 131_072)  # ring attention over NVLink and over the network
P11 = ("llama-3.1-8b", "b200")  # a million tokens on the smallest model


def _p1(page) -> SimpleNamespace:
    case = page.reload_case(*P1)
    row = next(r for r in case.rows if r.tier.key == "nvme-gen4")
    return SimpleNamespace(case=case, row=row, b200=page.reload_case(page.SMALL[0], page.SMALL[1], page.SMALL[2]))


def _p2(page) -> SimpleNamespace:
    case = page.reload_case(*P2, kv="fp8")
    at = page.at_prefix(case, P2_TOKENS)
    return SimpleNamespace(case=case, at=at, tokens=P2_TOKENS, network=tiers()["network"],
                           ratio=at.recompute_s / at.reload_s["network"])


def _p3(page) -> SimpleNamespace:
    tp, dp = page.reload_case(*P3), page.reload_case(*P3, layout="dp-attention")
    row = next(r for r in tp.rows if r.tier.key == "nvme-gen4")
    return SimpleNamespace(tp=tp, dp=dp, row=row, copies=f.kv_copies("tp", P3[2], tp.model.kv_heads, True))


def _p4(page) -> SimpleNamespace:
    s = scenario(P4[0], P4[1], weights=P4[2])
    return SimpleNamespace(s=s, stay=page.residence(s, {k: tiers()[k] for k in page.HGX_TIERS}))


def _p5(page) -> SimpleNamespace:
    s = scenario(*P5)
    hit = catalog().claims["deepseek-disk-kv-hit"].low
    rate = page.achieved(s.gpu, "gqa", s.weights_dtype)
    computed = s.gpus * rate.gemm / (2 * s.active_params)  # prompt tokens a second the replica computes
    taken = computed * kt.prefill_capacity_multiplier(hit)  # prompt tokens a second it takes with the hits
    reload_per_gpu = hit * taken * s.kv_bytes_per_token / s.gpus
    link = tiers()["host-pcie"].bandwidth_bytes_per_s
    return SimpleNamespace(s=s, hit=hit, computed=computed, taken=taken, multiplier=kt.prefill_capacity_multiplier(hit),
                           reload_per_gpu=reload_per_gpu, link=link, link_share=reload_per_gpu / link,
                           triple_hit=1 - 1 / 3)


def _p6(page) -> SimpleNamespace:
    m = get_model(P6[0])
    kv, weights = model_kv_bytes_per_seq(m, page.MILLION), model_weight_bytes(m, m.native_weights)
    nodes = []
    for key in P6[1]:
        g = get_gpu(key)
        budget = f.kv_budget_bytes(page.NODE_GPUS, g.memory_bytes, weights, DEFAULT_RESERVE_BYTES)
        nodes.append(SimpleNamespace(gpu=g, memory=page.NODE_GPUS * g.memory_bytes, budget=budget,
                                     fits=budget >= kv))
    return SimpleNamespace(model=m, kv=kv, weights=weights, nodes=nodes, kv_token=kv / page.MILLION)


def _p7(page) -> SimpleNamespace:
    m, gpus = get_model(P7[0]), P7[2]
    rate = page.achieved(P7[1], "gqa", m.native_weights)
    linear, attention = 2 * m.active * page.MILLION, prefill_attention_flops(m, page.MILLION)
    gpu_s = kt.recompute_time_s(linear, attention, 1, rate.gemm, rate.attention)
    return SimpleNamespace(model=m, gpu=get_gpu(P7[1]), gpus=gpus, rate=rate, linear=linear, attention=attention,
                           share=attention / (linear + attention), ttft=gpu_s / gpus,
                           overtakes=kt.attention_overtakes_tokens(m.active, m.layers, 4 * m.query_heads * m.head_dim))


def _p8(page) -> SimpleNamespace:
    m, g, prompt = get_model(P8[0]), get_gpu(P8[1]), P8[2]
    rate = page.achieved(P8[1], "gqa", m.native_weights)
    nic = catalog().claims["nic-bandwidth"].low
    nvlink = kt.ring_min_tokens_per_gpu(m.query_heads, m.kv_heads, 2, rate.attention, g.interconnect_bytes_per_s)
    network = kt.ring_min_tokens_per_gpu(m.query_heads, m.kv_heads, 2, rate.attention, nic)
    return SimpleNamespace(model=m, gpu=g, prompt=prompt, rate=rate, nic=nic, nvlink=nvlink, network=network,
                           widest=int(prompt // network), ratio=m.query_heads // m.kv_heads)


def _p9(page) -> SimpleNamespace:
    gemma, gqa = hybrids()["gemma-3-27b"], get_model(page.LONG_MODEL)
    tokens = gemma.max_context
    full = f.kv_bytes_per_token_gqa(gemma.layers, gemma.kv_heads, gemma.head_dim, 2) * tokens
    return SimpleNamespace(h=gemma, tokens=tokens, kv=page.hybrid_kv(gemma, tokens),
                           fp8=page.hybrid_kv(gemma, tokens, "fp8"), full=full,
                           saving=full / page.hybrid_kv(gemma, tokens), llama=model_kv_bytes_per_seq(gqa, tokens),
                           global_layers=gemma.layers - gemma.window_layers)


def _p10(page) -> SimpleNamespace:
    a = page.architectures()
    return SimpleNamespace(h=a.jamba, tokens=a.jamba.max_context, kv=a.jamba_256k, state=a.jamba_state,
                           state_tokens=a.jamba_state_tokens, reported=a.jamba_reported,
                           per_token=f.kv_bytes_per_token_gqa(a.jamba_attention, a.jamba.kv_heads, a.jamba.head_dim,
                                                              2), attention_layers=a.jamba_attention)


def _p11(page) -> SimpleNamespace:
    m, g = get_model(P11[0]), get_gpu(P11[1])
    rate = page.achieved(P11[1], "gqa", m.native_weights)
    kv, weights = model_kv_bytes_per_seq(m, page.MILLION), model_weight_bytes(m, m.native_weights)
    budget = f.kv_budget_bytes(1, g.memory_bytes, weights, DEFAULT_RESERVE_BYTES)
    gpu_s = kt.recompute_time_s(2 * m.active * page.MILLION, prefill_attention_flops(m, page.MILLION), 1,
                                rate.gemm, rate.attention)
    return SimpleNamespace(model=m, gpu=g, kv=kv, budget=budget, fits=budget >= kv, ttft=gpu_s,
                           gpus=kt.gpus_for_prefill(gpu_s, page.TTFT_TARGET_S, 1.0), target=page.TTFT_TARGET_S)


def problems() -> SimpleNamespace:
    from . import long_context as page  # the chapter's page model, whose helpers the problems reuse

    return SimpleNamespace(p1=_p1(page), p2=_p2(page), p3=_p3(page), p4=_p4(page), p5=_p5(page), p6=_p6(page),
                           p7=_p7(page), p8=_p8(page), p9=_p9(page), p10=_p10(page), p11=_p11(page))
