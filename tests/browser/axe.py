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

# The rules whose verdict depends on the colours a palette sets: axe's enabled rules tagged cat.color (its AAA
# contrast rule, color-contrast-enhanced, is off by default; test_pages.py holds the list to axe's). Every other rule
# reads the page's structure, which a palette does not change, so it runs in the first palette only: the second
# palette's run was a third of the walk's time and could find nothing the first had not.
COLOUR_RULES = ("color-contrast", "link-in-text-block")
STILL = "*, *::before, *::after { transition: none !important; animation: none !important; }"
_RUN_JS = """options => axe.run(document, options).then(result => result.violations
  .filter(v => FAILING.includes(v.impact))
  .flatMap(v => v.nodes.map(n => `${v.id} (${v.impact}): ${n.target.join(' ')}`)))"""
_RUN_JS = _RUN_JS.replace("FAILING", json.dumps(FAILING))
_EVERY_RULE = {"resultTypes": ["violations"]}
_COLOUR_ONLY = {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": list(COLOUR_RULES)}}


@cache
def script() -> str:
    if not SCRIPT.is_file():
        raise RuntimeError(f"{SCRIPT} is missing: run `make axe-deps` (npm ci in tests/)")
    return SCRIPT.read_text()


def violations(page: Any) -> list[str]:
    """The loaded page's serious and critical violations, each as "rule (impact): element [scheme]": every rule in
    Material's first colour scheme, and the colour rules again in each other (the palette switched in place, as its
    toggle does)."""
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
            options = _EVERY_RULE if scheme == SCHEMES[0] else _COLOUR_ONLY
            found += [f"{v} [{scheme}]" for v in page.evaluate(_RUN_JS, options)]
    finally:
        page.evaluate(f"document.body.setAttribute('data-md-color-scheme', {chosen or 'default'!r})")
    return found
