"""Looking up the spec data by key, and the dtypes a request names. Every bad key is an InputError
that lists the valid keys, so the calculator and the build print one line and stop."""

from __future__ import annotations

from typing import Any

from .rules import close_keys
from .specs import Gpu, Model, catalog

DEFAULT_DTYPE = "bf16"


class InputError(ValueError):
    """A bad request: unknown key, impossible count, unsupported dtype. One line, no traceback."""


def lookup(kind: str, key: str, table: dict[str, Any]) -> Any:
    if key in table:
        return table[key]
    close = close_keys(key, list(table))
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise InputError(f"unknown {kind} {key!r}.{hint} Valid: {', '.join(table)}")


def get_model(key: str) -> Model:
    return lookup("model", key, catalog().models)


def get_gpu(key: str) -> Gpu:
    return lookup("GPU", key, catalog().gpus)


def dtype_bytes(key: str) -> float:
    return lookup("dtype", key, catalog().precisions).bytes


def compute_dtype(gpu: Gpu, weights_dtype: str) -> str:
    """The dtype the matmuls run in, from the format's `compute` (precisions.toml): FP8 and FP4 formats
    use their own peak where the GPU has that unit, and elsewhere run weight-only, dequantised to BF16
    (as engines serve FP8 checkpoints on an A100); INT8, INT4 and the 16-bit formats run at BF16."""
    compute = lookup("dtype", weights_dtype, catalog().precisions).compute
    if (compute == "fp8" and gpu.has_fp8) or (compute == "fp4" and gpu.has_fp4):
        return compute
    return "bf16"


def peak_flops(gpu: Gpu, weights_dtype: str) -> float:
    """The compute dtype's dense peak per GPU."""
    return {"fp8": gpu.fp8_flops, "fp4": gpu.fp4_flops}.get(compute_dtype(gpu, weights_dtype), gpu.bf16_flops)
