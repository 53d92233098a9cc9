"""fleet-bundle.js, generated at every build (hooks.on_files): the planner page's simulated answer, shape search,
disaggregated pools, speculative step and day of traffic (plan_all.js, autoscale/run.js and what they import) as
one classic script defining window.GpuFleet, so the page works from the offline copy (file://) too.

Unlike engine-bundle.js and serving-bundle.js (browser_engine.py), which join their modules in one scope, this
gives each module a scope of its own: planner.js and serving/sim.js both declare `workload`, and the planner's
twin needs both. A module's scope declares what it imports from the objects of the modules before it (in the
order of their imports) and returns what it exports. The modules engine-bundle.js joins (engine.js and
serving/estimate.js import each other) stay one joined scope here too, so their cycle needs no order.
"""

from __future__ import annotations

import posixpath
import re

from .browser_engine import FOLDER, MODULES, SOURCE, joined, module_body

ENTRIES = ("plan_all.js", "autoscale/run.js")  # the page's two answers; every module they import comes along
EXPORTS = {"plan_all.js": ("planAll", "planKeys"), "autoscale/run.js": ("autoscale",),
           "autoscale/fluid.js": ("POLICIES",), "autoscale/signals.js": ("SIGNALS",), "shapes.js": ("shapeLabel",),
           "rules.js": ("InputError",), "serving/run.js": ("run",)}
CORE = "core"  # the joined scope of MODULES

IMPORT = re.compile(r'^import \{([^}]*)\} from "([^"]+)";', re.M)
EXPORTED = re.compile(r"^export (?:async )?(?:function\*?|const|let|var|class) ([A-Za-z_$][\w$]*)", re.M)
REEXPORT = re.compile(r'^export \{([^}]*)\} from "[^"]+";', re.M)


def _imports(name: str, text: str) -> list[tuple[str, str, str]]:
    """(imported name, local name, module path) for each name `name` imports."""
    out = []
    for names, spec in IMPORT.findall(text):
        where = posixpath.normpath(posixpath.join(posixpath.dirname(name), spec))
        for part in filter(None, (p.strip() for p in names.split(","))):
            imported, _, local = part.partition(" as ")
            out.append((imported.strip(), (local or imported).strip(), where))
    return out


def _unit(name: str) -> str:
    return CORE if name in MODULES else name


def _order() -> list[str]:
    """Every module the entries need, each after the modules it imports (the joined core first)."""
    done: list[str] = [CORE]

    def visit(name: str, path: tuple[str, ...]) -> None:
        unit = _unit(name)
        if unit in done:
            return
        if name in path:
            raise ValueError(f"{FOLDER}/{name} imports itself through {' -> '.join(path)}: "
                             "join the cycle's modules in one scope")
        for _, _, dep in _imports(name, (SOURCE / name).read_text()):
            visit(dep, (*path, name))
        done.append(unit)

    for entry in ENTRIES:
        visit(entry, ())
    return done


def _scope(name: str) -> str:
    text = (SOURCE / name).read_text()
    lines = [f'  var {local} = M["{_unit(where)}"].{imported};' for imported, local, where in _imports(name, text)]
    names = EXPORTED.findall(text)
    return (f'M["{name}"] = (function () {{\n' + "\n".join(lines) + "\n" + module_body(text)
            + f"\nreturn {{ {', '.join(names)} }};\n}})();\n")


def _core() -> str:
    names = [n for m in MODULES for n in EXPORTED.findall((SOURCE / m).read_text())]
    names += [n.strip() for m in MODULES for group in REEXPORT.findall((SOURCE / m).read_text())
              for n in group.split(",") if n.strip() not in names]
    return (f'M["{CORE}"] = (function () {{\n' + "".join(joined(MODULES))
            + f"\nreturn {{ {', '.join(dict.fromkeys(names))} }};\n}})();\n")


def bundle() -> str:
    parts = [_core() if unit == CORE else _scope(unit) for unit in _order()]
    api = ", ".join(f'{n}: M["{_unit(m)}"].{n}' for m, names in EXPORTS.items() for n in names)
    return ("// Generated from the planner's twin (plan_all.js, autoscale/run.js and their imports) by "
            "macros/site/fleet_bundle.py: edit those.\n"
            f"(function () {{\nvar M = {{}};\n{''.join(parts)}\nwindow.GpuFleet = {{ {api} }};\n}})();\n")


def site_files() -> dict[str, str]:
    return {f"{FOLDER}/fleet-bundle.js": bundle()}
