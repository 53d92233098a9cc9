"""One walk of the built site in headless Chromium, shared by the layout tests (test_pages.py) and the
weight tests (test_page_weight.py): each page is loaded once, with the browser's cache off so that
every page fetches what a first visit fetches, then measured and checked at 1280 px and at 390 px.

A page's weight is every byte it fetches while loading at 1280 × 900, until the network settles,
without scrolling: its HTML, styles, scripts, fonts and the pictures near the top. The search index
is left out: it is fetched once the reader opens search (the walk records whether a page fetched it
anyway). Search itself is tested in test_search.py, and from disk in test_offline.py.

A page's layout shift is the sum of every shift while it loads (the layout-shift entries of the
Layout Instability API, which is what Chromium's cumulative layout shift adds up): text that jumps as
a font swaps in or a picture takes its room. Each page is loaded twice, at 1280 × 900 in the light
palette and at 390 × 900 in the dark one, and at each width the palette is then switched in place to
the other and back, as its toggle does: a shift there counts too, so each width answers for both.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import axe
import headless as browser

WIDTH, HEIGHT = 1280, 900
PHONE_WIDTH = 390
# Requests whose URL names a host; data: and blob: URLs fetch nothing.
OFF_HOST = re.compile(r"^(?:https?|wss?)://(?!127\.0\.0\.1[:/])", re.I)
SEARCH_INDEX = "search/search_index.json"
QUIET_MS = 100  # no request in flight for this long counts as settled (Playwright's "networkidle" waits 500)


@dataclass
class Load:
    """What one page fetched as it loaded."""

    bytes: int  # search index excepted
    urls: list[str]  # every URL fetched, relative to the site

    def fetched(self, pattern: str) -> list[str]:
        return [u for u in self.urls if re.search(pattern, u)]


@dataclass
class Walk:
    """What a walk over some pages found, by page path."""
    overflow: dict[str, list[str]] = field(default_factory=dict)
    unfocusable: dict[str, list[str]] = field(default_factory=dict)
    broken: dict[str, list[str]] = field(default_factory=dict)
    phone_broken: dict[str, list[str]] = field(default_factory=dict)  # at PHONE_WIDTH
    untypeset: dict[str, list[str]] = field(default_factory=dict)  # formulas the build left raw
    layout_shift: dict[int, dict[str, float]] = field(default_factory=dict)  # width -> page, as it loads
    console_errors: list[str] = field(default_factory=list)
    off_host: list[str] = field(default_factory=list)
    loads: dict[str, Load] = field(default_factory=dict)
    drawing_text: dict[int, dict[str, list[tuple[str, float]]]] = field(default_factory=dict)  # width -> page
    drawing_frames: dict[str, list[str]] = field(default_factory=dict)  # what keeps a reader from a drawing, "[390 px]"
    inaccessible: dict[str, list[str]] = field(default_factory=dict)  # axe's serious and critical, "[390 px]"

    def checked(self, page: Any, path: str, width: int) -> None:
        """The checks made at each width: the drawings' smallest text and frames, and axe in light and dark."""
        if sizes := browser.drawing_text_px(page):
            self.drawing_text.setdefault(width, {})[path] = sizes
        if problems := browser.drawing_frames(page, phone=width == PHONE_WIDTH):
            self.drawing_frames.setdefault(path, []).extend(f"{p} [{width} px]" for p in problems)
        if problems := axe.violations(page):
            self.inaccessible.setdefault(path, []).extend(f"{p} [{width} px]" for p in problems)


def page_paths(site: Path) -> list[str]:
    """Every HTML page of the site as a URL path: "", "numbers/", "404.html"."""
    paths = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site).as_posix()
        paths.append(rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    return paths


def settle(page: Any, in_flight: set) -> None:
    """Wait until no request has been in flight for QUIET_MS (10 s at most)."""
    for _ in range(10_000 // (QUIET_MS // 2)):
        page.wait_for_timeout(QUIET_MS // 2)
        if not in_flight:
            page.wait_for_timeout(QUIET_MS // 2)
            if not in_flight:
                return


def loaded(page: Any, in_flight: set) -> None:
    """After the load event: wait for Material's document$ (its scripts have set the page up), for
    the fonts, and for the network to settle."""
    page.evaluate("new Promise(done => document$.subscribe(() => done(true)))")
    page.evaluate("document.fonts.ready.then(() => true)")
    settle(page, in_flight)


# Every layout shift of the document, from its first byte: added up by an observer that the walk
# installs before any of the page's own scripts run. Shifts right after the reader's input (none in
# the walk) do not count, as in Chromium's own measure.
_LAYOUT_SHIFT_JS = """window.__layoutShift = 0;
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__layoutShift += entry.value;
}).observe({type: "layout-shift", buffered: true});"""


# Formulas with no typeset KaTeX inside: raw TeX the build left (it typesets every formula, and no
# script in the browser does).
_UNTYPESET_JS = """() => [...document.querySelectorAll('.arithmatex')].filter(el => !el.querySelector('.katex'))
  .map(el => el.textContent.trim().slice(0, 40))"""


# The palette switched to the other and back, as Material's toggle does, a frame for each (the shift
# observer above adds what moves).
_SWITCH_PALETTE_JS = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const body = document.body, chosen = body.getAttribute('data-md-color-scheme');
  body.setAttribute('data-md-color-scheme', chosen === 'slate' ? 'default' : 'slate');
  await frame();
  body.setAttribute('data-md-color-scheme', chosen);
  await frame();
}"""


def shift(page: Any) -> float:
    """The page's layout shift since it started loading, the palette switched and back included."""
    page.evaluate(_SWITCH_PALETTE_JS)
    return page.evaluate("window.__layoutShift")


class Recorder:
    """The requests of the page being loaded: in flight, and finished since the last reset."""

    def __init__(self, page: Any) -> None:
        self.in_flight: set = set()
        self.finished: list = []
        page.on("request", lambda r: self.in_flight.add(r))  # Playwright takes Python functions only
        page.on("requestfinished", lambda r: (self.in_flight.discard(r), self.finished.append(r)))
        page.on("requestfailed", lambda r: self.in_flight.discard(r))

    def reset(self) -> None:
        self.finished = []

    def load(self, base: str) -> Load:
        counted = [r for r in self.finished if not r.url.endswith(SEARCH_INDEX)]
        urls = [r.url.removeprefix(base) for r in self.finished]
        return Load(sum(r.sizes()["responseBodySize"] for r in counted), urls)


def walk(chromium: Any, site: Path, paths: list[str]) -> Walk:
    """Load each page at WIDTH in the light palette, measure what it fetched and how it moved, and check
    it; then load it again at a phone's width in the dark palette, measure how it moved, and check the
    names and flags again (there tables and code may scroll)."""
    found = Walk()
    with browser.serve(site) as base:
        context = chromium.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        context.add_init_script(_LAYOUT_SHIFT_JS)
        page = context.new_page()
        # Every page weighed as a first visit: nothing served from the cache of the page before.
        context.new_cdp_session(page).send("Network.setCacheDisabled", {"cacheDisabled": True})
        recorder = Recorder(page)
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
                site_page = path.endswith("/") or path == ""  # not a bare file such as 404.html
                page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
                page.emulate_media(color_scheme="light")
                # What the last page's checks set loading (a font the contrast check laid out) lands before the
                # count starts, not in this page's weight.
                settle(page, recorder.in_flight)
                recorder.reset()
                page.goto(base + path, wait_until="load")
                if site_page:
                    loaded(page, recorder.in_flight)
                    found.loads[path] = recorder.load(base)
                    found.layout_shift.setdefault(WIDTH, {})[path] = shift(page)
                    if raw := page.evaluate(_UNTYPESET_JS):
                        found.untypeset[path] = raw
                else:
                    page.evaluate("document.fonts.ready.then(() => true)")
                if broken := browser.broken_words(page):
                    found.broken[path] = broken
                if wide := browser.overflowing(page):
                    found.overflow[path] = wide
                if bare := browser.unfocusable_tooltips(page):
                    found.unfocusable[path] = bare
                found.checked(page, path, WIDTH)
                page.set_viewport_size({"width": PHONE_WIDTH, "height": HEIGHT})
                page.emulate_media(color_scheme="dark")
                page.goto(base + path, wait_until="load")
                if site_page:
                    loaded(page, recorder.in_flight)
                    found.layout_shift.setdefault(PHONE_WIDTH, {})[path] = shift(page)
                else:
                    page.evaluate("document.fonts.ready.then(() => true)")
                if broken := browser.broken_words(page):
                    found.phone_broken[path] = broken
                found.checked(page, path, PHONE_WIDTH)
        finally:
            context.close()
    return found


def load(chromium: Any, base: str, path: str, scroll_to: str | None = None) -> Load:
    """One page, loaded on its own in a fresh tab (the weight tests' injected faults and scrolling)."""
    page = chromium.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    recorder = Recorder(page)
    try:
        page.goto(base + path.lstrip("/"), wait_until="load")
        loaded(page, recorder.in_flight)
        if scroll_to:  # wait until the pictures in view have loaded, and a little longer
            page.locator(scroll_to).first.scroll_into_view_if_needed()
            page.wait_for_function(f"""[...document.querySelectorAll({scroll_to!r} + ' img')]
                .some(img => img.complete && img.naturalWidth > 0)""", timeout=10_000)
            page.wait_for_timeout(500)
        return recorder.load(base)
    finally:
        page.close()


def merged(walks: list[Walk]) -> Walk:
    """One walk of the pages several walks covered between them (each a share of the pages)."""
    out = Walk()
    for w in walks:
        for f in dataclasses.fields(Walk):
            mine, theirs = getattr(out, f.name), getattr(w, f.name)
            if isinstance(mine, list):
                mine.extend(theirs)
            elif f.name in ("layout_shift", "drawing_text"):  # width -> page -> ...
                for width, pages in theirs.items():
                    mine.setdefault(width, {}).update(pages)
            else:
                mine.update(theirs)
    return out
