"""Elementwise helpers that import numpy only when an array is passed (calculator start-up stays fast)."""

from __future__ import annotations

from typing import Any

Number = Any  # a float, an int or a numpy array: every formula broadcasts


def maximum(a: Number, b: Number) -> Number:
    """Elementwise max; numpy only when an array is involved."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.maximum(a, b)
    return max(a, b)


def minimum(a: Number, b: Number) -> Number:
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)
