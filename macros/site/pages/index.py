"""docs/index.md, the home page: the one fact and the anchor's headline figures (data/workloads.toml)."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.model.scenario import anchor
from ._shared import bandwidth_comparison, one_gpu_decode, unit_traps


def model() -> SimpleNamespace:
    s = anchor()
    return SimpleNamespace(
        anchor=s, model=s.model_spec, gpu=s.gpu_spec,
        **one_gpu_decode(s),
        **bandwidth_comparison(s),
        **unit_traps(s),
    )
