"""The practice problems (docs/practice/problems.md, practice/problems.json, the flashcards): twenty-two kinds,
one for each thing the system-design round asks, each problem posed on numbers drawn from the spec data and
stated in full, answered from those stated numbers through the formulas (macros/engine/formulas), and kept
only when the rounded numbers give the answer the exact ones give (base.pose). No text here:
macros/site/practice.py writes the questions.

Each problem draws from its own stream, random.Random("<seed>:<kind>:<n>"), so a problem's id ("ttft-3")
names the same question whatever other kinds or later problems do; a change to the spec data changes its
numbers and its answer, not which question it is.

Beside them, `rubric`: the mock round's scoring rubric (data/practice/rubric.toml), read and checked.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..memo import memoized
from ..specs import DATA_DIR, SpecError, display_path, read_toml
from . import coldstart, comms, kv_tiers, latency, moe_comms, multimodal, operations, reasoning, roofline, sizing
from .base import Drawer, Given, Problem, Solver, generate

PATH = DATA_DIR / "practice" / "problems.toml"


@dataclass(frozen=True)
class Kind:
    name: str
    draw: Drawer
    solve: Solver


# In the page's order.
KINDS: tuple[Kind, ...] = (
    Kind("memory", sizing.draw_memory, sizing.solve_memory),
    Kind("decode", roofline.draw_decode, roofline.solve_decode),
    Kind("moe-reads", roofline.draw_moe_reads, roofline.solve_moe_reads),
    Kind("ttft", latency.draw_ttft, latency.solve_ttft),
    Kind("littles-law", latency.draw_littles, latency.solve_littles),
    Kind("chunked-prefill", roofline.draw_chunk, roofline.solve_chunk),
    Kind("speculative", roofline.draw_speculative, roofline.solve_speculative),
    Kind("allreduce", comms.draw_comms, comms.solve_comms),
    Kind("moe-placement", sizing.draw_placement, sizing.solve_placement),
    Kind("scaling", operations.draw_scaling, operations.solve_scaling),
    Kind("cold-start", coldstart.draw_cold_start, coldstart.solve_cold_start),
    Kind("preemption", sizing.draw_preemption, sizing.solve_preemption),
    Kind("cost", operations.draw_cost, operations.solve_cost),
    Kind("fleet", operations.draw_fleet, operations.solve_fleet),
    Kind("reasoning-kv", reasoning.draw_reasoning_kv, reasoning.solve_reasoning_kv),
    Kind("grammar-mask", reasoning.draw_grammar_mask, reasoning.solve_grammar_mask),
    Kind("image-tokens", multimodal.draw_image_tokens, multimodal.solve_image_tokens),
    Kind("lora-step", multimodal.draw_lora_step, multimodal.solve_lora_step),
    Kind("ep-alltoall", moe_comms.draw_ep_alltoall, moe_comms.solve_ep_alltoall),
    Kind("pool-sizing", moe_comms.draw_pool_sizing, moe_comms.solve_pool_sizing),
    Kind("kv-reload", kv_tiers.draw_reload, kv_tiers.solve_reload),
    Kind("long-prefill", kv_tiers.draw_long_prefill, kv_tiers.solve_long_prefill),
)
BY_NAME = {k.name: k for k in KINDS}


@functools.cache
def settings(path: Path = PATH) -> dict[str, Any]:
    """problems.toml: the seed, each kind's count and the deck's ids, the counts checked against KINDS."""
    raw = read_toml(path)
    counts = raw.get("counts", {})
    unknown = sorted(set(counts) - set(BY_NAME))
    if unknown:
        raise SpecError(f"{display_path(path)}: [counts] unknown kind {unknown[0]!r} "
                        f"(kinds: {', '.join(BY_NAME)})")
    for name, count in counts.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise SpecError(f"{display_path(path)}: [counts] {name} must be a whole number >= 0, got {count!r}")
    return raw


def solve(p: Problem, inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The problem's kind solved from `inputs` (by default its stated inputs): what a test re-derives with."""
    return BY_NAME[p.kind].solve(p.inputs if inputs is None else inputs)


@functools.cache
@memoized(keep=True)  # in a build, read from the last build's when the code and data are the same
def problems() -> tuple[Problem, ...]:
    """Every practice problem, kind by kind in KINDS order."""
    raw = settings()
    out: list[Problem] = []
    for kind in KINDS:
        out += generate(kind.name, raw.get("counts", {}).get(kind.name, 0), raw["seed"], kind.draw, kind.solve)
    return tuple(out)


__all__ = ["KINDS", "BY_NAME", "Given", "Problem", "problems", "settings", "solve"]
