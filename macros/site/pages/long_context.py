"""Chapter 11, KV tiers and long context (docs/guide/long-context.md): the tiers below HBM and when reloading
a cached prefix beats recomputing it (for the anchor, a small model and an MLA model), how long each tier
keeps a conversation, and a million-token prompt: its KV, its prefill, context parallelism, compression and
the architectures that change the arithmetic. Values in SI units; the page formats them, and the sentences
whose words follow the data are chosen here. The tiers and hybrids are chapter 11's data file's
(engine/problems/kv_tiers.py); "achieved" rates are the fitted serving model's shares of the peak.
The chapter's problems are in _long_context_problems.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.formulas import kv_tiers as kt
from ...engine.lookup import dtype_bytes, get_gpu, get_model, peak_flops
from ...engine.model.geometry import (
    kv_bytes_per_token,
    model_kv_bytes_per_seq,
    model_weight_bytes,
    prefill_attention_flops,
)
from ...engine.model.scenario import DEFAULT_RESERVE_BYTES, anchor
from ...engine.problems.kv_tiers import Hybrid, Tier, hybrids, reported_figures, tiers
from ...engine.serving.calibration import params_for
from ...engine.serving.estimate import DEFAULT_ENGINE
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from ..markdown import cite
from . import _long_context_problems, design_agents

SMALL = ("llama-3.1-8b", "b200", 1, "tp", "fp8")  # a small model on a fast GPU, FP8 GEMMs: recomputing is cheap
MLA = ("deepseek-v3", "h200", 8)  # an MLA model as DeepSeek serves it: data-parallel attention
THINK_TIME_S = 60.0  # a chat user who replies after a minute: a worked input, not a measurement
LONG_MODEL, LONG_GPU, NODE_GPUS = "llama-3.1-70b", "h100", 8  # the million-token prompt, on 8-GPU nodes
MILLION = 1_000_000
CP_NODES = 8  # context parallelism across nodes, tensor parallelism inside each
TTFT_TARGET_S = 60.0  # the million-token product's time to first token: a worked input
OUTPUT_TOKENS = 1000  # its answer's length: a worked input
KV_FORMATS = ("bf16", "fp8", "nvfp4")
HGX_TIERS = ("host-pcie", "nvme-gen4")  # what an HGX H100 server has below HBM (no NVLink-C2C)
CONTEXTS = (131_072, MILLION)  # the architectures table's columns
STATE_DTYPE = "bf16"  # a Mamba layer's state, in the model's format (the engines' "auto" for it)


def achieved(gpu: str, attention: str, weights: str, kv: str = "bf16") -> SimpleNamespace:
    """The fitted serving model's achieved FLOP/s per GPU in the GEMMs (the weights' format) and in attention
    (the KV cache's), and its achieved share of the memory bandwidth."""
    fitted, g = params_for(gpu, DEFAULT_ENGINE, attention), get_gpu(gpu)
    return SimpleNamespace(gemm=fitted.gemm_fraction * peak_flops(g, weights), gemm_fraction=fitted.gemm_fraction,
                           attention=fitted.attn_fraction * peak_flops(g, kv), attention_fraction=fitted.attn_fraction,
                           bandwidth=fitted.bw_fraction * g.bandwidth_bytes_per_s)


def reload_case(model: str, gpu: str, gpus: int, layout: str = "tp", weights: str | None = None,
                kv: str = "bf16") -> SimpleNamespace:
    """Reload against recompute for one model on one replica, per token and per GPU. Under tensor parallelism
    the g GPUs split both: each pulls its copies' share of the KV over its own link and computes 1/g of the
    prefill. Under data-parallel attention a rank reloads and prefills its own sequences: one link, one GPU."""
    m = get_model(model)
    weights = weights or m.native_weights
    rate = achieved(gpu, "mla" if m.is_mla else "gqa", weights, kv)
    compute_gpus = 1 if layout == "dp-attention" else gpus
    kv_token = kv_bytes_per_token(m, kv)
    copies = f.kv_copies(layout, gpus, m.kv_heads, m.is_mla)
    per_link = kv_token if layout == "dp-attention" else copies * kv_token / gpus
    linear_s = 2 * m.active / (compute_gpus * rate.gemm)
    pair_s = prefill_attention_flops(m, 1) / (compute_gpus * rate.attention)  # one causal pair, every layer
    break_even = kt.reload_break_even_bandwidth(per_link, 2 * m.active / compute_gpus, rate.gemm)
    rows = [_tier_row(t, per_link, linear_s, pair_s, break_even, m.max_context) for t in tiers().values()]
    losers = [r for r in rows if not r.reload_wins_linear]
    lost = "; ".join(f"{r.tier.name} loses up to {fmt.count(math.ceil(round(r.crossover, 9)) - 1)} tokens"
                     if r.crossover <= m.max_context else
                     f"{r.tier.name} loses at every length to {fmt.count(m.max_context)} tokens" for r in losers)
    return SimpleNamespace(model=m, gpu=get_gpu(gpu), gpus=gpus, layout=layout, weights=weights,
                           rate=rate, kv_token=kv_token,
                           per_link=per_link, linear_s=linear_s, pair_s=pair_s, break_even=break_even, rows=rows,
                           by_tier={r.tier.key: r for r in rows}, flops_per_token=2 * m.active,
                           all_win=not losers, losers=lost or "every tier clears it")


def _tier_row(t: Tier, per_link: float, linear_s: float, pair_s: float, break_even: float,
              max_context: int) -> SimpleNamespace:
    """One tier against recomputing: the crossover length, whether the tier beats the break-even bandwidth (so
    only its latency keeps it from winning at once), and the words the page's table prints."""
    crossover = kt.reload_crossover_tokens(per_link / t.bandwidth_bytes_per_s, t.latency_s, linear_s, pair_s)
    wins = t.bandwidth_bytes_per_s > break_even
    first = math.ceil(round(crossover, 9))  # the first whole prefix length at which reloading is faster
    if crossover > max_context:
        words = f"recompute at every length to {fmt.count(max_context)} tokens"
    elif crossover < 1:
        words = "reload, from the first token"
    elif wins:
        words = f"reload, from {fmt.count(first)} token{'' if first == 1 else 's'}"
    else:
        words = f"recompute up to {fmt.count(first - 1)} tokens, then reload"
    return SimpleNamespace(tier=t, reload_s_per_token=per_link / t.bandwidth_bytes_per_s, crossover=crossover,
                           reload_wins_linear=wins, words=words)


def at_prefix(case: SimpleNamespace, tokens: float) -> SimpleNamespace:
    """Recomputing a `tokens`-token prefix, and reloading it from each tier, on the case's replica."""
    m, rate = case.model, case.rate
    compute_gpus = 1 if case.layout == "dp-attention" else case.gpus
    recompute = kt.recompute_time_s(2 * m.active * tokens, prefill_attention_flops(m, tokens), compute_gpus,
                                    rate.gemm, rate.attention)
    reloads = {k: kt.reload_time_s(case.per_link * tokens, t.bandwidth_bytes_per_s, t.latency_s)
               for k, t in tiers().items()}
    return SimpleNamespace(tokens=tokens, recompute_s=recompute, reload_s=reloads)


def residence(s, tiers_by_key: dict[str, Tier]) -> SimpleNamespace:
    """How long each tier keeps a prefix when the replica prefills flat out, every prompt a miss: new KV at the
    replica's prefill rate (weights' FLOPs only, short prompts) times the KV per token. HBM first (the whole KV
    budget: an upper bound, as running sequences hold most of it), then `tiers_by_key`, the tiers the replica's
    server has, each GPU's share times its GPUs."""
    rate = achieved(s.gpu, "gqa", s.weights_dtype)
    tokens_per_s = s.gpus * rate.gemm / (2 * s.active_params)
    write = tokens_per_s * s.kv_bytes_per_token
    capacity = {"hbm": s.kv_budget_bytes, **{k: s.gpus * t.capacity_bytes for k, t in tiers_by_key.items()
                                           if t.capacity_bytes is not None}}  # a pooled store has no share
    held = {k: kt.tier_residence_s(c, write) for k, c in capacity.items()}
    agents = design_agents.inputs()
    names = {"hbm": "HBM", **{k: t.name for k, t in tiers_by_key.items()}}

    def first_holding(wait_s: float) -> str:
        return next((names[k] for k, v in held.items() if v >= wait_s), "no tier")

    return SimpleNamespace(tokens_per_s=tokens_per_s, write_bytes_per_s=write, write_per_gpu=write / s.gpus,
                           capacity=capacity, held=held, think_s=THINK_TIME_S, tool_s=agents.tool_s,
                           ttl_s=agents.retention_ttl_s, think_tier=first_holding(THINK_TIME_S),
                           tool_tier=first_holding(agents.tool_s), ttl_tier=first_holding(agents.retention_ttl_s))


def hybrid_kv(h: Hybrid, tokens: float, kv: str = "bf16") -> float:
    """A hybrid's KV (and Mamba state, kept in BF16 whatever the cache's format) for one sequence of `tokens`,
    through memory.py's formulas."""
    k = dtype_bytes(kv)
    per_token = f.kv_bytes_per_token_gqa(h.attention_layers, h.kv_heads, h.head_dim, k)
    cache = f.kv_bytes_per_seq(per_token, h.attention_layers, tokens, h.window_layers, h.sliding_window)
    if not h.attention_every:
        return cache
    return cache + kt.mamba_state_bytes(h.layers - h.attention_layers, h.hidden_size, h.mamba_expand,
                                        h.mamba_d_state, h.mamba_d_conv, dtype_bytes(STATE_DTYPE))


def architecture_curves() -> list[SimpleNamespace]:
    """Full-attention GQA, a local/global hybrid, MLA and a Mamba hybrid: each one's name, attention, trained
    context and KV per sequence (BF16) as a function of the context (a number or an array)."""
    gqa, mla = get_model(LONG_MODEL), get_model(workloads()["mla_model"])
    gemma, jamba = hybrids()["gemma-3-27b"], hybrids()["jamba-v0-1"]
    return [SimpleNamespace(name=gqa.name, kind="GQA, every layer global", max_context=gqa.max_context,
                            kv=lambda s: model_kv_bytes_per_seq(gqa, s)),
            SimpleNamespace(name=gemma.name, kind=f"GQA, {gemma.global_every - 1} local : 1 global",
                            max_context=gemma.max_context, kv=lambda s: hybrid_kv(gemma, s)),
            SimpleNamespace(name=mla.name, kind="MLA", max_context=mla.max_context,
                            kv=lambda s: model_kv_bytes_per_seq(mla, s)),
            SimpleNamespace(name=jamba.name, kind=f"attention 1 : {jamba.attention_every - 1} Mamba",
                            max_context=jamba.max_context, kv=lambda s: hybrid_kv(jamba, s))]


def architectures() -> SimpleNamespace:
    """The curves at 128K and a million tokens, with what the hybrids save against full attention of their own
    geometry, and Jamba's state."""
    gemma, jamba = hybrids()["gemma-3-27b"], hybrids()["jamba-v0-1"]
    full = f.kv_bytes_per_token_gqa(gemma.layers, gemma.kv_heads, gemma.head_dim, 2) * CONTEXTS[0]
    mamba = jamba.layers - jamba.attention_layers
    state = kt.mamba_state_bytes(mamba, jamba.hidden_size, jamba.mamba_expand, jamba.mamba_d_state,
                                 jamba.mamba_d_conv, dtype_bytes(STATE_DTYPE))
    rows = [SimpleNamespace(name=c.name, kind=c.kind, max_context=c.max_context, kv=[c.kv(s) for s in CONTEXTS])
            for c in architecture_curves()]
    return SimpleNamespace(rows=rows, contexts=CONTEXTS, gemma=gemma, jamba=jamba,
                           gemma_global=gemma.layers - gemma.window_layers,
                           gemma_share=hybrid_kv(gemma, CONTEXTS[0]) / full,
                           jamba_attention=jamba.attention_layers, jamba_mamba=mamba, jamba_state=state,
                           jamba_state_tokens=state / f.kv_bytes_per_token_gqa(jamba.attention_layers,
                                                                               jamba.kv_heads, jamba.head_dim, 2),
                           jamba_256k=hybrid_kv(jamba, jamba.max_context) - state,
                           jamba_reported=jamba.reported_kv_bytes, mla_vs_gqa=rows[0].kv[0] / rows[2].kv[0],
                           # the paper's label: its figure in GiB, printed as "GB"
                           jamba_label=f"{fmt.num(jamba.reported_kv_bytes / 2**30)} GB")


def million() -> SimpleNamespace:
    """A million-token prompt on the 70B geometry: its KV against one GPU and one node, its prefill split into
    the weights' and attention's FLOPs, context parallelism over nodes, decode, compression and the fleet."""
    m, g = get_model(LONG_MODEL), get_gpu(LONG_GPU)
    rate = achieved(LONG_GPU, "gqa", m.native_weights)
    weights = model_weight_bytes(m, m.native_weights)
    kv = {k: model_kv_bytes_per_seq(m, MILLION, k) for k in KV_FORMATS}
    budget = f.kv_budget_bytes(NODE_GPUS, g.memory_bytes, weights, DEFAULT_RESERVE_BYTES)
    linear, attention = 2 * m.active * MILLION, prefill_attention_flops(m, MILLION)
    gpu_seconds = kt.recompute_time_s(linear, attention, 1, rate.gemm, rate.attention)
    cp_gpus = CP_NODES * NODE_GPUS
    nic = catalog().claims["nic-bandwidth"].low
    pair = 4 * m.query_heads * m.head_dim
    ring_min = {"nvlink": kt.ring_min_tokens_per_gpu(m.query_heads, m.kv_heads, 2, rate.attention,
                                                    g.interconnect_bytes_per_s),
                "nic": kt.ring_min_tokens_per_gpu(m.query_heads, m.kv_heads, 2, rate.attention, nic)}
    ring_bytes = kt.ring_bytes_sent_per_gpu(kv["bf16"] / NODE_GPUS, CP_NODES)  # each GPU sends its heads' share
    node_step = f.memory_time_s(weights + kv["bf16"], NODE_GPUS, rate.bandwidth)
    spread_step = (weights / NODE_GPUS + kv["bf16"] / cp_gpus) / rate.bandwidth  # KV sharded over every node
    decode_gpu_s = OUTPUT_TOKENS * node_step * NODE_GPUS
    host = tiers()["host-pcie"]
    return SimpleNamespace(
        model=m, gpu=g, tokens=MILLION, weights=weights, kv=kv, rate=rate, node_gpus=NODE_GPUS,
        heads_per_kv=m.query_heads // m.kv_heads,
        node_memory=NODE_GPUS * g.memory_bytes, budget=budget,
        fits={k: int(f.max_batch(budget, v)) for k, v in kv.items()},
        nvfp4_gain=kv["bf16"] / kv["nvfp4"],
        gpus_to_hold=kv["bf16"] / g.memory_bytes,
        linear=linear, attention=attention, flops=linear + attention, attention_share=attention / (linear + attention),
        overtakes=kt.attention_overtakes_tokens(m.active, m.layers, pair),
        ttft_node=gpu_seconds / NODE_GPUS, cp_gpus=cp_gpus, cp_nodes=CP_NODES, ttft_cp=gpu_seconds / cp_gpus,
        target=TTFT_TARGET_S, gpus_for_target=kt.gpus_for_prefill(gpu_seconds, TTFT_TARGET_S, 1.0),
        chunk=MILLION / CP_NODES, ring_min=ring_min, nic=nic, ring_bytes=ring_bytes,
        ring_nic_s=ring_bytes / nic, node_step=node_step, spread_step=spread_step,
        partial_bytes=kt.cp_decode_partial_bytes(m.layers, m.query_heads, m.head_dim),
        output_tokens=OUTPUT_TOKENS, prefill_gpu_s=gpu_seconds, decode_gpu_s=decode_gpu_s,
        prefill_vs_decode=gpu_seconds / decode_gpu_s, prefills_per_gpu_hour=3600 / gpu_seconds,
        host_reload_s=kt.reload_time_s(kv["bf16"] / NODE_GPUS, host.bandwidth_bytes_per_s, host.latency_s),
        documents_per_node=int(NODE_GPUS * host.capacity_bytes // kv["bf16"]),
        h2o_kept=reported_figures()["h2o"].value * kv["bf16"],
        one_per_node=assume(f.max_batch(budget, kv["bf16"]) == 1, f"{int(f.max_batch(budget, kv['bf16']))} BF16 "
                            f"sequences of {fmt.bytes_(kv['bf16'])} in a {fmt.bytes_(budget)} budget",
                            "price the decode at the sequences a node holds"),
    )


def _reported(key: str, text: str) -> str:
    r = reported_figures()[key]
    return cite(text, f"reported ({r.date}): {r.source}", kind="claim")


def model() -> SimpleNamespace:
    w, s = workloads(), anchor()
    big, small, mla = reload_case(s.model, s.gpu, s.gpus), reload_case(*SMALL), reload_case(*MLA, layout="dp-attention")
    prefix_tokens = w["turns"] * w["tokens_per_turn"]  # chapter 5's conversation, its last prefix
    hit = catalog().claims["deepseek-disk-kv-hit"].low
    r = reported_figures()
    ladder = [SimpleNamespace(key=k, name=cite(t.name, f"{t.date}: {t.source}"), capacity=t.capacity_bytes,
                              bandwidth=t.bandwidth_bytes_per_s, latency=t.latency_s) for k, t in tiers().items()]
    host, nvme = tiers()["host-pcie"], tiers()["nvme-gen4"]
    return SimpleNamespace(
        s=s, tiers=tiers(), ladder=ladder, pcie_line=w["pcie_bytes_per_s"], hbm=s.gpu_spec,
        hbm_over_host=s.gpu_spec.bandwidth_bytes_per_s / host.bandwidth_bytes_per_s,
        host_over_nvme=host.bandwidth_bytes_per_s / nvme.bandwidth_bytes_per_s,
        big=big, small=small, mla=mla, mla_tp=reload_case(*MLA), prefix=at_prefix(big, prefix_tokens),
        big_all_win=assume(big.all_win, f"{big.model.name}: break-even {fmt.bandwidth(big.break_even)}; {big.losers}",
                           "say which tiers lose to recomputing on the anchor"),
        small_loses=assume(not small.all_win, f"{small.model.name} on {small.gpu.name}: break-even "
                           f"{fmt.bandwidth(small.break_even)}; {small.losers}",
                           "pick a small model and GPU where some tier loses to recomputing, or drop the contrast"),
        reload_table=[SimpleNamespace(tier=t.name, cases=[c.by_tier[k].words for c in (big, small, mla)])
                      for k, t in tiers().items()],
        hbm_over_c2c=s.gpu_spec.bandwidth_bytes_per_s / tiers()["host-c2c"].bandwidth_bytes_per_s,
        # past this many tokens no tier's latency decides anything in the three cases
        latency_tokens=max(math.ceil(r.crossover) for c in (big, small, mla) for r in c.rows if r.reload_wins_linear),
        hit=hit, hit_multiplier=kt.prefill_capacity_multiplier(hit),
        stay=residence(s, {k: tiers()[k] for k in HGX_TIERS}),
        arch=architectures(), long=million(),
        sinks=_reported("streamingllm", f"{fmt.count(r['streamingllm'].value)} tokens"),
        h2o=_reported("h2o", fmt.pct(r["h2o"].value)), snapkv=_reported("snapkv", fmt.times(r["snapkv"].value)),
        problems=_long_context_problems.problems(),
    )
