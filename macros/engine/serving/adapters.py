"""Unmerged LoRA adapters in a replica's step: what each step reads beyond the base model's weights.

A replica serving many adapters unmerged (vLLM's and SGLang's LoRA, after Punica's SGMV and S-LoRA) keeps a
slice of HBM for resident adapters and groups each step's tokens by adapter, so a step reads every distinct
adapter its sequences use once, however many share it. With requests drawing adapters independently from a
catalogue by a Zipf law, the distinct adapters among n sequences are on average Σ_i 1 - (1 - p_i)^n
(formulas.expected_distinct), and never more than the slice holds. This is random routing's count: an
affinity router that homes each adapter on fewer replicas leaves each replica fewer distinct adapters, so the
read is the upper end for that. Adapters are stored in BF16 on every linear projection ("all-linear", PEFT's
common default), whatever the base model's format. An adapter's FLOPs (about one percent of the base's at
rank 16) and its loading from host memory on a miss are left out: the first is inside the GEMM term's
rounding, the second is a TTFT cost the design prices apart.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..formulas.lora import LORA_TARGETS, expected_distinct, zipf_shares
from ..lookup import InputError
from ..model.adapters import adapter

ADAPTER_DTYPE = "bf16"  # as trained: quantising the base does not quantise its adapters


@dataclass(frozen=True)
class AdapterMix:
    """The adapters a replica serves: the catalogue requests draw from, its Zipf exponent, the rank of each,
    and the HBM (bytes, the whole replica) reserved for the resident ones."""

    catalogue: int
    popularity: float
    rank: int
    slice_bytes: float

    def __post_init__(self) -> None:
        if self.catalogue < 1 or self.rank < 1 or self.popularity < 0 or not self.slice_bytes > 0:
            raise InputError(f"adapters: a catalogue and rank of at least 1, a popularity exponent of at least 0 and "
                             f"a positive slice, got {self.catalogue}, {self.rank}, {self.popularity} and "
                             f"{self.slice_bytes} bytes")


def adapter_bytes(model: str, rank: int) -> float:
    """One adapter's bytes: rank `rank` on every linear projection of `model`, in ADAPTER_DTYPE."""
    return adapter(model, rank, LORA_TARGETS, ADAPTER_DTYPE).bytes


@functools.cache
def _shares(catalogue: int, popularity: float) -> tuple[float, ...]:
    return tuple(zipf_shares(catalogue, popularity))


@functools.cache
def distinct_adapters(catalogue: int, popularity: float, slots: int, sequences: int) -> float:
    """min(Σ_i 1 - (1 - p_i)^n, slots): the distinct adapters a step of n sequences reads, on average."""
    return min(expected_distinct(_shares(catalogue, popularity), sequences), slots)


def adapters_read(r: Any, sequences: Any) -> Any:  # r: a Replica (replica.py imports this module)
    """The distinct adapters a step of `sequences` sequences on replica `r` reads (0 without adapters). A stacked
    replica (arrays, as the fit and the shape search make) carries none: their runs have no adapters."""
    slots = r.adapter_slots
    if hasattr(slots, "shape"):
        if slots.any():
            raise ValueError("adapters_read: stacked replicas with adapters are not supported")
        return 0.0
    return distinct_adapters(r.adapter_catalogue, r.adapter_popularity, slots, int(sequences)) if slots else 0.0
