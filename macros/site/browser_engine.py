"""The files the browser calculator loads, generated at every build (hooks.on_files):

- catalog.json: the presets and the rules of validation (macros/engine/export.py), and the formatting
  rule's figures and unit steps (macros/text/fmt.py RULES, as "format"), for Node and any reader's tools;
- catalog.js and engine-bundle.js: the same catalog and the ES modules rules.js, engine.js and
  planner.js as classic scripts, with format.js as window.GpuMath.format (its own scope: its names, such
  as `ms`, are also the planner's). A page opened from disk (the offline copy, file://) may not load ES
  modules or fetch JSON, so the calculator's pages load these instead. The bundle is the modules joined
  with their import and export keywords dropped (and their re-exports, which name what is already in
  scope): the same code, with no bundler to install;
- serving-bundle.js: the serving model's twin (serving/*.js, with the rules.js and engine.js it imports) as
  window.GpuServing, for the Load explorer, in a scope of its own (sim.js's `workload` is not planner.js's).
Joined modules share one scope, so a name two of them declare would shadow the other silently: the build
refuses that.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..engine.export import catalog_json
from ..text import fmt

SOURCE = Path(__file__).resolve().parents[2] / "docs" / "assets" / "javascripts" / "calculator"
FOLDER = "assets/javascripts/calculator"
# engine.js's scenario() takes the fitted step model's estimate from serving/estimate.js, which imports it
# back: joined in one scope, the cycle is harmless (each calls the other only when run, never when loaded).
ESTIMATE_MODULES = tuple(f"serving/{name}.js" for name in (
    "types", "families", "profiles", "calibration", "replica", "step", "estimate"))
MODULES = ("rules.js", "engine.js", *ESTIMATE_MODULES, "planner.js")  # in dependency order
EXPORTS = ("InputError", "PlanError", "scenario", "plan", "workload", "SECONDS_PER_DAY",
           # the rules of validation (rules.js), for the forms: a field's text read and checked as the engine would
           "RuleError", "fromText", "parseText", "checkValue", "checkObject", "checkAcross", "expected", "shown",
           "format")
SERVING_MODULES = ("rules.js", "engine.js", *(f"serving/{name}.js" for name in (
    "prng", "lengths", "types", "heap", "arrivals", "families", "profiles", "calibration", "replica", "kv_blocks",
    "step", "estimate", "scheduler", "sim", "metrics", "run", "sweep")))  # in dependency order
SERVING_EXPORTS = ("InputError", "run", "runRequest", "simulateRun", "sweep", "point", "knee", "SWEEP_FRACTIONS")
FORMAT_EXPORTS = ("roundSig", "num", "count", "si", "seconds", "ms", "usd", "pct", "times", "tokensPerS", "flopsRate")


def module_body(text: str) -> str:
    """An ES module's code without its import and export keywords (and its re-exports): what a bundle of
    classic scripts joins, here and in practice_assets."""
    text = re.sub(r"^export \{[^}]*\} from .*?;\n", "", text, flags=re.M)
    text = re.sub(r"^import .*?;\n", "", text, flags=re.M | re.S)
    return re.sub(r"^export ", "", text, flags=re.M)


DECLARED = re.compile(r"^(?:async )?(?:function\*?|const|let|var|class) ([A-Za-z_$][\w$]*)", re.M)


def joined(names: tuple[str, ...]) -> list[str]:
    """The modules' bodies, refusing a top-level name that two of them declare (one scope: it would shadow)."""
    bodies = [module_body((SOURCE / name).read_text()) for name in names]
    seen: dict[str, str] = {}
    for name, body in zip(names, bodies, strict=True):
        for declared in DECLARED.findall(body):
            if declared in seen:
                raise ValueError(f"{FOLDER}/{name} declares {declared!r}, as {seen[declared]} does: the bundle "
                                 "joins them in one scope, so rename one")
            seen[declared] = name
    return bodies


def bundle() -> str:
    """rules.js, engine.js (with the serving modules its estimate needs) and planner.js as one classic script
    defining window.GpuMath, and format.js as GpuMath.format."""
    parts = joined(MODULES)
    parts.append(f"var format = (function () {{\n{module_body((SOURCE / 'format.js').read_text())}\n"
                 f"return {{ {', '.join(FORMAT_EXPORTS)} }};\n}})();\n")
    names = ", ".join(EXPORTS)
    return ("// Generated from rules.js, engine.js, planner.js and format.js by macros/site/browser_engine.py: "
            "edit those.\n"
            f"(function () {{\n{''.join(parts)}\nwindow.GpuMath = {{ {names} }};\n}})();\n")


def serving_bundle() -> str:
    """The serving twin and what it imports as one classic script defining window.GpuServing."""
    return ("// Generated from rules.js, engine.js and serving/*.js by macros/site/browser_engine.py: edit those.\n"
            f"(function () {{\n{''.join(joined(SERVING_MODULES))}\n"
            f"window.GpuServing = {{ {', '.join(SERVING_EXPORTS)} }};\n}})();\n")


def site_files() -> dict[str, str]:
    catalog = json.dumps({**catalog_json(), "format": fmt.RULES}, separators=(",", ":"), allow_nan=False)
    return {f"{FOLDER}/catalog.json": catalog, f"{FOLDER}/catalog.js": f"window.GpuMathCatalog = {catalog};\n",
            f"{FOLDER}/engine-bundle.js": bundle(), f"{FOLDER}/serving-bundle.js": serving_bundle()}
