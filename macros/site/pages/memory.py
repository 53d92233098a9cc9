"""Chapter 3, the memory budget (docs/guide/memory.md): weights, the KV cache and the reserve for the
anchor, the group sizes around it, the attention designs against its budget, and the source's slips.
Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.scenario import (anchor, dtype_bytes, get_model, kv_bytes_per_seq, kv_bytes_per_token,
                                mha_kv_bytes_per_token, scenario)
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import max_batch_mixed_units

GROUP_SIZES = (2, 4, 8)  # the tensor-parallel groups the weights table compares
WINDOW_EXAMPLE = "mistral-7b"  # a sliding window on every layer


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


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m, gpu = s.model_spec, s.gpu_spec
    memory = gpu.memory_bytes
    kv_token = s.kv_bytes_per_token
    kv_long = kv_bytes_per_seq(m, w["long_context_tokens"])
    kv_max_context = kv_bytes_per_seq(m, m.max_context)
    mha = mha_kv_bytes_per_token(m)
    mqa = f.kv_bytes_per_token_gqa(m.layers, 1, m.head_dim, dtype_bytes(s.kv_dtype))  # one KV head
    mla, swa = get_model(w["mla_model"]), get_model(WINDOW_EXAMPLE)
    groups = [scenario(w["model"], w["gpu"], gpus=g) for g in GROUP_SIZES]
    single_gpu_step = f.memory_time_s(s.decode_bytes, 1, gpu.bandwidth_bytes_per_s)  # the source's slip
    slow = catalog().claims["floor-to-measured"]
    return SimpleNamespace(
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
        # 3.3 GQA against MHA and MQA, and the designs past it
        mha_kv_per_token=mha,
        mha_over_gqa=mha / kv_token,
        queries_per_kv_head=m.query_heads // m.kv_heads,
        attention_rows=_attention_rows(s, mha, mqa),
        mla=mla,
        mla_saving=mha_kv_bytes_per_token(mla) / kv_bytes_per_token(mla),
        swa=swa,
        swa_kv_at_window=kv_bytes_per_seq(swa, swa.sliding_window),
        swa_kv_at_max_context=kv_bytes_per_seq(swa, swa.max_context),
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
    )
