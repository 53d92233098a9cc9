"""Every built page, laid out by headless Chromium at 1280 × 900 (a laptop): nothing in the content
needs sideways scrolling, the console stays clean, nothing is fetched from another host, and every
figure with a source in its tooltip can take focus, so keyboard and touch readers reach it too. At
1280 and at 390 px (a phone), no model name or command-line flag is split over two lines.

One browser and one tab walk the whole site, served on 127.0.0.1. Requests to any other host are
recorded and refused (the site must work offline). The last tests inject each kind of fault into a
copy of the site and show that the walk reports it.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import headless as browser

WIDTH, HEIGHT = 1280, 900
PHONE_WIDTH = 390
LOCAL = "127.0.0.1"
# Requests whose URL names a host; data: and blob: URLs fetch nothing.
OFF_HOST = re.compile(r"^(?:https?|wss?)://(?!127\.0\.0\.1[:/])", re.I)


@dataclass
class Walk:
    """What a walk over some pages found, by page path."""
    overflow: dict[str, list[str]] = field(default_factory=dict)
    unfocusable: dict[str, list[str]] = field(default_factory=dict)
    broken: dict[str, list[str]] = field(default_factory=dict)
    phone_broken: dict[str, list[str]] = field(default_factory=dict)  # at PHONE_WIDTH
    console_errors: list[str] = field(default_factory=list)
    off_host: list[str] = field(default_factory=list)


def page_paths(site: Path) -> list[str]:
    """Every HTML page of the site as a URL path: "", "numbers/", "404.html"."""
    paths = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site).as_posix()
        paths.append(rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    return paths


def walk(chromium: Any, site: Path, paths: list[str]) -> Walk:
    """Load each page at WIDTH and check it; then narrow the same page to a phone's width and check
    the names and flags again (there tables and code may scroll). Narrowing reflows the loaded page,
    as turning a tablet does, which costs far less than loading every page twice."""
    found = Walk()
    with browser.serve(site) as base:
        context = chromium.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        page = context.new_page()
        current = {"path": ""}
        page.on("console", lambda msg: msg.type == "error" and found.console_errors.append(
            f"{current['path'] or '/'}: {msg.text}"))
        page.on("pageerror", lambda exc: found.console_errors.append(f"{current['path'] or '/'}: {exc}"))
        page.on("request", lambda req: OFF_HOST.match(req.url) and found.off_host.append(
            f"{current['path'] or '/'}: {req.url}"))
        # Refused at once: the machine may have no network, and a page must not wait on one.
        page.route(OFF_HOST, lambda route: route.abort())
        try:
            for path in paths:
                current["path"] = path
                page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
                page.goto(base + path, wait_until="load")
                page.evaluate("document.fonts.ready.then(() => true)")
                if broken := browser.broken_words(page):
                    found.broken[path] = broken
                if wide := browser.overflowing(page):
                    found.overflow[path] = wide
                if bare := browser.unfocusable_tooltips(page):
                    found.unfocusable[path] = bare
                page.set_viewport_size({"width": PHONE_WIDTH, "height": HEIGHT})
                if broken := browser.broken_words(page):
                    found.phone_broken[path] = broken
        finally:
            context.close()
    return found


@pytest.fixture(scope="module")
def site_walk(chromium, built_site: Path) -> Walk:
    paths = page_paths(built_site)
    assert len(paths) >= 19 and "" in paths and "numbers/" in paths, paths
    return walk(chromium, built_site, paths)


def test_nothing_scrolls_sideways_at_1280(site_walk: Walk):
    assert site_walk.overflow == {}, "\n".join(f"{p}: {item}" for p, items in site_walk.overflow.items()
                                                for item in items)


def test_no_console_error(site_walk: Walk):
    assert site_walk.console_errors == []


def test_no_request_to_another_host(site_walk: Walk):
    assert site_walk.off_host == []


def test_every_tooltip_can_take_focus(site_walk: Walk):
    assert site_walk.unfocusable == {}


def test_no_name_or_flag_breaks_across_lines(site_walk: Walk):
    assert site_walk.broken == {}, "at 1280 px"
    assert site_walk.phone_broken == {}, f"at {PHONE_WIDTH} px"


# --- a cited figure opens its tooltip from the keyboard and from a tap ---------------------------


def test_tab_and_tap_open_a_figures_source(chromium, built_site: Path):
    with browser.serve(built_site) as base:
        page = browser.open_page(chromium, base + "numbers/")
        try:
            # Tab from the top of the page to the first cited figure (the hardware table's first
            # figure), whose tooltip names its source and the date it was checked.
            for _ in range(200):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.classList.contains('cite')"):
                    break
            else:
                pytest.fail("Tab never reached a cited figure on the numbers sheet")
            tip = page.wait_for_selector(".md-tooltip2--active", timeout=3000)
            assert "checked" in tip.text_content()
        finally:
            page.close()
        context = chromium.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
        try:
            page = context.new_page()
            page.goto(base + "reality-check/", wait_until="load")
            system = page.locator(".md-content .cite").first
            system.tap()
            tip = page.wait_for_selector(".md-tooltip2--active", timeout=3000)
            assert "Source:" in tip.text_content()
        finally:
            context.close()


# --- the walk catches what it looks for ------------------------------------------------------------


def test_the_walk_catches_every_fault(chromium, built_site: Path, tmp_path: Path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page = site / "conventions" / "index.html"
    cells = "".join(f"<td>WIDECELL{i:02d}WWWWWWWW</td>" for i in range(12))
    faults = (
        # a table too wide for the column, written as Markdown makes it (Material's script wraps it)
        f"<table><thead><tr><th>WIDETABLE</th>{'<th>x</th>' * 11}</tr></thead><tbody><tr>{cells}</tr></tbody></table>"
        # a code block with one long line
        f"<pre><code>LONGLINE {'x' * 300}</code></pre>"
        # a figure with a tooltip that takes no focus
        '<p><span title="a source">BARESPAN</span></p>'
        # a model name and a flag in a column too narrow for them
        '<p style="width: 4em">Llama-3.1-405B and --seq-len</p>'
        # an error in the console, and a request to another host
        '<script>console.error("INJECTED ERROR")</script>'
        '<img src="https://example.com/pixel.png" alt="">'
    )
    text = page.read_text()
    at = text.index("</article>")
    page.write_text(text[:at] + faults + text[at:])

    found = walk(chromium, site, ["conventions/", ""])
    assert set(found.overflow) == {"conventions/"}
    wide = "\n".join(found.overflow["conventions/"])
    assert 'table "WIDETABLE"' in wide and 'code block "LONGLINE' in wide
    assert any("BARESPAN" in item for item in found.unfocusable["conventions/"])
    assert found.broken == {"conventions/": ["Llama-3.1-405B", "--seq-len"]}
    assert found.phone_broken == {"conventions/": ["Llama-3.1-405B", "--seq-len"]}
    assert any("INJECTED ERROR" in e for e in found.console_errors)
    assert found.off_host == ["conventions/: https://example.com/pixel.png"]
