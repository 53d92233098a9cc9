"""No two engine modules define a public class or function of the same name, so a name says which thing it is
wherever it is imported (a fleet's `Plan` is never a step's). A name a package's __init__ re-exports from its
modules (formulas/__init__.py's star-imports) is its module's, counted once."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "macros" / "engine"


def public_definitions() -> dict[str, list[str]]:
    """Each public class or function name defined at the top of an engine module, with the modules defining it."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.parse(path.read_text(), str(path)).body:
            if (isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                    and not node.name.startswith("_")):
                where[node.name].append(path.relative_to(ENGINE).as_posix())
    return where


def test_no_two_engine_modules_define_the_same_public_name():
    duplicates = {name: paths for name, paths in public_definitions().items() if len(paths) > 1}
    assert not duplicates, f"public names defined in more than one engine module: {duplicates}"


def test_the_check_sees_the_engine():
    names = public_definitions()
    assert names["scenario"] == ["model/scenario.py"] and names["plan"] == ["fleet/planner.py"]
