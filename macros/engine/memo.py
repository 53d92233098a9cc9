"""Compute once per build: a result asked for twice while the site builds is worked out once.

The engine's functions are pure in their arguments and the catalog, and during a build the catalog does not
change, so the build (macros/__init__.py's define_env) switches the memo on for its whole process, and the page
models that ask for the same scenario or plan for page after page share one answer. Outside a build it is off:
the command line computes each answer once anyway, and tests that edit the catalog in place must see the edit.

Arguments are keyed by value (a model or GPU object by its fields, a dataclass by its fields, a dict by its
items), so two equal custom models share an answer and an edited one does not.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_memo: dict[Any, Any] | None = None


def switch_on() -> None:
    """From now on in this process, memoized functions remember their answers (a build: define_env)."""
    global _memo
    if _memo is None:
        _memo = {}


def switch_off() -> None:
    global _memo
    _memo = None
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


def memoized(fn: F) -> F:
    """`fn`, answered from the memo while it is on. Exceptions are not remembered: a bad input fails each time."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _memo is None:
            return fn(*args, **kwargs)
        key = (fn.__module__, fn.__qualname__, _frozen(args), _frozen(kwargs))
        try:
            return _memo[key]
        except KeyError:
            out = _memo[key] = fn(*args, **kwargs)
            return out

    return wrapper  # type: ignore[return-value]
