"""The cheat sheet (docs/cheatsheet.md): the figures to quote cold and the traps, for the anchor model
on the group of the anchor GPU that holds the worked batch. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.model.scenario import (
    DEFAULT_SEQ_LEN,
    anchor,
    get_gpu,
    get_model,
    kv_bytes_per_token,
    model_kv_bytes_per_seq,
)
from ...engine.workloads import workloads
from . import design_chatgpt
from ._reference import reference_group, whiteboard
from ._shared import bandwidth_comparison, max_batch_mixed_units

NEWER_GPU = "b200"  # the current generation, quoted beside them


def model() -> SimpleNamespace:
    w = workloads()
    m, gpu, h200 = get_model(w["model"]), get_gpu(w["gpu"]), get_gpu(w["compared_gpu"])
    mla = get_model(w["mla_model"])
    s = reference_group()
    one_gpu = whiteboard(anchor(), w["prompt_tokens"])
    long = m.max_context
    attention_long = f.attention_flops_per_token(m.layers, m.query_heads, m.head_dim, long)
    mla_kv = kv_bytes_per_token(mla)
    return SimpleNamespace(
        model=m, gpu=gpu, h200=h200, b200=get_gpu(NEWER_GPU), mla=mla,
        prompt_tokens=w["prompt_tokens"],
        s=s,
        binding_line=design_chatgpt.model().binding_line,  # chapter 7's rehearsed line, true of its fleet
        **bandwidth_comparison(s),  # the H100-against-H200 sentence's words and facts
        weights_one_gpu=("fits one" if s.weight_bytes <= gpu.memory_bytes else "does not fit one"),  # "70B weights"
        s_long=reference_group(seq_len=2 * DEFAULT_SEQ_LEN),  # doubling the context halves the batch
        one_gpu=one_gpu,
        long=long,
        kv_long=model_kv_bytes_per_seq(m, long),
        bandwidth_ratio=h200.bandwidth_bytes_per_s / gpu.bandwidth_bytes_per_s,
        bandwidth_gain=h200.bandwidth_bytes_per_s / gpu.bandwidth_bytes_per_s - 1,
        crossover=f.kv_overtakes_weights_batch(s.weight_bytes, s.kv_bytes_per_seq),
        # the traps
        max_batch_mixed_units=max_batch_mixed_units(s),
        step_one_gpu_bandwidth_s=f.memory_time_s(s.decode_bytes, 1, gpu.bandwidth_bytes_per_s),
        mla_kv_per_token=mla_kv,
        mla_kv_doubled=2 * mla_kv,  # what a calculator that writes 2 * L * (r + d_r) * k gets
        attention_long_flops=attention_long,
        attention_over_2n=attention_long / one_gpu.token_flops,
    )
