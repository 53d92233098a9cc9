"""The source a computation runs: a module's file and every project module it imports, followed through the
imports, so that a cached result (a simulated run, a generated file) is keyed by the code that made it and by
nothing else. An edit to the planner, the export or the page models then leaves a simulated run's key alone,
while an edit to the step model changes it. The code is hashed as Python parses it, without comments and
docstrings, so rewording a comment changes no key.

Read from the files (Python's own parser), not from sys.modules: what a module imports is what its text says,
whatever else the process happens to have loaded.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent.parent  # the folder that holds the `macros` package


@functools.cache  # asked for every name each file imports, for each closure a build computes
def _file(module: str) -> Path | None:
    """The file of a dotted module name inside the project, or None for the standard library and packages."""
    base = PROJECT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package(path: Path) -> str:
    """The dotted package a file's relative imports start from."""
    parts = path.relative_to(PROJECT).with_suffix("").parts
    return ".".join(parts if path.name == "__init__.py" else parts[:-1]).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    """The dotted names of the project modules `path` imports (a name imported from a package may be a module)."""
    return {name for name in _imported_names(path) if _file(name) is not None}


@functools.cache  # closures of several modules share most of their files
def _imported_names(path: Path) -> tuple[str, ...]:
    """Every dotted name `path` imports or imports from, kept under .cache/ by the file's path and bytes (a build
    asks for the closures of three modules, and parsing each file for them was a tenth of its time)."""
    named = hashlib.sha256(str(path).encode() + b"\0" + path.read_bytes()).hexdigest()
    kept = CACHE_DIR / f"{named}.imports"
    try:
        return tuple(kept.read_text().split())
    except OSError:
        pass
    package = _package(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    # A script run from its folder (tools/) imports its siblings by their bare names.
    folder = ".".join(path.parent.relative_to(PROJECT).parts)
    found |= {f"{folder}.{name}" for name in found if folder and "." not in name}
    names = tuple(sorted(n for n in found if n))
    _keep(kept, "\n".join(names))
    return names


@functools.cache
def closure(module: str) -> tuple[Path, ...]:
    """The files of `module` and of every project module it imports, directly or not, sorted."""
    seen: set[Path] = set()
    todo = [module]
    while todo:
        path = _file(todo.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path))
    if not seen:
        raise ValueError(f"{module}: not a module of this project")
    return tuple(sorted(seen))


def code(path: Path) -> str:
    """The module's syntax tree as text, its docstrings dropped (comments never reach the tree)."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


CACHE_DIR = PROJECT / ".cache" / "sources"  # a file's bytes' hash -> its code's hash, so a build parses nothing new


def code_hash(path: Path) -> str:
    """sha256 of code(path), kept under .cache/ by the hash of the file's bytes (parsing every file the run
    imports is a tenth of a second a build otherwise). A cache that cannot be read or written is skipped."""
    raw = path.read_bytes()
    kept = CACHE_DIR / hashlib.sha256(raw).hexdigest()
    try:
        return kept.read_text()
    except OSError:
        pass
    value = hashlib.sha256(code(path).encode()).hexdigest()
    _keep(kept, value)
    return value


def _keep(path: Path, text: str) -> None:
    """Write `text` to `path` under .cache/, whole (renamed into place: a parallel reader never sees half of it);
    a cache that cannot be written is skipped."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=CACHE_DIR, delete=False) as fh:
            fh.write(text)
        os.replace(fh.name, path)
    except OSError:
        pass


@functools.cache
def digest(*modules: str) -> str:
    """A hash of the code of `modules` and of everything they import (each file's path and syntax tree)."""
    h = hashlib.sha256()
    for path in sorted({p for m in modules for p in closure(m)}):
        h.update(str(path.relative_to(PROJECT)).encode() + b"\0" + code_hash(path).encode() + b"\0")
    return h.hexdigest()
