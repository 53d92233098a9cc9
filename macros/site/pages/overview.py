"""docs/overview.md, the track overview: the one fact (decode is bandwidth-bound) and the concept
inventory's figures, for the anchor of data/workloads.toml. SI units throughout."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.geometry import kv_bytes_per_seq, mha_kv_bytes_per_token
from ...engine.lookup import dtype_bytes, get_model
from ...engine.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import bandwidth_comparison, one_gpu_decode, preemption_costs, request_spread


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m = s.model_spec
    mla = get_model(w["mla_model"])
    return SimpleNamespace(
        anchor=s, model=m, gpu=s.gpu_spec, price=catalog().prices[w["gpu"]],
        compared_price=catalog().prices[w["compared_gpu"]],
        bytes_per_weight=dtype_bytes(s.weights_dtype),
        batch_one=1, batch_big=w["batch"], prompt_tokens=w["prompt_tokens"],
        **one_gpu_decode(s),
        **bandwidth_comparison(s),
        # the inventory's scenarios: the anchor at one sequence, at the example batch in BF16 and
        # FP8, with an FP8 KV cache, at twice the context; and one prompt's prefill
        at_batch_one=anchor(batch=1),
        at_batch_big=anchor(batch=w["batch"]),
        at_batch_big_fp8=anchor(batch=w["batch"], weights="fp8"),
        kv_fp8=anchor(kv="fp8"),
        double_context=anchor(seq_len=2 * s.seq_len),
        prompt=anchor(seq_len=w["prompt_tokens"], batch=1),
        prompt_kv=kv_bytes_per_seq(m, w["prompt_tokens"]),
        max_context_kv=kv_bytes_per_seq(m, m.max_context),
        gqa_saving=mha_kv_bytes_per_token(m) / s.kv_bytes_per_token,
        mla_model=mla,
        mla_as_mha_kv_per_token=mha_kv_bytes_per_token(mla),
        spread=request_spread(m),
        **preemption_costs(s),
    )
