"""The site's computing core, in layers whose imports point one way (data ← engine ← text ← site):

    engine/  pure computation in SI units: specs, formulas, scenario, measurements, workloads
    text/    the only place a number becomes a string: fmt, show (derivations), report (calculator)
    site/    the MkDocs side: macro registration, hooks, drawings, tables, page models

mkdocs-macros imports this package and calls define_env(); see site/registry.py.
"""

from .site.registry import define_env

__all__ = ["define_env"]
