"""The request-cost spread that the overview, chapter 6 and the questions page all quote: a tiny
request against a huge one (data/workloads.toml), compared in tokens and in FLOPs with attention
counted. One place, so the three pages cannot disagree."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.specs import Model
from ...engine.workloads import workloads


def request_spread(model: Model) -> SimpleNamespace:
    """Tokens and FLOPs of the small and the big example request on `model`, and their ratios."""
    w = workloads()
    small_tokens = w["small_prompt"] + w["small_output"]
    big_tokens = w["big_prompt"] + w["big_output"]
    geometry = (model.active, model.layers, model.query_heads, model.head_dim)
    small_flops = f.request_flops(*geometry, small_tokens)
    big_flops = f.request_flops(*geometry, big_tokens)
    return SimpleNamespace(
        small_prompt=w["small_prompt"], small_output=w["small_output"],
        big_prompt=w["big_prompt"], big_output=w["big_output"],
        small_tokens=small_tokens, big_tokens=big_tokens,
        token_ratio=big_tokens / small_tokens,
        small_flops=small_flops, big_flops=big_flops,
        flop_ratio=big_flops / small_flops,
        source_ratio=w["source_cost_spread"],  # the source's own "10,000x", quoted to be corrected
    )
