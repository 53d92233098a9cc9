"""The JavaScript twin sits in the engine's folders (ARCHITECTURE.md, the twin): every ES module under
docs/assets/javascripts/calculator/ that mirrors an engine module is at the same relative path as its Python
module under macros/engine/ (serving/step.js beside serving/step.py, fleet/planner.js beside fleet/planner.py).
The files with no engine module are listed here, each with the reason; a new one joins the list or its twin."""

from __future__ import annotations

from conftest import ROOT

CALCULATOR = ROOT / "docs" / "assets" / "javascripts" / "calculator"
ENGINE = ROOT / "macros" / "engine"

# The calculator's files that mirror no engine module, and why.
NOT_MIRRORS = {
    # the pages' interface: classic scripts (no imports) that read the forms and draw the answers
    "ui.js": "loads the forms on the Calculator, 'Plan a fleet' and Load explorer pages",
    "forms.js": "what the forms share: fields, the URL's state, messages",
    "calc-form.js": "the Calculator page's form",
    "plan-form.js": "the 'Plan a fleet' page's form",
    "fleet-form.js": "the planner page's simulated answer, shapes and day of traffic, drawn",
    "load-form.js": "the Load explorer's form",
    "charts.js": "the Calculator's two charts, as SVG",
    # the text layer's twin, not the engine's
    "format.js": "mirrors macros/text/fmt.py (numbers as text), not an engine module",
    # JavaScript's stand-ins for what Python has built in, or joins the command line makes
    "serving/heap.js": "Python's heapq, which serving/sim.py and serving/scheduler.py import",
    "fleet/plan_all.js": "the whole `gpu_math.py plan --json`, joined as gpu_math.py's plan_main joins it",
}


def modules() -> list[str]:
    return sorted(p.relative_to(CALCULATOR).as_posix() for p in CALCULATOR.rglob("*.js"))


def test_every_mirroring_module_sits_where_its_python_module_does():
    missing = [js for js in modules() if js not in NOT_MIRRORS
               and not (ENGINE / js).with_suffix(".py").is_file()]
    assert not missing, (f"JavaScript modules with no engine module at the same path: {missing} (move the file "
                         "beside its twin's path, or list it in NOT_MIRRORS with the reason)")


def test_every_listed_exception_exists_and_has_no_twin():
    for js in NOT_MIRRORS:
        assert (CALCULATOR / js).is_file(), f"{js} is listed but gone"
        assert not (ENGINE / js).with_suffix(".py").is_file(), f"{js} mirrors an engine module: take it off the list"
