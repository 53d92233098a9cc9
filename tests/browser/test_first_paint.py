"""The first paint needs nothing but the page (macros/site/build/critical_css.py): the rules inlined in its
<head> lay it out exactly as its full stylesheets do, so nothing moves when they arrive. Each page is
loaded twice with scripts off (what a script adds is styled by the full stylesheets, which the scripts
wait for), once with the joined stylesheet refused and once with it, and every element's box, colours
and font are compared, at 1280 and 390 px. The numbers themselves (first contentful paint under
Slow-4G) are `make bench`'s (tests/browser/first_paint.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import headless as browser
from walk import PHONE_WIDTH, WIDTH

# The home page, a chapter with math, the numbers sheet (tables, tabs), the calculator (forms), the
# flashcards (practice.css) and the cheat sheet (cheatsheet.css).
PAGES = ("", "guide/roofline/", "numbers/", "calculator/", "practice/flashcards/", "cheatsheet/")
JOINED = "**/assets/stylesheets/all-*.css"

_LAID_OUT_JS = """() => [...document.querySelectorAll('body *')].map(el => {
  const box = el.getBoundingClientRect(), style = getComputedStyle(el);
  return [el.tagName, typeof el.className === 'string' ? el.className : '', Math.round(box.x), Math.round(box.y),
          Math.round(box.width), Math.round(box.height), style.color, style.backgroundColor, style.font].join(' ');
})"""


def laid_out(chromium: Any, url: str, width: int, inlined_only: bool) -> list[str]:
    context = chromium.new_context(viewport={"width": width, "height": 900}, java_script_enabled=False)
    try:
        page = context.new_page()
        if inlined_only:
            page.route(JOINED, lambda route: route.abort())
        page.goto(url, wait_until="load")
        # Every face the page declares, loaded before measuring: `document.fonts.ready` alone resolves before a face
        # the layout has not asked for yet has started loading (a bold face under load), and the box is then measured
        # in the fallback's metrics on one of the two loads only. Settled, not all: a face whose stylesheet the
        # inlined-only load refuses cannot load, and is then absent from both layouts alike.
        page.evaluate("Promise.allSettled([...document.fonts].map(f => f.load()))"
                      ".then(() => document.fonts.ready).then(() => document.body.offsetHeight)")
        return page.evaluate(_LAID_OUT_JS)
    finally:
        context.close()


def differences(chromium: Any, site: Path, paths: tuple[str, ...]) -> list[str]:
    """Per page and width, the first element laid out differently by the inlined rules alone."""
    found = []
    with browser.serve(site) as base:
        for path in paths:
            for width in (WIDTH, PHONE_WIDTH):
                alone, full = (laid_out(chromium, base + path, width, inlined) for inlined in (True, False))
                differ = [f"{a}  (full: {b})" for a, b in zip(alone, full) if a != b]
                if differ or len(alone) != len(full):
                    found.append(f"{path or '/'} at {width} px: {len(differ)} elements, first {differ[:1]}")
    return found


def test_the_inlined_rules_lay_out_the_page_as_the_stylesheets_do(chromium, built_site: Path):
    for path in PAGES:
        html = (built_site / path / "index.html").read_text()
        head = html[:html.index("</head>")]
        assert "<style>" in head and '<link rel="stylesheet"' not in head, f"{path or '/'}: a stylesheet in <head>"
    assert differences(chromium, built_site, PAGES) == []


def test_the_check_catches_a_rule_left_out(chromium, built_site: Path, tmp_path: Path):
    # The inlined copy without Material's rule for the header's title (.md-header__title): the title
    # then takes its box from the rules left, and the check names the page at both widths.
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page = site / "errata" / "index.html"
    html = page.read_text()
    head, body = html.split("</head>", 1)
    cut, count = re.subn(r"(?<=\})\.md-header__title\{[^}]*\}", "", head)
    assert count >= 1
    page.write_text(cut + "</head>" + body)
    found = differences(chromium, site, ("errata/",))
    assert [line.split(":")[0] for line in found] == [f"errata/ at {WIDTH} px", f"errata/ at {PHONE_WIDTH} px"]
