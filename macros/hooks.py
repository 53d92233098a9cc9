"""MkDocs hooks (loaded by path from mkdocs.yml)."""

from __future__ import annotations

import sys
from typing import Any

from mkdocs.plugins import event_priority


# Run before the macros plugin's own on_config (priority 0), which imports `macros` and calls
# define_env(). Python caches the package in sys.modules, so without this `mkdocs serve` keeps
# showing the old figures after a formula or data edit (watched through `watch:` in mkdocs.yml).
@event_priority(100)
def on_config(config: Any) -> Any:
    for name in [n for n in sys.modules if n == "macros" or n.startswith("macros.")]:
        del sys.modules[name]
    return config
