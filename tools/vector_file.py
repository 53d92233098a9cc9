"""What the twins' vector tools share (serving_vectors.py, planner_vectors.py): the file's text, compact JSON
with no NaN or infinity, so that a drift test compares it byte for byte, and its writing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def compact(vectors: dict[str, Any]) -> str:
    return json.dumps(vectors, separators=(",", ":"), allow_nan=False) + "\n"


def write(out: Path, text: str, root: Path) -> int:
    """Write the vectors to `out` and say so; the exit code of a tool's main()."""
    out.write_text(text)
    print(f"wrote {out.relative_to(root)} ({out.stat().st_size / 1e3:.0f} kB)")
    return 0
