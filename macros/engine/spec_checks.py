"""The checks that span fields of one spec entry (the loader in specs.py checks each field's
type). Each takes the built entry and `fail(field, problem)`, which raises SpecError naming the
file, the entry and the field."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .specs import Claim, Gpu, Model, Precision, Price

COMPUTE_PEAKS = ("bf16", "fp8", "fp4")  # which dense peak a format's matmuls use: Gpu.<peak>_flops


def check_gpu(gpu: Gpu, fail: Any) -> None:
    fields = {f.name for f in dataclasses.fields(gpu)} - {"key"}
    for name in (*gpu.sources, *gpu.unverified):
        if name not in fields:
            fail("sources/unverified", f"names unknown field {name!r}")
    for name in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_flops"):
        if name not in gpu.sources:
            fail("sources", f"no source for {name}")
    if gpu.fp4_flops is not None and "fp4_flops" not in gpu.sources:
        fail("sources", "no source for fp4_flops")
    # Peaks are dense and a narrower unit is never slower: a sparse figure typed as dense, or
    # a rack total typed as one GPU's, usually breaks this order.
    order = [(n, getattr(gpu, n)) for n in ("bf16_flops", "fp8_flops", "fp4_flops") if getattr(gpu, n) is not None]
    for (low, a), (high, b) in zip(order, order[1:], strict=False):
        if b < a:
            fail(high, f"{b:g} is below {low} {a:g}; a narrower format's dense peak is at least as high")
    if gpu.fp4_flops is not None and gpu.fp8_flops is None:
        fail("fp4_flops", "an FP4 peak needs an FP8 one (fp8_flops)")


def check_model(m: Model, fail: Any) -> None:
    if m.active_params is not None and m.active_params > m.params:
        fail("active_params", f"{m.active_params:g} exceeds params {m.params:g}")
    if m.kv_heads > m.query_heads:
        fail("kv_heads", f"{m.kv_heads} exceeds query_heads {m.query_heads}")
    for a, b in (("kv_lora_rank", "qk_rope_head_dim"), ("kv_lora_rank", "qk_nope_head_dim"),
                 ("kv_lora_rank", "v_head_dim"), ("sliding_window", "sliding_window_layers"),
                 ("experts", "experts_per_token"), ("dense_layers", "dense_ffn_size"),
                 ("checkpoint_bytes", "checkpoint_source")):
        if (getattr(m, a) is None) != (getattr(m, b) in (None, 0, "")):
            fail(a if getattr(m, a) is None else b, f"{a} and {b} must be given together")
    if m.q_lora_rank is not None and not m.is_mla:
        fail("q_lora_rank", "only MLA models (kv_lora_rank) compress the query")
    for name in ("shared_experts", "dense_layers", "native_nonexpert_weights"):
        if getattr(m, name) is not None and not m.is_moe:
            fail(name, "only a mixture of experts (experts) has it")
    if m.dense_layers is not None and m.dense_layers >= m.layers:
        fail("dense_layers", f"{m.dense_layers} leaves no MoE layer of {m.layers}")
    if m.sliding_window_layers > m.layers:
        fail("sliding_window_layers", f"{m.sliding_window_layers} exceeds layers {m.layers}")
    if m.experts is not None:
        if m.experts_per_token >= m.experts:
            fail("experts_per_token", f"{m.experts_per_token} must be below experts {m.experts}")
        if m.active_params is None or m.active_params >= m.params:
            fail("active_params", "a mixture of experts needs active_params below params")


def check_precision(p: Precision, fail: Any) -> None:
    if p.compute not in COMPUTE_PEAKS:
        fail("compute", f"{p.compute!r} is not one of {', '.join(COMPUTE_PEAKS)}")
    if (p.block_size is None) != (p.scale_bits is None):
        fail("block_size", "block_size and scale_bits must be given together")
    if p.block_size is not None and p.element_bits is None:
        fail("element_bits", "a block format needs element_bits")
    if p.element_bits is not None:
        bits = p.element_bits + (p.scale_bits / p.block_size if p.block_size else 0)
        if abs(p.bytes - bits / 8) > 1e-9:
            fail("bytes", f"{p.bytes:g} disagrees with the layout: ({p.element_bits} + "
                          f"{p.scale_bits or 0:g}/{p.block_size or 1}) bits / 8 = {bits / 8:g}")


def check_claim(c: Claim, fail: Any) -> None:
    if c.low is None and not c.text:
        fail("low", "a claim needs a value (low, optionally high) or a text")
    if c.low is not None and c.high is not None and c.high < c.low:
        fail("high", f"{c.high:g} is below low {c.low:g}")


def check_price(p: Price, fail: Any) -> None:
    if not p.low <= p.typical <= p.high:
        fail("typical", f"must lie within low..high, got {p.low:g} <= {p.typical:g} <= {p.high:g}")
