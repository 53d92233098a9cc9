"""What the measured runs pin of the serving model's parameters (model-vs-measured.md, "What the data pin"):
each fitted value's relative standard error and the pairs the data trade against each other, as calibrate
wrote them (fitting.identification). A value whose error is 1 or more is one the data leave to its prior."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.calibration.fitting import STRONG_CORRELATION
from ...engine.serving.calibration import Calibration
from ...engine.serving.families import families
from ...engine.serving.profiles import engines
from ...text import fmt
from ..markdown import table

PINNED, LOOSE = 0.1, 1.0  # a relative standard error below 10 %: pinned; 1 or more: the prior decides


def _label(slot: str) -> str:
    """calibrate's "bw_fraction blackwell" as "`bw_fraction` (Blackwell)"."""
    name, key = slot.split(" ", 1)
    names = {**{k: f.name for k, f in families().items()}, **{k: e["name"] for k, e in engines().items()},
             "all": "shared"}
    return f"`{name}` ({names.get(key, key)})"


def identification(cal: Calibration) -> SimpleNamespace:
    raw = cal.raw.get("identification", {})
    errors = {slot: float(e) for slot, e in raw.items() if slot != "method"}
    groups = {"pinned": [s for s, e in errors.items() if e < PINNED],
              "loose": [s for s, e in errors.items() if PINNED <= e < LOOSE],
              "unpinned": [s for s, e in errors.items() if e >= LOOSE]}
    rows = [[_label(s), fmt.pct(errors[s])] for s in sorted(errors, key=lambda s: errors[s])]
    pairs = cal.raw.get("identification_pair", [])
    pair_rows = [[_label(p["a"]), _label(p["b"]), fmt.num(p["correlation"], 2)] for p in pairs]
    return SimpleNamespace(
        count=len(errors), pinned=groups["pinned"], loose=groups["loose"],
        unpinned=[_label(s) for s in groups["unpinned"]], pinned_share=PINNED, loose_share=LOOSE,
        errors_table=table(["value", "relative standard error"], rows, "lr"),
        strong=STRONG_CORRELATION, pairs=len(pairs),
        pairs_table=table(["one", "the other", "correlation"], pair_rows, "llr"))
