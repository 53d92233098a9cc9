"""Simulated runs kept on disk, so that a rebuild, or a second `gpu_math.py plan` of the same workload, costs
nothing: a run's statistics under .cache/simulations/, in a file named by a hash of everything that decides
them: the run's request (every field), and the bytes of the engine's code and of the data files it reads
(calibration.toml, engines.toml, the GPUs, the models, the formats). Change any of them and the name
changes, so a stale result is never read. Each name starts with the code's and data's hash, and the
first run a process stores deletes the files that start with another.

Not computation: the one place the engine writes a file. A cache that cannot be written (a read-only
tree) is skipped, and the run is simulated each time.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..specs import DATA_DIR
from .run import RunRequest, run

ENGINE_DIR = Path(__file__).resolve().parent.parent
CACHE_DIR = ENGINE_DIR.parent.parent / ".cache" / "simulations"


@functools.lru_cache(maxsize=1)
def inputs_digest() -> str:
    """A hash of the engine's code (macros/engine/**/*.py) and of the data files beside the designs."""
    h = hashlib.sha256()
    for path in sorted([*ENGINE_DIR.rglob("*.py"), *DATA_DIR.glob("*.toml")]):
        h.update(str(path.relative_to(ENGINE_DIR.parent)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def key(q: RunRequest) -> str:
    """The run's file name (without .json): the inputs' hash, then the request's with them."""
    text = json.dumps({"request": dataclasses.asdict(q), "inputs": inputs_digest()}, sort_keys=True)
    return f"{inputs_digest()[:16]}-{hashlib.sha256(text.encode()).hexdigest()}"


@functools.lru_cache(maxsize=1)
def _prune() -> None:
    """Once a process: delete the runs of other code or data, which no name can reach again."""
    for old in CACHE_DIR.glob("*.json"):
        if not old.name.startswith(inputs_digest()[:16]):
            old.unlink(missing_ok=True)


def cached_run(q: RunRequest) -> dict[str, Any]:
    """run(q), read from the cache when this exact run was simulated before, else simulated and stored."""
    path = CACHE_DIR / f"{key(q)}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):  # not there yet (or cut short by a crash): simulate it
        pass
    out = run(q)
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        _prune()
        # Written beside its final name and renamed, so a parallel reader never sees half a file.
        with tempfile.NamedTemporaryFile("w", dir=CACHE_DIR, suffix=".tmp", delete=False) as fh:
            fh.write(json.dumps(out, allow_nan=False))
        os.replace(fh.name, path)
    except OSError:
        pass
    return out
