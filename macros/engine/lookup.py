"""Looking up the spec data by key, and the dtypes a request names. Every bad key is an InputError
that lists the valid keys, so the calculator and the build print one line and stop."""

from __future__ import annotations

import difflib
from typing import Any

from .specs import Gpu, Model, catalog

DEFAULT_DTYPE = "bf16"


class InputError(ValueError):
    """A bad request: unknown key, impossible count, unsupported dtype. One line, no traceback."""


def lookup(kind: str, key: str, table: dict[str, Any]) -> Any:
    if key in table:
        return table[key]
    close = difflib.get_close_matches(key, list(table), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise InputError(f"unknown {kind} {key!r}.{hint} Valid: {', '.join(table)}")


def get_model(key: str) -> Model:
    return lookup("model", key, catalog().models)


def get_gpu(key: str) -> Gpu:
    return lookup("GPU", key, catalog().gpus)


def dtype_bytes(key: str) -> float:
    return lookup("dtype", key, catalog().precisions).bytes


def compute_dtype(gpu: Gpu, weights_dtype: str) -> str:
    """The dtype the matmuls run in: FP8 weights use FP8 compute (an error on a GPU without it);
    everything else runs in BF16 (INT8 and INT4 are weight-only formats)."""
    if weights_dtype == "fp8":
        if not gpu.has_fp8:
            raise InputError(f"{gpu.name} has no FP8 compute: use --weights bf16, int8 or int4")
        return "fp8"
    return "bf16"


def peak_flops(gpu: Gpu, weights_dtype: str) -> float:
    """The compute dtype's dense peak per GPU."""
    return gpu.fp8_flops if compute_dtype(gpu, weights_dtype) == "fp8" else gpu.bf16_flops
