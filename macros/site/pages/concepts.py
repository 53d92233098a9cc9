"""docs/concepts.md, the concept inventory (a reference page read after the study guide): the six
areas' figures for the anchor of data/workloads.toml. SI units throughout.

Moved from the overview's model when the inventory left the overview, so the reading path names
nothing before the chapters teach it."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.lookup import get_model
from ...engine.model.geometry import mha_kv_bytes_per_token, model_kv_bytes_per_seq
from ...engine.model.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import bandwidth_comparison, preemption_costs, request_spread, worked_batch, worked_batch_words


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m = s.model_spec
    return SimpleNamespace(
        anchor=s, model=m, gpu=s.gpu_spec, price=catalog().prices[w["gpu"]],
        compared_price=catalog().prices[w["compared_gpu"]],
        batch_big=worked_batch(), batch_words=worked_batch_words(), prompt_tokens=w["prompt_tokens"],
        **bandwidth_comparison(s),
        # the inventory's scenarios: the anchor at the example batch in BF16 and FP8, with an FP8 KV
        # cache, at twice the context; and one prompt's prefill
        at_batch_big=anchor(batch=worked_batch()),
        at_batch_big_fp8=anchor(batch=worked_batch(), weights="fp8"),
        kv_fp8=anchor(kv="fp8"),
        double_context=anchor(seq_len=2 * s.seq_len),
        prompt=anchor(seq_len=w["prompt_tokens"], batch=1),
        prompt_kv=model_kv_bytes_per_seq(m, w["prompt_tokens"]),
        max_context_kv=model_kv_bytes_per_seq(m, m.max_context),
        gqa_saving=mha_kv_bytes_per_token(m) / s.kv_bytes_per_token,
        mla_model=get_model(w["mla_model"]),
        mla_as_mha_kv_per_token=mha_kv_bytes_per_token(get_model(w["mla_model"])),
        spread=request_spread(m),
        **preemption_costs(s),
    )
