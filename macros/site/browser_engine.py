"""The files the browser calculator loads, generated at every build (hooks.on_files):

- catalog.json: the presets (macros/engine/export.py), for Node and for any reader's own tools;
- catalog.js and engine-bundle.js: the same catalog and the ES modules rules.js, engine.js and
  planner.js as classic scripts. A page opened from disk (the offline copy, file://) may not load ES
  modules or fetch JSON, so the calculator's pages load these instead. The bundle is the modules joined
  with their import and export keywords dropped (and their re-exports, which name what is already in
  scope): the same code, with no bundler to install.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..engine.export import catalog_json

SOURCE = Path(__file__).resolve().parents[2] / "docs" / "assets" / "javascripts" / "calculator"
FOLDER = "assets/javascripts/calculator"
MODULES = ("rules.js", "engine.js", "planner.js")  # in dependency order
EXPORTS = ("InputError", "PlanError", "scenario", "plan", "workload", "SECONDS_PER_DAY",
           # the rules of validation (rules.js), for the forms: a field's text read and checked as the engine would
           "RuleError", "fromText", "parseText", "checkValue", "checkObject", "checkAcross", "expected", "shown")


def bundle() -> str:
    """rules.js, engine.js and planner.js as one classic script defining window.GpuMath."""
    parts = []
    for name in MODULES:
        text = (SOURCE / name).read_text()
        text = re.sub(r"^export \{[^}]*\} from .*?;\n", "", text, flags=re.M)
        text = re.sub(r"^import .*?;\n", "", text, flags=re.M | re.S)
        parts.append(re.sub(r"^export ", "", text, flags=re.M))
    names = ", ".join(EXPORTS)
    return ("// Generated from rules.js, engine.js and planner.js by macros/site/browser_engine.py: edit those.\n"
            f"(function () {{\n{''.join(parts)}\nwindow.GpuMath = {{ {names} }};\n}})();\n")


def site_files() -> dict[str, str]:
    catalog = json.dumps(catalog_json(), separators=(",", ":"))
    return {f"{FOLDER}/catalog.json": catalog, f"{FOLDER}/catalog.js": f"window.GpuMathCatalog = {catalog};\n",
            f"{FOLDER}/engine-bundle.js": bundle()}
