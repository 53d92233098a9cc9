"""Compute once per build: a result asked for twice while the site builds is worked out once.

The engine's functions are pure in their arguments and the catalog, and during a build the catalog does not
change, so the build (macros/__init__.py's define_env) switches the memo on for its whole process, and the page
models that ask for the same scenario or plan for page after page share one answer. Outside a build it is off:
the command line computes each answer once anyway, and tests that edit the catalog in place must see the edit.

Arguments are keyed by value (a model or GPU object by its fields, a dataclass by its fields, a dict by its
items), so two equal custom models share an answer and an edited one does not.

A function memoized with `keep=True` (a design's serving-model answer: seconds of work a build) also keeps its
answers on disk between builds when the build names a folder for them: each named by the arguments' value, the
code the function runs (sources.digest of its module) and the data (every file under macros/data/ but the
simulations memo, whose runs are named by their own inputs). A rebuild whose code and data did not change reads
them; any edit to either names every answer afresh.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from . import sources
from .specs import DATA_DIR

F = TypeVar("F", bound=Callable[..., Any])
_memo: dict[Any, Any] | None = None
_kept_in: Path | None = None
KEPT_ANSWERS = 1000  # past this many files in the folder, switching on deletes the oldest half


def switch_on(keep_in: Path | None = None) -> None:
    """From now on in this process, memoized functions remember their answers (a build: define_env); those
    memoized with keep=True also keep them in the folder `keep_in`, between builds."""
    global _memo, _kept_in
    if _memo is None:
        _memo = {}
    _kept_in = keep_in
    if keep_in is not None and keep_in.is_dir():
        files = sorted(keep_in.glob("*.pickle"), key=lambda f: f.stat().st_mtime)
        for old in files[: len(files) // 2] if len(files) > KEPT_ANSWERS else ():
            old.unlink(missing_ok=True)


def switch_off() -> None:
    global _memo, _kept_in
    _memo, _kept_in = None, None
    _frozen_objects.clear()


# A frozen dataclass's value, worked out once per object while the memo is on (the object is kept, so its id is
# not reused): the same model or workload is handed to scenario() and plan() thousands of times a build.
_frozen_objects: dict[int, tuple[Any, Any]] = {}


def _frozen(x: Any) -> Any:
    """A hashable value standing for `x`'s value."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        if (known := _frozen_objects.get(id(x))) is not None and known[0] is x:
            return known[1]
        value = (type(x).__qualname__, *(_frozen(getattr(x, f.name)) for f in dataclasses.fields(x)))
        if type(x).__dataclass_params__.frozen:
            _frozen_objects[id(x)] = (x, value)
        return value
    if isinstance(x, dict):
        return ("dict", *sorted((k, _frozen(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, *(_frozen(v) for v in x))
    hash(x)  # anything else must be hashable as it is: a TypeError here is a function this should not memoize
    return (type(x).__name__, x)  # 1 and 1.0 and True stay apart


def memoized(fn: F | None = None, *, keep: bool = False) -> Any:
    """`fn`, answered from the memo while it is on (and, with keep=True, from the build's folder of kept answers).
    Exceptions are not remembered: a bad input fails each time."""
    if fn is None:
        return functools.partial(memoized, keep=keep)
    if getattr(fn, "memoized", None) == keep:  # already memoized (a page model the registry wraps as well)
        return fn

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _memo is None:
            return fn(*args, **kwargs)
        key = (fn.__module__, fn.__qualname__, _frozen(args), _frozen(kwargs))
        try:
            return _memo[key]
        except KeyError:
            pass
        path = _kept_path(fn, key) if keep and _kept_in is not None else None
        out = _read(path) if path is not None else None
        if out is None:
            out = fn(*args, **kwargs)
            if path is not None:
                _write(path, out)
        _memo[key] = out
        return out

    wrapper.memoized = keep
    return wrapper


def _kept_path(fn: Callable[..., Any], key: tuple) -> Path | None:
    """Where a kept answer lives: named by the key's value, the function's code and the data. None when the key's
    text is not its value (an object shown by its address)."""
    text = repr(key)
    if " at 0x" in text:
        return None
    try:
        code = sources.digest(fn.__module__)
    except ValueError:  # not a module of the project (a function a test defines): nothing to name it by
        return None
    name = hashlib.sha256(f"{code}\0{data_digest()}\0{text}".encode()).hexdigest()
    return _kept_in / f"{fn.__qualname__}-{name}.pickle"


@functools.cache
def data_digest() -> str:
    """A hash of every data file but the simulations memo (whose runs are named by their inputs)."""
    h = hashlib.sha256()
    for path in sorted(p for p in DATA_DIR.rglob("*") if p.is_file() and "simulated" not in p.relative_to(
            DATA_DIR).parts):
        h.update(path.relative_to(DATA_DIR).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _read(path: Path) -> Any:
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # not there, or cut short, or of a class since renamed: computed again
        return None


def _write(path: Path, out: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside its final name and renamed, so a parallel build never reads half a file.
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".tmp", delete=False) as fh:
            pickle.dump(out, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(fh.name, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):  # a folder it cannot write, or no pickle
        pass
