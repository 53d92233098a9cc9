"""Simulated runs kept on disk, so that a rebuild, or a second `gpu_math.py plan` of the same workload, costs
nothing: a run's statistics under .cache/simulations/, in a file named by a hash of everything that decides
them: the run's request (every field), and the bytes of the engine's code and of the data files it reads
(calibration.toml, engines.toml, the GPUs, the models, the formats). Change any of them and the name
changes, so a stale result is never read. Each name starts with the code's and data's hash, and the
first run a process stores deletes the files that start with another.

A second, read-only place comes after it: data/simulated/, the runs the site's pages need, kept in the
repository under the same names (`make simulations` writes them; a test fails when a page needs a run that is
not there, which any change to the engine's code or data causes). A clean build then simulates nothing,
and a build on changed specs simulates what changed, as before.

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

from ..specs import DATA_DIR, display_path
from .run import RunRequest, run

ENGINE_DIR = Path(__file__).resolve().parent.parent
CACHE_DIR = ENGINE_DIR.parent.parent / ".cache" / "simulations"
MEMO_DIR = DATA_DIR / "simulated"
# SIMULATIONS=memo-write: runs are also stored in MEMO_DIR (make simulations); =memo-only: a run missing from
# both places is an error, not a simulation (the test that the repository holds every run the pages need).
MODE = "SIMULATIONS"


class MissingRun(RuntimeError):
    """A run the memo lacks, under SIMULATIONS=memo-only."""


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


@functools.lru_cache(maxsize=2)
def _prune(folder: Path) -> None:
    """Once a process and folder: delete the runs of other code or data, which no name can reach again."""
    for old in folder.glob("*.json"):
        if not old.name.startswith(inputs_digest()[:16]):
            old.unlink(missing_ok=True)


def _store(folder: Path, name: str, out: dict[str, Any]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _prune(folder)
        # Written beside its final name and renamed, so a parallel reader never sees half a file.
        with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False) as fh:
            fh.write(json.dumps(out, allow_nan=False))
        os.replace(fh.name, folder / name)
    except OSError:
        pass


def cached_run(q: RunRequest) -> dict[str, Any]:
    """run(q), read from the cache or the memo when this exact run was simulated before, else simulated and
    stored."""
    name = f"{key(q)}.json"
    mode = os.environ.get(MODE, "")
    for folder in (CACHE_DIR, MEMO_DIR):
        try:
            out = json.loads((folder / name).read_text())
        except (OSError, ValueError):  # not there (or cut short by a crash)
            continue
        if mode == "memo-write" and folder == CACHE_DIR:
            _store(MEMO_DIR, name, out)
        return out
    if mode == "memo-only":
        raise MissingRun(f"{display_path(MEMO_DIR)} lacks a run the pages need ({q.model} on {q.gpus} x {q.gpu}): "
                         "run `make simulations`")
    out = run(q)
    _store(CACHE_DIR, name, out)
    if mode == "memo-write":
        _store(MEMO_DIR, name, out)
    return out
