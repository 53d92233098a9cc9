"""Chapter 3, the memory budget (docs/guide/memory.md): weights, the KV cache and the reserve for the
anchor, the group sizes around it, the attention designs against its budget, the source's slips (told on
the errata page), and the end-of-chapter problems on other models and GPUs. Values in SI units; the page
formats them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.model.hf_config import load_hf_config
from ...engine.model.hf_params import attention_per_layer, gated_mlp
from ...engine.model.scenario import (
    anchor,
    dtype_bytes,
    get_model,
    kv_bytes_per_token,
    mha_kv_bytes_per_token,
    model_kv_bytes_per_seq,
    scenario,
)
from ...engine.specs import DATA_DIR, catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume, phrase
from . import errata
from ._shared import cache_against_weights, gpu_share_words, max_batch_mixed_units

GROUP_SIZES = (2, 4, 8)  # the tensor-parallel groups the weights table compares
WINDOW_EXAMPLE = "mistral-7b"  # a sliding window on every layer

# The problems' cases (page-only inputs: model and GPU keys, group sizes and layouts, not figures).
SMALL = ("llama-3.1-8b", "l4", 1)  # an 8B on one L4
FP8_KV = ("llama-70b", "h200", 2)  # the 70B on two H200s: BF16 against FP8 KV
MLA = ("deepseek-v3", "h200", 8)  # DeepSeek-V3 on a node of H200s (or more, when one no longer holds it)
GQA = ("llama-3.1-8b", "h100", 1)  # the 8B on one H100: its GQA against MHA
# 3.1's worked count from a config.json: a copy of the real Llama-3.1-70B file (data/configs/README.md), and the
# models.toml entry for the same model, which the count should reproduce
CONFIG, CONFIG_MODEL = DATA_DIR / "configs" / "llama-3.1-70b.json", "llama-3.1-70b"


def _attention_rows(s, mha: float, mqa: float) -> list[SimpleNamespace]:
    """MHA, the model's GQA and MQA against the anchor's KV budget at its context."""
    m = s.model_spec
    rows = []
    for label, heads, per_token in (("MHA", m.query_heads, mha), ("GQA (this model)", m.kv_heads,
                                                                  s.kv_bytes_per_token), ("MQA", 1, mqa)):
        per_seq = per_token * s.seq_len
        rows.append(SimpleNamespace(label=label, heads=heads, per_token=per_token, per_seq=per_seq,
                                    max_batch=int(f.max_batch(s.kv_budget_bytes, per_seq))))
    return rows


def _crossover(s) -> SimpleNamespace:
    """The batch above which the KV cache the replica holds outweighs the weights it holds, and
    whether the max batch reaches it."""
    at = f.kv_overtakes_weights_batch(s.weight_bytes_held, s.kv_bytes_per_seq_group)
    return SimpleNamespace(s=s, batch=at, first=int(at) + 1, reached=s.max_batch > at,
                           kv_at_max=s.kv_bytes_total, kv_over_weights=s.kv_bytes_total / s.weight_bytes_held)


def problems() -> SimpleNamespace:
    """The end-of-chapter problems: each case's scenarios, at the default context."""
    small = scenario(*SMALL[:2], gpus=SMALL[2])
    bf16 = scenario(*FP8_KV[:2], gpus=FP8_KV[2])
    fp8 = scenario(*FP8_KV[:2], gpus=FP8_KV[2], kv="fp8")
    # the node, or the fewest GPUs (a power of two) that hold one sequence under both layouts
    mla_gpus = max(MLA[2], *(scenario(*MLA[:2], layout=layout).gpus for layout in ("tp", "dp-attention")))
    tp = scenario(*MLA[:2], gpus=mla_gpus)
    dp = scenario(*MLA[:2], gpus=mla_gpus, layout="dp-attention")
    gqa = scenario(*GQA[:2], gpus=GQA[2])
    mha_per_token = mha_kv_bytes_per_token(gqa.model_spec)
    mha_per_seq = mha_per_token * gqa.seq_len
    return SimpleNamespace(
        small=small,
        bf16=bf16, fp8=fp8, fp8_gain=fp8.max_batch / bf16.max_batch,
        # "In FP8 each sequence takes half as much": the formats' sizes (precisions.toml)
        fp8_share_words=phrase(fp8.kv_bytes_per_seq / bf16.kv_bytes_per_seq, 0.5, "half as much",
                               f"{fmt.times(fp8.kv_bytes_per_seq / bf16.kv_bytes_per_seq)} as much",
                               f"{fmt.times(fp8.kv_bytes_per_seq / bf16.kv_bytes_per_seq)} as much"),
        fp8_throughput_gain=fp8.decode_tokens_per_s / bf16.decode_tokens_per_s,
        tp=tp, dp=dp, dp_gain=dp.max_batch / tp.max_batch,
        mla_group=(f"a node of {mla_gpus} × {tp.gpu_spec.name}" if mla_gpus == MLA[2] else
                   f"{mla_gpus} × {tp.gpu_spec.name} (a node of {MLA[2]} no longer holds it)"),
        gqa=gqa, mha_per_token=mha_per_token, mha_per_seq=mha_per_seq,
        mha_over_gqa=mha_per_token / gqa.kv_bytes_per_token,
        mha_max_batch=int(f.max_batch(gqa.kv_budget_bytes, mha_per_seq)),
        cross_small=_crossover(gqa), cross_mla=_crossover(dp),
    )


def config_count(path: Path = CONFIG) -> SimpleNamespace:
    """3.1's worked count: a config.json read by engine/model/hf_config.py and counted by
    engine/model/hf_params.py, with each kind of tensor's share per layer and for the whole model (the parts the
    page multiplies out)."""
    hf = load_hf_config(path)
    g, c = hf.geometry, hf.params
    d, q_width, kv_width = g.hidden_size, g.query_heads * g.head_dim, g.kv_heads * g.head_dim
    attention, mlp, norms = attention_per_layer(g), gated_mlp(d, g.ffn_size, g.mlp_bias), g.norms_per_layer * d
    return SimpleNamespace(
        file=path.name, source=hf.model.name, g=g, count=c, q_width=q_width, kv_width=kv_width,
        # per layer: the query and output projections, each of the key and value ones, one MLP matrix
        q_proj=d * q_width, kv_proj=d * kv_width, o_proj=q_width * d, mlp_matrix=d * g.ffn_size,
        attention_per_layer=attention, mlp_per_layer=mlp, norms_per_layer=norms,
        layer_total=attention + mlp + norms, layers_total=g.layers * (attention + mlp + norms),
        mostly_mlp=assume(c.dense_mlp > c.total / 2, f"MLPs {c.dense_mlp:,} of {c.total:,}",
                          "the MLPs are no longer most of the weights: rewrite 3.1's last sentence on the count"),
        final_norm=d, mlp_share=c.dense_mlp / c.total, attention_share=c.attention / c.total,
        matches_catalog=assume(c.total == get_model(CONFIG_MODEL).params,
                               f"counted from {path.name}: {c.total:,}; models.toml {CONFIG_MODEL}: "
                               f"{get_model(CONFIG_MODEL).params:,}",
                               "the count from the config no longer matches models.toml: say which is right"),
    )


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m, gpu = s.model_spec, s.gpu_spec
    memory = gpu.memory_bytes
    kv_token = s.kv_bytes_per_token
    kv_long = model_kv_bytes_per_seq(m, w["long_context_tokens"])
    kv_max_context = model_kv_bytes_per_seq(m, m.max_context)
    mha = mha_kv_bytes_per_token(m)
    mqa = f.kv_bytes_per_token_gqa(m.layers, 1, m.head_dim, dtype_bytes(s.kv_dtype))  # one KV head
    mla, swa = get_model(w["mla_model"]), get_model(WINDOW_EXAMPLE)
    groups = [scenario(w["model"], w["gpu"], gpus=g) for g in GROUP_SIZES]
    single_gpu_step = f.memory_time_s(s.decode_bytes, 1, gpu.bandwidth_bytes_per_s)  # the source's slip
    slow = catalog().claims["floor-to-measured"]
    return SimpleNamespace(
        config=config_count(),
        s=s, model=m, gpu=gpu,
        s_long=anchor(seq_len=2 * s.seq_len),  # twice the context
        # 3.1 weights
        min_gpus=int(f.blocks_needed(s.weight_bytes, memory)),
        groups=[SimpleNamespace(s=t, weight_per_gpu=t.weight_bytes / t.gpus) for t in groups],
        smallest_group=GROUP_SIZES[0],
        # 3.2 the KV cache: one token, one sequence, a long conversation, the full window
        long_ctx=w["long_context_tokens"],
        kv_long=kv_long,
        kv_max_context=kv_max_context,
        share_token=kv_token / memory,
        share_seq=s.kv_bytes_per_seq / memory,
        share_long=kv_long / memory,
        share_max_context=kv_max_context / memory,
        share_long_visible=kv_long / gpu.memory_visible_bytes,
        long_share_words=gpu_share_words(kv_long / memory, f"one {gpu.name}"),  # "about half of one H100"
        fits_one_gpu=assume(s.weight_bytes > memory, f"weights {fmt.bytes_(s.weight_bytes)}, one {gpu.name} "
                            f"{fmt.bytes_(memory)}", "the model now fits one GPU: say so"),
        cache=cache_against_weights(s),  # the cache against the weights, in words
        source_units=errata.model().check,  # the source's sizes: binary values with decimal labels
        # 3.3 GQA against MHA and MQA, and the designs past it
        mha_kv_per_token=mha,
        mha_over_gqa=mha / kv_token,
        queries_per_kv_head=m.query_heads // m.kv_heads,
        attention_rows=_attention_rows(s, mha, mqa),
        mla=mla,
        mla_saving=mha_kv_bytes_per_token(mla) / kv_bytes_per_token(mla),
        swa=swa,
        swa_kv_at_window=model_kv_bytes_per_seq(swa, swa.sliding_window),
        swa_kv_at_max_context=model_kv_bytes_per_seq(swa, swa.max_context),
        # 3.5 the worked budget
        weight_per_gpu=s.weight_bytes / s.gpus,
        share_per_gpu=1 / s.gpus,
        group_bandwidth=s.gpus * gpu.bandwidth_bytes_per_s,
        # the source's factor-of-four slip: all the bytes over one GPU's bandwidth
        single_gpu_step_s=single_gpu_step,
        single_gpu_tokens_per_s=s.max_batch / single_gpu_step,
        single_gpu_per_user=1 / single_gpu_step,
        single_gpu_slowdown=single_gpu_step / s.decode_step_s,
        max_batch_mixed_units=max_batch_mixed_units(s),
        # the sanity check: the floor's per-user rate, slowed by the measured factor
        per_user_measured_low=s.decode_tokens_per_s_per_user / slow.high,
        per_user_measured_high=s.decode_tokens_per_s_per_user / slow.low,
        # the KV cache against the weights at the max batch
        kv_over_weights=s.kv_bytes_total / s.weight_bytes,
        problems=problems(),
    )
