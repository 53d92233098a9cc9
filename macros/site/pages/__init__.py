"""Page models: the figures one page needs, computed in Python and tested, so the page reads as prose.

Each module here defines `model()`, returning a namespace of values in SI units (fmt's filters
turn them into text on the page). A page calls it once at its top:

    {% set q = page_models.questions() %}
    ... {{ q.weight_read_one_gpu | ms }} ...

A new module registers itself: every module in this package with a `model` function is reachable
as page_models.<module name>.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import SimpleNamespace
from typing import Any

from ...engine.memo import memoized


def all_models() -> dict[str, Any]:
    """module name -> its model() function, for every page model in this package: memoized, so a model that
    several pages read (a design's, on its page, the index and the cheat sheet) is computed once a build."""
    out = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "model"):
            out[info.name] = memoized(module.model)
    return out


def register(env: Any) -> None:
    """Called by define_env(): `page_models.<page>()` for every page model."""
    env.variables["page_models"] = SimpleNamespace(**all_models())
