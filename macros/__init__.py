"""The site's computing core, in layers whose imports point one way (data ← engine ← text ← site):

    engine/  pure computation in SI units: specs, formulas, scenario, measurements, workloads
    text/    the only place a number becomes a string: fmt, show (derivations), report (calculator)
    site/    the MkDocs side: macro registration, hooks, drawings, tables, page models

mkdocs-macros imports this package and calls define_env(); see site/registry.py.
"""

from typing import Any

__all__ = ["define_env"]


def __getattr__(name: str) -> Any:
    """define_env, imported when mkdocs-macros asks for it: an import of the engine alone (the command lines, the
    generators, a test's worker) does not load the site's layer, a fifth of a second each."""
    if name == "define_env":
        from .site.registry import define_env

        return define_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
