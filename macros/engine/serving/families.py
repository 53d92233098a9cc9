"""GPU families (data/gpu_families.toml): which architecture generation a GPU belongs to, so that a GPU with
no measured runs takes its family's fitted parameters, and the tile its attention kernels multiply in."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..lookup import InputError
from ..specs import DATA_DIR, SpecError, catalog, display_path, read_toml

PATH = DATA_DIR / "gpu_families.toml"


@dataclass(frozen=True)
class Family:
    key: str
    name: str
    gpus: tuple[str, ...]
    mma_rows: int  # rows of the tensor-core tile: fewer query heads per GPU than this pad to it
    moe_rows: int  # the fewest token rows one expert's GEMM computes
    source: str


@functools.lru_cache(maxsize=1)
def families() -> dict[str, Family]:
    where, out, seen = display_path(PATH), {}, {}
    for key, t in read_toml(PATH).items():
        for name in ("name", "gpus", "mma_rows", "moe_rows", "source"):
            if name not in t:
                raise SpecError(f"{where}: [{key}] {name}: missing field")
        for name in ("mma_rows", "moe_rows"):
            if not isinstance(t[name], int) or isinstance(t[name], bool) or t[name] < 1:
                raise SpecError(f"{where}: [{key}] {name}: must be a positive whole number, got {t[name]!r}")
        for gpu in t["gpus"]:
            if gpu not in catalog().gpus:
                raise SpecError(f"{where}: [{key}] gpus: {gpu!r} is not a gpus.toml key")
            if gpu in seen:
                raise SpecError(f"{where}: [{key}] gpus: {gpu!r} is already in [{seen[gpu]}]")
            seen[gpu] = key
        out[key] = Family(key, t["name"], tuple(t["gpus"]), t["mma_rows"], t["moe_rows"], t["source"])
    return out


def family_of(gpu: str) -> Family:
    """The family of a gpus.toml key; an error naming the families for a GPU in none."""
    for fam in families().values():
        if gpu in fam.gpus:
            return fam
    known = "; ".join(f"{f.key}: " + ", ".join(f.gpus) for f in families().values())
    raise InputError(f"GPU {gpu!r} is in no family of gpu_families.toml, so the serving model has no parameters "
                     f"for it (families: {known})")
