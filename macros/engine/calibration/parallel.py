"""The calibration's independent pieces of work on every core: each measured run's simulation, each Server row's
capacity search and each cross-validation fold reads only its own inputs and is seeded, so its answer is the same
in any order and on any number of workers (tests/engine/serving/test_calibration_parallel.py holds them to the
serial ones). `make calibrate` spends most of its time in them; the build and the suite never call them with more
than one worker.

The workers are forked, so they inherit the large shared inputs (the measured runs, their replicas) instead of
receiving a pickled copy per task; only the item and the answer cross between processes.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

WORKERS = 1  # tools/calibrate.py raises it to the machine's cores

_shared: Any = None
_in_worker = False


def map_shared(fn: Callable[[Any, Any], Any], shared: Any, items: Iterable[Any]) -> Iterator[Any]:
    """fn(shared, item) for each item, in order, on up to WORKERS forked processes (fn: a module-level function).
    Serial with one worker, inside a worker (no pools within pools) and where the platform cannot fork."""
    items = list(items)
    n = min(WORKERS, len(items))
    if n <= 1 or _in_worker or "fork" not in multiprocessing.get_all_start_methods():
        yield from (fn(shared, x) for x in items)
        return
    global _shared
    _shared = shared
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"), initializer=_enter) as pool:
            yield from pool.map(_call, [fn] * len(items), items)
    finally:
        _shared = None


def _enter() -> None:
    global _in_worker
    _in_worker = True


def _call(fn: Callable[[Any, Any], Any], item: Any) -> Any:
    return fn(_shared, item)
