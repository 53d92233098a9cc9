"""Chapter 10, MoE communication and disaggregated pools (docs/guide/moe-at-scale.md): the expert-parallel
all-to-all of DeepSeek-V3 in one node, across nodes and in an NVL72 rack, its overlap, its hottest GPU and wide
EP; then the prefill and decode pools of two workloads, the KV handoff, a wrong ratio and when not to split.
Values in SI units; the page formats them. The formulas are engine/formulas/moe_comms.py's, the published
figures data/topics/moe_at_scale.toml's (engine/problems/moe_comms.py reads and checks them)."""

from __future__ import annotations

import dataclasses
import functools
import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.fleet.disaggregated import Disaggregated, disaggregate
from ...engine.fleet.workload_file import design
from ...engine.formulas import moe_comms as mc
from ...engine.lookup import dtype_bytes, get_gpu, get_model
from ...engine.model.scenario import (
    ALLREDUCE_LATENCY_CLAIM,
    DEFAULT_SEQ_LEN,
    model_kv_bytes_per_seq,
    prefill_floor_s,
    scenario,
)
from ...engine.problems.moe_comms import domain_gpus, moe_at_scale_data
from ...engine.serving.calibration import params_for
from ...engine.serving.replica import build_replica
from ...engine.serving.step import communication_s
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from . import _moe_at_scale_problems as problem_set

HOPPER, RACK, MEASURED_STAND_IN = "h200", "gb200", "h100"  # DeepEP ran on H800s: the H100's links stand in
ENGINE = "sglang"  # the engine whose fitted step model prices the in-node EP term
CROSS_NODE_EP = 72  # nine H200 nodes, SGLang's decode width; and one NVL72 rack
CURVE_WIDTHS = (8, 16, 24, 32, 48, 64, 72)  # the drawing's EP widths
TABLE_WIDTHS = (8, 16, 32, 72)
HOT_MULTIPLE = 4  # an illustration: the hottest expert draws four times an expert's mean load
POOL_GPUS = 8  # both pools in whole 8-GPU nodes
POOL_PEAK = 100.0  # requests a second for the fitted model's pools (its headroom is the design's)
WIDEST_MEASURED_NAPKIN = 16  # DeepEP rows compared with the napkin from here on: the network sets both
GRID_PROMPTS, GRID_OUTPUTS = (1000, 4000, 16000), (100, 400, 1600)
HANDOFF_PROMPTS = (2000, 32768)


def _link() -> SimpleNamespace:
    claims = catalog().claims
    return SimpleNamespace(latency=claims[ALLREDUCE_LATENCY_CLAIM].low, nic=claims["nic-bandwidth"].low,
                           dispatch=dtype_bytes("fp8"), combine=dtype_bytes("bf16"))


def napkin_alltoall(model, gpu, gpus: int, tokens: int, hot: float = 1.0) -> SimpleNamespace:
    """The napkin's dispatch and combine for `tokens` per GPU (hot: the busiest GPU's multiple of the mean)."""
    k, g = _link(), get_gpu(gpu)
    args = (gpus, domain_gpus(gpu), g.interconnect_bytes_per_s, k.nic, k.latency)
    d = mc.ep_exchange_s(tokens * hot, model.experts_per_token, model.hidden_size, k.dispatch, *args)
    c = mc.ep_exchange_s(tokens * hot, model.experts_per_token, model.hidden_size, k.combine, *args)
    return SimpleNamespace(dispatch_s=d, combine_s=c, alltoall_s=d + c)


@functools.cache
def ep_case(gpu: str, gpus: int, model_key: str | None = None, weights: str | None = None) -> SimpleNamespace:
    """One placement: the napkin's all-to-all against an average layer's floor, with and without overlap, for the
    chapter's MoE model (or `model_key`, in `weights`) at the chapter's tokens per GPU, every sequence at 4,096
    tokens."""
    m = get_model(model_key or workloads()["moe_model"])
    tokens = moe_at_scale_data()["decode_batch"]["tokens_per_gpu"]
    held = scenario(m.key, gpu, gpus=gpus, layout="dp-attention", seq_len=DEFAULT_SEQ_LEN, weights=weights).max_batch
    # The floors read no memory size: where the batch does not fit (a GPU with less memory), they are taken on a
    # GPU with room for it, and `holds` says so, for the page to name the sentences that assume it fits.
    room = get_gpu(gpu) if held >= tokens * gpus else dataclasses.replace(get_gpu(gpu), memory_bytes=1e15)
    s = scenario(m.key, room, gpus=gpus, layout="dp-attention", seq_len=DEFAULT_SEQ_LEN, batch=tokens * gpus,
                 weights=weights)
    layer = s.decode_step_s / m.layers
    weights_read = s.decode_bytes - s.batch * s.kv_bytes_per_seq_group
    weight_read = f.memory_time_s(weights_read, gpus, s.gpu_spec.bandwidth_bytes_per_s) / m.layers
    a = napkin_alltoall(m, gpu, gpus, tokens)
    latency = _link().latency
    overlap = mc.two_batch_overlap_s(layer, weight_read, a.alltoall_s, latency)
    inside, plain = min(gpus, domain_gpus(gpu)), layer + a.alltoall_s
    network_bound = a.alltoall_s + 2 * latency > layer + weight_read  # the overlapped layer's longer side
    return SimpleNamespace(
        model=m, gpu=s.gpu_spec, gpus=gpus, domain=domain_gpus(gpu), s=s, layer_s=layer, weight_read_s=weight_read,
        holds=held >= tokens * gpus, held=held,
        **vars(a), nodes=math.ceil(gpus / domain_gpus(gpu)), peers=gpus - 1,
        nvlink_share=(inside - 1) / gpus, network_share=(gpus - inside) / gpus,
        step_alltoall_s=(m.layers - (m.dense_layers or 0)) * a.alltoall_s, plain_s=plain, overlap_s=overlap,
        overlap_change=abs(1 - overlap / plain), overlap_pays=overlap < plain,
        overlap_words="pays" if overlap < plain else "loses",
        overlap_direction="faster" if overlap < plain else "slower",
        bound_words="the network" if network_bound else "compute and memory",
        exchange_vs_reads="longer" if a.alltoall_s > weight_read else "shorter",
        alltoall_share=a.alltoall_s / plain, alltoall_over_layer=a.alltoall_s / layer,
        weights_per_gpu=s.weight_bytes_held / gpus, kv_budget_per_gpu=s.kv_budget_bytes / gpus,
        max_batch_per_gpu=scenario(m.key, gpu, gpus=gpus, layout="dp-attention", weights=weights).max_batch / gpus,
        tokens_per_s_per_gpu=tokens / (m.layers * min(layer + a.alltoall_s, overlap)))


def curve(gpu: str) -> list[SimpleNamespace]:
    """ep_case at each of the drawing's widths."""
    return [ep_case(gpu, g) for g in CURVE_WIDTHS]


def _deepep(m) -> SimpleNamespace:
    """DeepEP's measured low-latency kernels against the napkin at the same widths, on the H100's links."""
    d = moe_at_scale_data()["deepep_low_latency"]
    rows = []
    for ep, dispatch, combine in zip(d["ep"], d["dispatch_s"], d["combine_s"], strict=True):
        a = napkin_alltoall(m, MEASURED_STAND_IN, ep, d["tokens_per_gpu"])
        rows.append(SimpleNamespace(ep=ep, dispatch_s=dispatch, combine_s=combine, napkin_dispatch_s=a.dispatch_s,
                                    napkin_combine_s=a.combine_s, ratio=(dispatch + combine) / a.alltoall_s))
    wide = [r.ratio for r in rows if r.ep >= WIDEST_MEASURED_NAPKIN]
    return SimpleNamespace(rows=rows, low=min(wide), high=max(wide), narrowest=rows[0], from_ep=WIDEST_MEASURED_NAPKIN)


def _serving_term(node: SimpleNamespace) -> SimpleNamespace:
    """What serving/step.py charges for the same in-node exchange: BF16 both ways, NVLink, (g - 1) fitted hops."""
    m = get_model(workloads()["moe_model"])
    r = build_replica(m.key, HOPPER, node.gpus, "dp-attention", node.gpus, "fp8")
    p = params_for(HOPPER, ENGINE, r.attention)
    per_layer = communication_s(r, p.link_latency_s, node.s.batch) / r.moe_layers
    return SimpleNamespace(per_layer_s=per_layer, hop_s=p.link_latency_s, hops=node.gpus - 1,
                           over_napkin=per_layer / node.alltoall_s, engine=ENGINE)


def _skew(case: SimpleNamespace) -> SimpleNamespace:
    """The hottest GPU at EP72 with and without EPLB's redundant experts."""
    m, data = get_model(workloads()["moe_model"]), moe_at_scale_data()
    tokens, redundant = data["decode_batch"]["tokens_per_gpu"], data["deepseek_service"]["redundant_experts"]
    experts, slots = m.experts / case.gpus, (m.experts + redundant) / case.gpus
    copies = HOT_MULTIPLE  # EPLB copies the hot expert until each copy draws no more than the mean
    factor = mc.hottest_gpu_load(experts, HOT_MULTIPLE)
    hot = napkin_alltoall(m, case.gpu.key, case.gpus, tokens, factor)
    slot_bytes = f.moe_expert_params(m.params, m.active, m.experts, m.experts_per_token) * dtype_bytes("fp8")
    return SimpleNamespace(experts_per_gpu=experts, hot=HOT_MULTIPLE, factor=factor, alltoall_s=hot.alltoall_s,
                           slots_per_gpu=slots, copies=copies, redundant=redundant,
                           factor_eplb=mc.hottest_gpu_load(experts, HOT_MULTIPLE, copies), slot_bytes=slot_bytes,
                           slot_sequences=slot_bytes / case.s.kv_bytes_per_seq)


def _deepseek() -> SimpleNamespace:
    """DeepSeek's own pools from its published day: nodes each phase keeps busy, and their ratio."""
    d = moe_at_scale_data()["deepseek_service"]
    prefill = mc.units_for_rate(d["input_tokens_per_day"] / f.SECONDS_PER_DAY, d["prefill_tokens_per_s_per_node"])
    decode = mc.units_for_rate(d["output_tokens_per_day"] / f.SECONDS_PER_DAY, d["decode_tokens_per_s_per_node"])
    slots = get_model(workloads()["moe_model"]).experts + d["redundant_experts"]
    return SimpleNamespace(**d, prefill_nodes=prefill, decode_nodes=decode, nodes=prefill + decode,
                           ratio=prefill / decode, input_billions=d["input_tokens_per_day"] / 1e9,
                           output_billions=d["output_tokens_per_day"] / 1e9,
                           prefill_unit_nodes=d["prefill_ep"] // d["gpus_per_node"],
                           decode_unit_nodes=d["decode_ep"] // d["gpus_per_node"],
                           prefill_slots=slots // d["prefill_ep"], decode_slots=slots // d["decode_ep"])


def _chat_hardware() -> tuple[str, str, str, float]:
    """The chat design's model, GPU, weight format and efficiency: the hardware both workloads run on."""
    chat = design("consumer-chat")[0]
    return chat.model, chat.gpu, chat.weights or get_model(chat.model).native_weights, chat.efficiency


@functools.cache
def pool_napkin(prompt: int, cached: int, output: int, ttft_s: float | None, tpot_s: float,
                hardware: tuple[str, str, str, float] | None = None) -> SimpleNamespace:
    """Both pools in 8-GPU replicas of (model, GPU, weights, efficiency), by default the chat design's, per
    request a second: prefill at the utilisation the TTFT target allows once the RDMA handoff is taken off it,
    decode at the batch the TPOT target allows."""
    model_key, gpu, weights, eta = hardware or _chat_hardware()
    m, g = get_model(model_key), get_gpu(gpu)
    service = prefill_floor_s(m, g, POOL_GPUS, weights, prompt - cached, cached) / eta
    handoff = f.transfer_time_s(model_kv_bytes_per_seq(m, prompt), POOL_GPUS * _link().nic)
    # no TTFT target (None): only the work ratio, both pools equally busy, is asked for
    rho = 1.0 if ttft_s is None else mc.md1_max_utilisation(service, ttft_s - handoff)
    full = scenario(m.key, g.key, gpus=POOL_GPUS, weights=weights, seq_len=prompt + output)
    kv = model_kv_bytes_per_seq(m, prompt + output // 2)
    batch = min(int(mc.tpot_bound_batch(tpot_s, eta, POOL_GPUS, g.bandwidth_bytes_per_s, full.weight_bytes, kv)),
                full.max_batch)
    prefill = mc.prefill_pool_gpus(1.0, service, POOL_GPUS, rho) if rho > 0 else float("inf")
    decode = mc.decode_pool_gpus(1.0, output, tpot_s, batch, POOL_GPUS)
    return SimpleNamespace(prompt=prompt, cached=cached, new=prompt - cached, output=output, ttft_s=ttft_s,
                           tpot_s=tpot_s, service_s=service, handoff_s=handoff, utilisation=rho, kv_per_seq=kv,
                           batch=batch, max_batch=full.max_batch, prefill_per_rate=prefill, decode_per_rate=decode,
                           ratio=prefill / decode, work_ratio=service * POOL_GPUS / decode, weights=full.weight_bytes,
                           efficiency=eta, model=m, gpu=g)


def _pools(slug: str) -> SimpleNamespace:
    """A design's traffic on the chat design's hardware: the napkin, and the fitted model's pools."""
    w, chat = design(slug)[0], design("consumer-chat")[0]
    cached = round(w.prompt_tokens * w.prefix_hit_rate)
    napkin = pool_napkin(w.prompt_tokens, cached, w.output_tokens, w.ttft_s, w.tpot_s)
    d = disaggregate(chat.model, chat.gpu, chat.weights or napkin.model.native_weights, chat.kv, chat.engine,
                     w.prompt_tokens, cached, w.output_tokens, POOL_PEAK, w.ttft_s, w.tpot_s, chat.headroom)
    return SimpleNamespace(name=w.name, napkin=napkin, fitted=d, fitted_words=pools_words(d),
                           fitted_ratio=None if d.gpus is None else d.prefill.gpus / d.decode.gpus)


def pools_words(d: Disaggregated) -> str:
    """The fitted model's two pools, "24 on 8 x H100, 40 on 4 x H100", or the pool it finds no shape for."""
    if d.gpus is None:  # one pool has no shape that meets its target
        return "no " + ("prefill" if d.prefill is None else "decode") + " pool meets its target"
    return f"{d.prefill.gpus} on {d.prefill.shape.label}, {d.decode.gpus} on {d.decode.shape.label}"


def _handoff() -> list[SimpleNamespace]:
    """A 70B prompt's KV leaving an 8-GPU prefill replica over each link, whole and layer by layer."""
    chat = design("consumer-chat")[0]
    m, g = get_model(chat.model), get_gpu(chat.gpu)
    weights = chat.weights or m.native_weights
    links = (("NVLink", g.interconnect_bytes_per_s, POOL_GPUS), ("RDMA", _link().nic, POOL_GPUS),
             ("TCP", moe_at_scale_data()["tcp_path"]["bytes_per_s"], 1))
    rows = []
    for prompt in HANDOFF_PROMPTS:
        kv, prefill = model_kv_bytes_per_seq(m, prompt), prefill_floor_s(m, g, POOL_GPUS, weights, prompt)
        for name, link, paths in links:
            whole = f.transfer_time_s(kv, paths * link)
            rows.append(SimpleNamespace(prompt=prompt, kv=kv, prefill_s=prefill, link=name, bandwidth=link,
                                        paths=paths, whole_s=whole, share=whole / prefill,
                                        layerwise_s=mc.layerwise_exposed_s(whole, prefill, m.layers)))
    return rows


def _wrong(chat: SimpleNamespace, rag: SimpleNamespace) -> SimpleNamespace:
    """Pools split for chat, traffic turned to RAG at the rate that keeps the fleet's total GPUs the same."""
    c, r = chat.napkin, rag.napkin
    rate = (c.prefill_per_rate + c.decode_per_rate) / (r.prefill_per_rate + r.decode_per_rate)
    prefill_load = rate * r.prefill_per_rate / c.prefill_per_rate
    decode_load = rate * r.decode_per_rate / c.decode_per_rate
    return SimpleNamespace(rate=rate, prefill_load=prefill_load, decode_load=decode_load,
                           overloaded="prefill" if prefill_load > decode_load else "decode",
                           idle=1 - min(prefill_load, decode_load))


def split_words(split: int, together: int) -> str:
    """What splitting does to the fleet, in words that follow the two GPU counts."""
    if split < together:
        return f"saves {together - split:,} GPU{'' if together - split == 1 else 's'}"
    if split == together:
        return "saves nothing"
    return f"costs {split - together:,} more GPU{'' if split - together == 1 else 's'}"


def split_pays_words(cases: list[SimpleNamespace]) -> str:
    """What the table's verdicts add up to, in words chosen from them: the low loads, chat at the peak, and the
    small model's short prompts."""
    low = [c for c in cases if c.rate < POOL_PEAK]
    peak = [c for c in cases if c.rate == POOL_PEAK and c.model.key == design("consumer-chat")[0].model]
    short = [c for c in cases if c.rate == POOL_PEAK and c not in peak]
    low_pays = [c for c in low if c.wins]
    out = ("At low load each pool still needs a whole replica and the split buys nothing" if not low_pays else
           "Even at low load the split pays here, at " + " and ".join(f"{c.rate:g}/s" for c in low_pays))
    out += ("; the split pays where prompts are long enough to stall decode steps and the load fills both pools."
            if all(c.wins for c in peak) else "; on this data it does not pay for chat at the peak either.")
    if short and not any(c.wins for c in short):
        out += (" With short prompts there is little interference to remove, and a small model's decode replica "
                "already holds a large batch, so two pools only round up twice.")
    return out


def _not_split() -> list[SimpleNamespace]:
    """The fitted model's verdict on the chat traffic at three loads, and on a small model's short prompts."""
    chat = design("consumer-chat")[0]
    cases = [("chat, 70B", chat.model, chat.prompt_tokens, round(chat.prompt_tokens * chat.prefix_hit_rate),
              chat.output_tokens, rate) for rate in (1.0, 5.0, POOL_PEAK)]
    cases.append(("short prompts, 8B", "llama-3.1-8b", 500, 0, 200, POOL_PEAK))
    out = []
    for label, model, prompt, cached, output, rate in cases:
        d = disaggregate(model, chat.gpu, chat.weights or get_model(model).native_weights, chat.kv, chat.engine,
                         prompt, cached, output, rate, chat.ttft_s, chat.tpot_s, chat.headroom)
        out.append(SimpleNamespace(label=label, model=get_model(model), prompt=prompt, output=output, rate=rate,
                                   split=d.gpus, together=d.colocated_gpus, wins=d.wins,
                                   words=split_words(d.gpus, d.colocated_gpus)))
    return out


def figure_caption() -> str:
    """The drawing's caption, its words following the curves it describes."""
    hopper, rack = curve(HOPPER), curve(RACK)
    beyond = [c for c in hopper if c.gpus > c.domain]

    def against(cases: list[SimpleNamespace]) -> str:
        over = [c for c in cases if c.alltoall_s > c.layer_s]
        if not over:
            return "stays below it"
        return "overtakes it" if len(over) == len(cases) else f"overtakes it from EP{over[0].gpus} on"

    m = hopper[0].model
    return (f"One MoE layer of {m.name} on one GPU against the expert-parallel width, "
            f"{fmt.count(moe_at_scale_data()['decode_batch']['tokens_per_gpu'])} tokens a GPU: the layer floor falls "
            f"from {fmt.seconds(hopper[0].layer_s)} at EP{hopper[0].gpus} to {fmt.seconds(hopper[-1].layer_s)} at "
            f"EP{hopper[-1].gpus} on H200s as each GPU holds fewer experts. Past one H200 node the all-to-all runs "
            f"over the NIC and {against(beyond)} (left); inside one NVL72 rack it {against(rack)} (right).")


def _throughput_words() -> SimpleNamespace:
    """Where the floors' tokens per GPU peak over the Hopper widths, and whether they keep growing in the rack."""
    hopper, rack = curve(HOPPER), curve(RACK)
    best = max(hopper, key=lambda c: c.tokens_per_s_per_gpu)
    growing = all(b.tokens_per_s_per_gpu > a.tokens_per_s_per_gpu for a, b in zip(rack, rack[1:]))
    return SimpleNamespace(best=best, rack_words="keep growing to the whole rack" if growing else "stop growing too")


def _grid(tpot_s: float) -> SimpleNamespace:
    """The work ratio (both pools equally busy, no cache, no TTFT target) over prompt and output lengths, and how
    far each length moves it: the least an output change moves it, the most a prompt change does."""
    rows = [[pool_napkin(p, 0, o, None, tpot_s).work_ratio for o in GRID_OUTPUTS] for p in GRID_PROMPTS]
    by_output = min(max(row) / min(row) for row in rows)
    by_prompt = max(max(col) / min(col) for col in zip(*rows, strict=True))
    return SimpleNamespace(rows=rows, prompts=GRID_PROMPTS, outputs=GRID_OUTPUTS, by_output=by_output,
                           by_prompt=by_prompt,
                           output_dominates=assume(by_output > by_prompt,
                                                   f"output moves the ratio {by_output:.3g}x at least, the prompt "
                                                   f"{by_prompt:.3g}x at most",
                                                   "say the prompt length moves the ratio as much as the output"))


def _handoff_summary(rows: list[SimpleNamespace]) -> SimpleNamespace:
    """The RDMA rows' range as a share of the prefill, and whether one TCP path outlasts the prefill."""
    rdma = [r.share for r in rows if r.link == "RDMA"]
    tcp = [r.share for r in rows if r.link == "TCP"]
    return SimpleNamespace(rdma_low=min(rdma), rdma_high=max(rdma),
                           tcp_words="longer than the prefill itself" if min(tcp) > 1 else
                           "a large share of the prefill" if max(tcp) > 0.2 else "a small share of the prefill")


def model() -> SimpleNamespace:
    m, data = get_model(workloads()["moe_model"]), moe_at_scale_data()
    node, cross, rack = ep_case(HOPPER, 8), ep_case(HOPPER, CROSS_NODE_EP), ep_case(RACK, CROSS_NODE_EP)
    chat, rag = _pools("consumer-chat"), _pools("rag")
    link, routing = _link(), data["deepseek_v3_routing"]
    tokens = data["decode_batch"]["tokens_per_gpu"]
    handoff = _handoff()
    dense = get_model(design("consumer-chat")[0].model)
    not_split = _not_split()
    return SimpleNamespace(
        model=m, tokens=tokens, context=DEFAULT_SEQ_LEN, moe_layers=m.layers - (m.dense_layers or 0), link=link,
        batch_fits=assume(all(c.holds for c in (node, cross, rack)), "; ".join(
            f"{c.gpus} x {c.gpu.name} hold {c.held:,} sequences of {DEFAULT_SEQ_LEN:,} tokens, {tokens} a GPU needs "
            f"{tokens * c.gpus:,}" for c in (node, cross, rack)), "the chapter's decode batch no longer fits every "
            "placement: take fewer tokens per GPU, or say which placement cannot hold it"),
        payload_dispatch=mc.ep_payload_bytes(tokens, m.experts_per_token, m.hidden_size, link.dispatch),
        payload_combine=mc.ep_payload_bytes(tokens, m.experts_per_token, m.hidden_size, link.combine),
        scale_block=routing["scale_block_elements"],
        scale_share=routing["scale_bytes"] / routing["scale_block_elements"],
        node_limit=routing["max_nodes_per_token"], nvlink_over_nic=node.gpu.interconnect_bytes_per_s / link.nic,
        node=node, cross=cross, rack=rack, cases=(node, cross, rack), deepep=_deepep(m), serving=_serving_term(node),
        sglang=data["sglang_large_ep"], sglang_gpus=data["sglang_large_ep"]["nodes"]
        * data["deepseek_service"]["gpus_per_node"], gb200=data["sglang_gb200"], vllm=data["vllm_defaults"],
        layer_pipeline=data["sglang_layer_pipeline"], skew=_skew(cross),
        wide=[ep_case(HOPPER, g) for g in TABLE_WIDTHS] + [rack],
        # a node that holds no sequence has no gain to quote: 1, and the sentences that quote it say so
        widest_gain=cross.max_batch_per_gpu / node.max_batch_per_gpu if node.max_batch_per_gpu else 1.0,
        gain_defined=assume(node.max_batch_per_gpu > 0, f"{node.gpus} x {node.gpu.name} hold "
                            f"{node.max_batch_per_gpu * node.gpus:,.0f} sequences", "the narrow placement holds no "
                            "sequence: the widening's gain has no base; say so instead"),
        rack_over_nodes=rack.tokens_per_s_per_gpu / cross.tokens_per_s_per_gpu,
        deepseek=_deepseek(), decode_unit=ep_case(HOPPER, data["deepseek_service"]["decode_ep"]),
        chat=chat, rag=rag, pool_gpus=POOL_GPUS, pool_peak=POOL_PEAK, chat_design=design("consumer-chat")[0],
        swing=rag.napkin.ratio / chat.napkin.ratio,
        fitted_swing=rag.fitted_ratio / chat.fitted_ratio if rag.fitted_ratio and chat.fitted_ratio else None,
        grid=_grid(chat.napkin.tpot_s), handoff=handoff, handoff_summary=_handoff_summary(handoff),
        kv_per_token=model_kv_bytes_per_seq(dense, 1), tcp=data["tcp_path"],
        wrong=_wrong(chat, rag), not_split=not_split, split_pays_words=split_pays_words(not_split),
        problems=problem_set.problems(), caption=figure_caption(), throughput=_throughput_words(),
        ep_fewer_bytes=cross.gpus / m.experts_per_token,
    )
