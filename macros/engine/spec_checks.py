"""The checks on a spec entry that data/rules.toml cannot state (the loader in specs.py applies the
table first): a GPU's sources name its own fields, and a block format's bytes follow from its layout.
Each takes the built entry and `fail(field, problem)`, which raises SpecError naming the file, the
entry and the field."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .specs import Gpu, Precision


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


def check_precision(p: Precision, fail: Any) -> None:
    if p.element_bits is not None:
        bits = p.element_bits + (p.scale_bits / p.block_size if p.block_size else 0)
        if abs(p.bytes - bits / 8) > 1e-9:
            fail("bytes", f"{p.bytes:g} disagrees with the layout: ({p.element_bits} + "
                          f"{p.scale_bits or 0:g}/{p.block_size or 1}) bits / 8 = {bits / 8:g}")
