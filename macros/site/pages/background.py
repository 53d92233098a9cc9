"""docs/guide/background.md, chapter 0: the anchor (data/workloads.toml) and the GPU it is compared with."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.scenario import anchor
from ._shared import bandwidth_comparison


def model() -> SimpleNamespace:
    s = anchor()
    return SimpleNamespace(anchor=s, model=s.model_spec, gpu=s.gpu_spec, **bandwidth_comparison(s))
