"""The KV cache tables (docs/kv-tables.md): one example of each attention design, what it caches, and
what that does to the batch of the anchor model. Values in SI units; the page formats them (the tables
themselves are macros in macros/site/tables.py)."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.model.scenario import (
    DEFAULT_SEQ_LEN,
    get_gpu,
    get_model,
    kv_bytes_per_token,
    mha_kv_bytes_per_token,
    model_kv_bytes_per_seq,
    scenario,
)
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._reference import reference_group

# One model for each attention design the page explains (the anchor is the GQA example).
WINDOW_EXAMPLE = "mistral-7b"  # a sliding window on every layer
MIXED_WINDOW_EXAMPLE = "gemma-2-27b"  # windowed and global layers alternating


def model() -> SimpleNamespace:
    w = workloads()
    gqa, mla = get_model(w["model"]), get_model(w["mla_model"])
    swa, mixed = get_model(WINDOW_EXAMPLE), get_model(MIXED_WINDOW_EXAMPLE)
    gpu = get_gpu(w["gpu"])
    seq_len = DEFAULT_SEQ_LEN
    long = w["contexts"][-1]
    mha = mha_kv_bytes_per_token(gqa)
    mla_mha = mha_kv_bytes_per_token(mla)
    kv_long = model_kv_bytes_per_seq(gqa, long)
    return SimpleNamespace(
        s=reference_group(),
        s_fp8=reference_group(kv="fp8"),  # an FP8 cache on the same group
        gqa=gqa, mla=mla, swa=swa, mixed=mixed, gpu=gpu,
        mqa_models=[m for m in catalog().models.values() if m.attention == "MQA"],
        long=long,
        # the anchor with full multi-head attention, and what GQA saves
        mha_kv_per_token=mha,
        mha_kv_per_seq=mha * seq_len,
        queries_per_kv_head=gqa.query_heads // gqa.kv_heads,
        gqa_saving=mha / kv_bytes_per_token(gqa),
        kv_per_seq=model_kv_bytes_per_seq(gqa, seq_len),
        # MLA against the same model with full per-head keys and values
        mla_mha_kv_per_token=mla_mha,
        mla_saving=mla_mha / kv_bytes_per_token(mla),
        # sliding windows: capped at the window; alternating layers grow at the global layers' share
        swa_kv_at_window=model_kv_bytes_per_seq(swa, swa.sliding_window),
        mixed_growth_share=(mixed.layers - mixed.sliding_window_layers) / mixed.layers,
        mixed_full_context=scenario(MIXED_WINDOW_EXAMPLE, w["gpu"], seq_len=mixed.max_context),
        # one long conversation
        kv_long=kv_long,
        kv_long_share=kv_long / gpu.memory_bytes,
    )
