"""axe-core, the accessibility checker, run in a loaded page: its script is injected from the pinned
npm package (tests/package.json, installed by `make axe-deps`), so the walk needs no network."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
SCHEMES = ("default", "slate")  # Material's light and dark palettes
# Violations that fail the walk: axe's two highest impacts ("moderate" and "minor" are reported by axe
# only as advice).
FAILING = ("serious", "critical")

STILL = "*, *::before, *::after { transition: none !important; animation: none !important; }"
_RUN_JS = """() => axe.run(document, {resultTypes: ['violations']}).then(result => result.violations
  .filter(v => FAILING.includes(v.impact))
  .flatMap(v => v.nodes.map(n => `${v.id} (${v.impact}): ${n.target.join(' ')}`)))"""
_RUN_JS = _RUN_JS.replace("FAILING", json.dumps(FAILING))


@cache
def script() -> str:
    if not SCRIPT.is_file():
        raise RuntimeError(f"{SCRIPT} is missing: run `make axe-deps` (npm ci in tests/)")
    return SCRIPT.read_text()


def violations(page: Any) -> list[str]:
    """The loaded page's serious and critical violations, in each of Material's colour schemes (the
    palette switched in place, as its toggle does), each as "rule (impact): element [scheme]"."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(content=script())
        # Colours are read as they are at the moment axe looks: Material fades them over 0.25 s when the
        # palette or the layout changes, and a colour caught halfway is no colour a reader is shown.
        page.add_style_tag(content=STILL)
    # One frame, for the page's own handlers of the last change (a11y.js on a resize) to run first.
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    body = page.locator("body")
    chosen = body.get_attribute("data-md-color-scheme")
    found = []
    try:
        for scheme in SCHEMES:
            page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
            found += [f"{v} [{scheme}]" for v in page.evaluate(_RUN_JS)]
    finally:
        page.evaluate(f"document.body.setAttribute('data-md-color-scheme', {chosen or 'default'!r})")
    return found
