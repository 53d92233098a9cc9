"""docs/overview.md, the track overview: the one fact (decode is bandwidth-bound) and its three
consequences, for the anchor of data/workloads.toml. SI units throughout. The concept inventory's
figures are in concepts.py, with the page they moved to."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.lookup import dtype_bytes
from ...engine.model.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import bandwidth_comparison, one_gpu_decode, worked_batch, worked_batch_words


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    return SimpleNamespace(
        anchor=s, model=s.model_spec, gpu=s.gpu_spec, price=catalog().prices[w["gpu"]],
        bytes_per_weight=dtype_bytes(s.weights_dtype),
        batch_one=1, batch_big=worked_batch(), batch_words=worked_batch_words(), prompt_tokens=w["prompt_tokens"],
        **one_gpu_decode(s),
        **bandwidth_comparison(s),
        # the three consequences: the anchor at one sequence and at the example batch; one prompt's
        # prefill; twice the context (the calculator's second example)
        at_batch_one=anchor(batch=1),
        at_batch_big=anchor(batch=worked_batch()),
        prompt=anchor(seq_len=w["prompt_tokens"], batch=1),
        double_context=anchor(seq_len=2 * s.seq_len),
    )
