"""docs/conventions.md, units and conventions: the anchor's figures that illustrate each rule and
the two traps (GB against GiB, dense against "with sparsity" FLOP/s). SI units throughout."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.model.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from . import errata
from ._shared import GIB, one_gpu_decode, unit_traps
from .errata_checks import source_quotes


def model() -> SimpleNamespace:
    s = anchor()
    gpu = s.gpu_spec
    return SimpleNamespace(
        anchor=s, model=s.model_spec, gpu=gpu, price=catalog().prices[workloads()["gpu"]],
        kib_bytes=2**10, gib_bytes=GIB,
        **unit_traps(s),
        **one_gpu_decode(s),
        # The source's slip, in its own words (quoted, not recomputed) and the errata's checks that the
        # diagnosis still fits today's data: a decimal budget divided by the binary size of a sequence.
        quote=source_quotes(), check=errata.model().check, source_budget_bytes=errata.SOURCE_FIGURES.kv_budget_bytes,
        visible_over_marketed=gpu.memory_visible_bytes / gpu.memory_bytes - 1,
    )
