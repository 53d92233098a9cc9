"""docs/guide/background.md, chapter 0: the anchor (data/workloads.toml), the GPU it is compared with,
and the request-cost spread chapter 6 works out (quoted here as the reason QPS misleads)."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.lookup import get_model
from ...engine.model.scenario import anchor
from ._shared import bandwidth_comparison, request_spread

# The real model the napkin preset rounds: its parameter count, quoted beside the preset's.
REAL_MODEL = "llama-3.1-70b"


def model() -> SimpleNamespace:
    s = anchor()
    return SimpleNamespace(anchor=s, model=s.model_spec, gpu=s.gpu_spec, real_model=get_model(REAL_MODEL),
                           spread=request_spread(s.model_spec), **bandwidth_comparison(s))
