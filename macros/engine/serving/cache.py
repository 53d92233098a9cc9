"""Simulated runs kept on disk, so that a rebuild, or a second `gpu_math.py plan` of the same workload, costs
nothing: a run's statistics under .cache/simulations/, in a file named by a hash of what decides them and of
nothing else: the run's request (every field), what it reads from the data once resolved (the replica's numbers
from its model, GPU and formats, the engine's launch, the fitted parameters and the band on that GPU:
`run.prepare`), and the source of the modules the run imports (`sources.digest`). Change any of them and the
name changes, so a stale result is never read; change a price, the glossary, the planner or a page model and
no name changes, so nothing is simulated again; change the H100's bandwidth and only the H100's runs are.

A second, read-only place is read before it (most runs a build asks for are there): data/simulated/, the runs
the site's pages need, kept in the repository under the same names (`make generated` writes them; the
generated-files test fails when a page needs a run that is not there). A clean build then simulates nothing,
and a build on changed specs simulates what changed. A third, also read-only, comes last (SIMULATIONS_KEPT=DIR):
the test suite names tests/simulated/ there, the runs its what-if builds ask for beyond the memo's, so the
suite's copies of the project simulate nothing either.

Not computation: the one place the engine writes a file. A cache that cannot be written (a read-only
tree) is skipped, and the run is simulated each time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import sources
from ..specs import DATA_DIR, display_path
from . import run
from .run import Prepared, RunRequest, prepare

ENGINE_DIR = Path(__file__).resolve().parent.parent
# SIMULATIONS_CACHE=DIR puts the cache elsewhere: the test suite gives its copies of the project one folder, so
# that two what-ifs with the same change to a GPU simulate its runs once (the names are the runs' inputs).
CACHE_DIR = Path(os.environ.get("SIMULATIONS_CACHE") or ENGINE_DIR.parent.parent / ".cache" / "simulations")
MEMO_DIR = DATA_DIR / "simulated"
# SIMULATIONS=memo-write: runs are also stored in MEMO_DIR (make generated); =memo-only: a run missing from
# both places is an error, not a simulation (the test that the repository holds every run the pages need).
MODE = "SIMULATIONS"


class MissingRun(RuntimeError):
    """A run the memo lacks, under SIMULATIONS=memo-only."""


# The cache under .cache/ keeps at most this many runs: past it, a process's first store deletes the oldest half.
CACHE_RUNS = 4000
# SIMULATIONS_LOG=FILE: every run asked for appends its file name and where it was kept: the memo ("memo"), the
# SIMULATIONS_KEPT folder ("kept") or neither ("missing"); the generated-files checks read it from the suite's builds.
LOG = "SIMULATIONS_LOG"
KEPT = "SIMULATIONS_KEPT"


def kept_dir() -> Path | None:
    """The SIMULATIONS_KEPT folder, read when asked (the test suite sets it once its session starts)."""
    folder = os.environ.get(KEPT)
    return Path(folder) if folder else None


def code_digest() -> str:
    """The source of the run and of every project module it imports."""
    return sources.digest(run.__name__)


def key(q: RunRequest | Prepared) -> str:
    """The run's file name (without .json): a hash of the request, what it reads from the data, and the code."""
    p = q if isinstance(q, Prepared) else prepare(q)
    text = json.dumps({"reads": _reads(p), "code": code_digest()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _reads(p: Prepared) -> dict[str, Any]:
    """dataclasses.asdict(p), with each part many runs share (a replica, the fitted parameters) converted once: a
    build keys thousands of runs, and converting the same replica for each was a tenth of a warm build's time."""
    out = {}
    for f in dataclasses.fields(p):
        part = getattr(p, f.name)
        try:
            out[f.name] = _plain(part)
        except TypeError:  # unhashable (an engine profile holds a dict of sources): converted each time
            out[f.name] = plain_dict(part)
    return out


@functools.lru_cache(maxsize=1024)
def _plain(part: Any) -> Any:
    """A frozen part of a run as asdict gives it (equal parts, one conversion; nothing mutates what json reads)."""
    return plain_dict(part)


def plain_dict(part: Any) -> Any:
    """What json reads of dataclasses.asdict(part), without its deep copy: a flat dataclass (fields of numbers, strings,
    tuples of them and string mappings, as a request and an engine profile are) field by field, anything else by
    asdict. The text json writes is the same, so the names are (the memo's test finds every page's run by them);
    asdict's recursion was half of the time a build spends naming its runs."""
    if not dataclasses.is_dataclass(part):
        return part
    out = {}
    for f in dataclasses.fields(part):
        value = getattr(part, f.name)
        if type(value) not in _SCALARS:
            if type(value) is dict and _flat(value.values()):
                value = dict(value)
            elif not (type(value) is tuple and _flat(value)):
                return dataclasses.asdict(part)
        out[f.name] = value
    return out


_SCALARS = {str, int, float, bool, type(None)}


def _flat(values: Any) -> bool:
    return all(type(v) in _SCALARS or (type(v) is tuple and _flat(v)) for v in values)


@functools.lru_cache(maxsize=2)
def _prune(folder: Path) -> None:
    """Once a process and folder: when the cache holds more than CACHE_RUNS runs, delete the oldest half."""
    files = sorted(folder.glob("*.json"), key=lambda f: f.stat().st_mtime)
    if len(files) > CACHE_RUNS:
        for old in files[: len(files) // 2]:
            old.unlink(missing_ok=True)
            old.with_name(old.name + ".lock").unlink(missing_ok=True)


def _log(name: str) -> None:
    if path := os.environ.get(LOG):
        kept = kept_dir()
        held = "memo" if (MEMO_DIR / name).is_file() else "kept" if kept and (kept / name).is_file() else "missing"
        with open(path, "a") as fh:  # one short line a write: appends from parallel processes do not interleave
            fh.write(f"{name} {held}\n")


def _store(folder: Path, name: str, out: dict[str, Any]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if folder == CACHE_DIR:
            _prune(folder)
        # Written beside its final name and renamed, so a parallel reader never sees half a file.
        with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False) as fh:
            fh.write(json.dumps(out, allow_nan=False))
        os.replace(fh.name, folder / name)
    except OSError:
        pass


def _read(name: str, mode: str) -> dict[str, Any] | None:
    for folder in (MEMO_DIR, CACHE_DIR, kept_dir()):
        if folder is None:
            continue
        try:
            out = json.loads((folder / name).read_text())
        except (OSError, ValueError):  # not there (or cut short by a crash)
            continue
        if mode == "memo-write" and folder != MEMO_DIR:
            _store(MEMO_DIR, name, out)
        return out
    return None


@contextlib.contextmanager
def _only_one(name: str) -> Iterator[None]:
    """While this process simulates a run, another that asks for the same one waits for it and reads it, rather
    than simulating it beside it (parallel builds sharing one cache). No lock where the cache cannot be written."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        lock = (CACHE_DIR / f"{name}.lock").open("w")  # pruned with its run
    except OSError:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def cached_run(q: RunRequest) -> dict[str, Any]:
    """run(q), read from the cache or the memo when this exact run was simulated before, else simulated and
    stored."""
    p = prepare(q)
    name = f"{key(p)}.json"
    mode = os.environ.get(MODE, "")
    _log(name)
    if (out := _read(name, mode)) is not None:
        return out
    if mode == "memo-only":
        raise MissingRun(f"{display_path(MEMO_DIR)} lacks a run the pages need ({q.model} on {q.gpus} x {q.gpu}): "
                         "run `make generated`")
    with _only_one(name):
        if (out := _read(name, mode)) is not None:  # simulated by the process this one waited for
            return out
        out = run.run(p)
        _store(CACHE_DIR, name, out)
        if mode == "memo-write":
            _store(MEMO_DIR, name, out)
    return out
