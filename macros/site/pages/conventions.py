"""docs/conventions.md, units and conventions: the anchor's figures that illustrate each rule and
the two traps (GB against GiB, dense against "with sparsity" FLOP/s). SI units throughout."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import GIB, max_batch_mixed_units, one_gpu_decode, unit_traps


def model() -> SimpleNamespace:
    s = anchor()
    gpu = s.gpu_spec
    return SimpleNamespace(
        anchor=s, model=s.model_spec, gpu=gpu, price=catalog().prices[workloads()["gpu"]],
        kib_bytes=2**10, gib_bytes=GIB,
        **unit_traps(s),
        **one_gpu_decode(s),
        # The source's slip: a decimal budget divided by the binary size of a sequence read as GB.
        source_max_batch=max_batch_mixed_units(s),
        visible_over_marketed=gpu.memory_visible_bytes / gpu.memory_bytes - 1,
    )
