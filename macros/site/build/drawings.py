"""Drawings rendered at build time: architecture diagrams and charts, one module each under
diagrams/, cached by a hash of everything they depend on.

A drawing module defines
    FORMAT = "svg" (or "png")
    ALT = "what the picture shows, for alt text"   (a string, or a function of the variant)
    def render(out: Path, variant: str | None) -> None   writes the picture to `out`
and optionally VARIANTS, a function returning a list of keys (say one per GPU in the data), in
which case each variant renders to <name>-<variant>.<FORMAT>, and NARROW = True: the module also
draws a narrow form for a phone's column (diagrams/_style.py's NARROW is set while it renders),
<stem>-narrow.<FORMAT>, which the page shows below a tablet's width instead of the wide one; and
PREPARE, a tuple of cached functions (a simulated day, a sweep) the build calls once before it renders
the drawings in parallel, so that no worker works them out again. Labels
come from macros, so a spec change redraws them, and a GPU added to the data adds its variant. The
hook adds each rendered file to the site as assets/drawings/<name>.<FORMAT>; nothing is written into
docs/ (which would make `mkdocs serve` rebuild in a loop) and nothing rendered is committed. Pages
place them with the `figure` macro (figures.py).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import multiprocessing
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import Future, ProcessPoolExecutor
from functools import cache, lru_cache
from pathlib import Path
from types import ModuleType

from ...engine.memo import memoized

ROOT = Path(__file__).resolve().parents[3]
DRAWINGS_DIR = ROOT / "diagrams"
CACHE_DIR = ROOT / ".cache" / "drawings"
SITE_DIR = "assets/drawings"
# DRAWINGS=off skips rendering (placeholders keep links valid): the baseline `make bench`
# compares a no-change rebuild against.
ENABLED = os.environ.get("DRAWINGS", "on") != "off"
# DRAWINGS_ONLY=name,name renders only those drawings (the rest become placeholders): for an author
# working on one drawing, and for the test that a spec change redraws without redrawing all of them.
ONLY = {n for n in os.environ.get("DRAWINGS_ONLY", "").split(",") if n}


def drawn(name: str) -> bool:
    return ENABLED and (not ONLY or name in ONLY)
_PLACEHOLDER_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'


class DrawingError(RuntimeError):
    """A drawing failed to load or render; the message names the module."""


def discover() -> dict[str, Path]:
    """name -> module path, for every diagrams/*.py not starting with an underscore."""
    return {p.stem: p for p in sorted(DRAWINGS_DIR.glob("*.py")) if not p.stem.startswith("_")}


@cache
def load(name: str) -> ModuleType:
    """The drawing module, imported once per build (the hook and the figure macro share it)."""
    paths = discover()
    if name not in paths:
        raise DrawingError(f"unknown drawing {name!r}; diagrams/ has: {', '.join(paths) or 'none'}")
    spec = importlib.util.spec_from_file_location(f"drawing_{name.replace('-', '_')}", paths[name])
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise DrawingError(f"diagrams/{name}.py: {type(exc).__name__}: {exc}") from exc
    for attr in ("FORMAT", "ALT", "render"):
        if not hasattr(module, attr):
            raise DrawingError(f"diagrams/{name}.py: defines no {attr}")
    return module


def shared(name: str = "_style") -> ModuleType:
    """A helper module under diagrams/ (its name starts with "_"), loaded by path once: drawings
    cannot import it by name, because diagrams/ has no __init__.py. One module object per name, however
    it is asked for (`shared()` and `shared("_style")` alike), so a setting such as its NARROW reaches
    every drawing."""
    return _shared(name)


@cache
def _shared(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"diagrams{name}", DRAWINGS_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variants(module: ModuleType) -> list[str | None]:
    return list(module.VARIANTS()) if hasattr(module, "VARIANTS") else [None]


def file_stem(name: str, variant: str | None, narrow: bool = False) -> str:
    stem = name if variant is None else f"{name}-{variant}"
    return f"{stem}-narrow" if narrow else stem


def forms(module: ModuleType) -> tuple[bool, ...]:
    """The forms a drawing is drawn in: wide, and narrow too when the module offers one."""
    return (False, True) if getattr(module, "NARROW", False) else (False,)


def pictures() -> list[tuple[str, str | None, bool]]:
    """Every picture the drawings draw: (name, variant, narrow) for each variant of each, in each of its forms."""
    return [(name, variant, narrow) for name in discover() for variant in variants(load(name))
            for narrow in forms(load(name))]


def alt_text(name: str, variant: str | None = None) -> str:
    alt = load(name).ALT
    return alt(variant) if callable(alt) else alt


# What every drawing's picture may depend on, besides its own module: the engine and text layers
# (the figures and how they are written), the drawing pipeline itself, the shared helpers, the
# spec data and the libraries. Not the rest of the site layer (tables, pages), not the
# measurements, and not claims.toml or the design files as a whole: a drawing names the claims it
# reads in CLAIMS and the design workload files (macros/data/designs/<slug>.toml) in DESIGNS. A
# drawing that imports a page model (a design's) has the page models in its key, not the tables.
_CODE = ("macros/engine", "macros/text")
_DATA_NOT_DRAWN = ("claims.toml", "measurements.toml")


@lru_cache(maxsize=1)
def _environment_fingerprint() -> bytes:
    h = hashlib.sha256()
    for package in ("diagrams", "matplotlib", "graphviz", "numpy"):
        h.update(f"{package}={importlib.metadata.version(package)}\n".encode())
    dot = shutil.which("dot")
    if dot:
        h.update(subprocess.run([dot, "-V"], capture_output=True, text=True).stderr.encode())
    paths = [Path(__file__)]
    for folder in _CODE:
        paths += sorted((ROOT / folder).rglob("*.py"))
    paths += [p for p in sorted((ROOT / "macros" / "data").glob("*.toml")) if p.name not in _DATA_NOT_DRAWN]
    paths += sorted((ROOT / "macros" / "data" / "topics").glob("*.toml"))  # the later chapters' own data
    paths += sorted(DRAWINGS_DIR.glob("_*.py"))
    for path in paths:
        name = path.relative_to(path.parent.parent).as_posix()
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.digest()


def claims_read(name: str) -> tuple[str, ...]:
    """The claims (data/claims.toml keys) a drawing reads: its own CLAIMS, the shared helper's and
    the engine's. tests/site/test_drawings.py checks the declaration against what a render reads."""
    from ...engine.model.scenario import CLAIMS as ENGINE_CLAIMS

    return tuple(sorted({*ENGINE_CLAIMS, *getattr(shared(), "CLAIMS", ()), *getattr(load(name), "CLAIMS", ())}))


@memoized  # once per drawing and build: it reads the drawing's code and, for some, every page model's
def fingerprint(name: str) -> str:
    from ...engine.specs import catalog

    h = hashlib.sha256(_environment_fingerprint())
    h.update(discover()[name].read_bytes())
    claims = catalog().claims
    for key in claims_read(name):
        h.update(f"{key}={claims[key]!r}".encode())
    source = discover()[name].read_text()
    if "macros.site.pages" in source:  # a drawing that reads a page model: the page models are in its key
        site = ROOT / "macros" / "site"
        for path in [*sorted((site / "pages").glob("*.py")), site / "markdown.py"]:
            h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    for slug in getattr(load(name), "DESIGNS", ()):
        h.update(slug.encode() + b"\0" + (ROOT / "macros" / "data" / "designs" / f"{slug}.toml").read_bytes())
    return h.hexdigest()[:16]


def render(name: str, out_dir: Path, variant: str | None = None, narrow: bool = False) -> Path:
    """Render one drawing (one variant of it, in one form) into out_dir, ignoring the cache."""
    module = load(name)
    if variant not in variants(module):
        raise DrawingError(f"diagrams/{name}.py: no variant {variant!r}; it has {variants(module)}")
    if narrow not in forms(module):
        raise DrawingError(f"diagrams/{name}.py: draws no narrow form (set NARROW = True)")
    out = out_dir / f"{file_stem(name, variant, narrow)}.{module.FORMAT}"
    style = shared()
    style.NARROW = narrow
    try:
        module.render(out, variant)
    except Exception as exc:
        raise DrawingError(f"diagrams/{name}.py: render failed: {type(exc).__name__}: {exc}") from exc
    finally:
        style.NARROW = False
    if not out.is_file():
        raise DrawingError(f"diagrams/{name}.py: render() wrote no {out.name}")
    return out


def _cache_hit(name: str, variant: str | None = None, narrow: bool = False) -> Path | None:
    """The cached file for the drawing's current inputs, or None."""
    return next(CACHE_DIR.glob(f"{file_stem(name, variant, narrow)}.{fingerprint(name)}.*"), None)


def _cache_path(name: str, variant: str | None, narrow: bool) -> Path:
    """Where the picture for the drawing's current inputs is, or will be once rendered."""
    return CACHE_DIR / f"{file_stem(name, variant, narrow)}.{fingerprint(name)}.{load(name).FORMAT}"


def cached(name: str, variant: str | None = None, narrow: bool = False) -> tuple[Path, bool]:
    """The rendered file, rendering only on a cache miss (or waiting for the background render of it,
    when start() set one going). Returns (path, whether it rendered)."""
    pending = _pending.get((name, variant, narrow))
    if pending is not None:
        pending.result()  # its DrawingError, if the child's render failed
    return _render_on_miss(name, variant, narrow)


def _render_on_miss(name: str, variant: str | None, narrow: bool) -> tuple[Path, bool]:
    hit = _cache_hit(name, variant, narrow)
    if hit is not None:
        return hit, False
    final = _cache_path(name, variant, narrow)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
        out = render(name, Path(tmp), variant, narrow)
        # Another build (a parallel test worker) may render the same drawing at the same time: leave
        # the current key's file to the atomic replace, so a reader never finds it missing. (The key
        # is hex, so "<stem>.*.*" never matches another drawing's "<stem>-narrow.<key>.svg".)
        for stale in CACHE_DIR.glob(f"{file_stem(name, variant, narrow)}.*.*"):
            if stale.name != final.name:
                stale.unlink(missing_ok=True)
        out.replace(final)
    return final, True


# The background renders of a build: (name, variant, narrow) -> the child's future, and the pool.
_pending: dict[tuple[str, str | None, bool], Future] = {}
_pools: list[ProcessPoolExecutor] = []
_FIGURE_CALL = re.compile(r"figure\(\s*['\"]([\w-]+)['\"]")


def usage_order(pages: list[Path]) -> list[str]:
    """The drawings in the order the pages (in the order given) first place them."""
    names: dict[str, None] = {}
    for page in pages:
        names.update(dict.fromkeys(_FIGURE_CALL.findall(page.read_text(encoding="utf-8"))))
    return list(names)


def start(order: list[str] | None = None) -> None:
    """Set every drawn picture missing from the cache rendering in the background, on all the machine's
    cores, while the build renders the pages: a clean build draws about twice the CPU time its pages take,
    and one after the other the two took most of its time. They are queued in `order` (the order the
    pages place them). A page waits for its own pictures only when it is written, after every page is
    rendered (figures.fill, whose sizes they set), and the build for the rest at its end (write_queued).
    On one core, nothing starts: each picture is rendered when first asked for (render_unqueued)."""
    misses = [picture for picture in pictures() if drawn(picture[0]) and _cache_hit(*picture) is None]
    workers = min(len(misses), os.cpu_count() or 1)
    if workers < 2:
        return
    # A drawing's PREPARE names the cached engine results it shares with other drawings and with its page (a
    # simulated day, a sweep, the validation's runs): worked out once here, before the fork, every child
    # inherits them, and the pages reuse them, instead of each child working them out again.
    prepared = {fn for name in {m[0] for m in misses} for fn in getattr(load(name), "PREPARE", ())}
    for fn in sorted(prepared, key=lambda fn: f"{fn.__module__}.{fn.__qualname__}"):
        fn()
    rank = {name: n for n, name in enumerate(order or ())}
    misses.sort(key=lambda miss: rank.get(miss[0], len(rank)))
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    _pools.append(pool)
    for miss in misses:
        _pending[miss] = pool.submit(_render_on_miss, *miss)


def render_unqueued() -> None:
    """Render every drawn picture that is neither cached nor queued in the background: all of them on one
    core (start() queued none), else none. The site copies its files after this (hooks.on_env)."""
    for picture in pictures():
        if drawn(picture[0]) and picture not in _pending:
            _render_on_miss(*picture)


def write_queued(site_dir: Path) -> None:
    """Wait for the background renders (a child's DrawingError is raised here, with its one line), write each
    picture into the built site over the empty file that stood in for it, and close the pool."""
    try:
        for (name, variant, narrow) in list(_pending):
            target = site_dir / f"{SITE_DIR}/{file_stem(name, variant, narrow)}.{load(name).FORMAT}"
            shutil.copyfile(cached(name, variant, narrow)[0], target)
    finally:
        stop()


def stop() -> None:
    """Close the pool without waiting for what it has not started (a build that failed)."""
    _pending.clear()
    while _pools:
        _pools.pop().shutdown(wait=True, cancel_futures=True)


def site_files() -> dict[str, Path | bytes]:
    """site path -> rendered file, or bytes: the placeholder when drawing is off, and an empty file for a
    picture start() is still rendering, which write_queued() replaces once the pages are written."""
    files: dict[str, Path | bytes] = {}
    for picture in pictures():
        uri = f"{SITE_DIR}/{file_stem(*picture)}.{load(picture[0]).FORMAT}"
        if not drawn(picture[0]):
            files[uri] = _PLACEHOLDER_SVG
        else:
            files[uri] = b"" if picture in _pending else _cache_path(*picture)
    return files


_SVG_SIZE = re.compile(rb'<svg[^>]*?\swidth="([\d.]+)(pt|px)?"[^>]*?\sheight="([\d.]+)(pt|px)?"')
_CSS_PX_PER = {b"pt": 96 / 72, b"px": 1.0, None: 1.0}


def css_size(path: Path) -> tuple[int, int]:
    """A rendered file's natural size in CSS pixels: the <img> width and height, which let the
    browser reserve the space before the picture arrives (a lazy image then moves nothing)."""
    data = path.read_bytes()
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    found = _SVG_SIZE.search(data[:4000])
    if not found:
        raise DrawingError(f"{path.name}: no width and height on its <svg> element")
    width, wunit, height, hunit = found.groups()
    return round(float(width) * _CSS_PX_PER[wunit]), round(float(height) * _CSS_PX_PER[hunit])


def placed_size(name: str, variant: str | None = None, narrow: bool = False) -> tuple[int, int] | None:
    """The CSS size of a drawing as the site shows it; None when drawing is off (placeholders)."""
    return css_size(cached(name, variant, narrow)[0]) if drawn(name) else None
