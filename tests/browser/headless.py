"""Headless Chromium (Debian's, driven by Playwright) against a built site served on 127.0.0.1:
screenshots, PDFs and measurements of the laid-out page.

Used by the browser tests and by hand:
    python tests/browser/headless.py SITE_DIR PAGE OUT.png [--dark] [--width 1280] [--height 2400]
    python tests/browser/headless.py SITE_DIR PAGE OUT.pdf
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# No background traffic: this machine's network is closed and Chromium's own calls home would
# otherwise be refused (and slow every start).
FLAGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", "--hide-scrollbars", "--disable-features=Translate,MediaRouter"]

# The printable width of an A4 page with the print stylesheet's 12 mm margins, in CSS pixels
# (96 per inch): what Chromium lays a page out to when it prints.
A4_PRINT_WIDTH_PX = round((210 - 2 * 12) / 25.4 * 96)


def chromium() -> str | None:
    """The browser's path, or None when Chromium or Playwright is missing (tests then skip)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@contextlib.contextmanager
def serve(site: Path, handler_class: type[http.server.SimpleHTTPRequestHandler] | None = None) -> Iterator[str]:
    """Serve `site` on 127.0.0.1 on a free port, with `handler_class` (default: a quiet static handler);
    yields the base URL."""
    handler = functools.partial(handler_class or QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def launch() -> Iterator[Any]:
    """A headless Chromium browser (Playwright's Browser)."""
    from playwright.sync_api import sync_playwright

    path = chromium()
    if path is None:
        raise RuntimeError("Chromium or Playwright is missing: apt-get install -y chromium; make setup")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser: Any, url: str, width: int = 1280, height: int = 900, dark: bool = False,
              problems: list[str] | None = None) -> Any:
    """A page loaded, its fonts in, laid out at `width` CSS pixels. With `problems`, what goes wrong
    on it from then on is recorded there (see watch)."""
    page = browser.new_page(viewport={"width": width, "height": height},
                            color_scheme="dark" if dark else "light")
    if problems is not None:
        watch(page, url, problems)
    # The load event: the page's scripts have run and everything it names up front has arrived. (Not
    # "networkidle", which waits 500 ms of quiet on every page and can come before the load event
    # on a long page.) The math comes typeset in the HTML: nothing to wait for.
    page.goto(url, wait_until="load")
    page.evaluate("document.fonts.ready.then(() => true)")
    return page


def watch(page: Any, url: str, problems: list[str]) -> None:
    """Record on `problems` what a reader would see go wrong: console errors, uncaught exceptions,
    failed loads, and any request to a host other than `url`'s (from a file:// page, any http(s)
    request), which is refused rather than left to time out on a closed network."""
    if url.startswith("file:"):
        other_host = re.compile(r"^https?://")
    else:
        origin = "/".join(url.split("/", 3)[:3]) + "/"
        other_host = re.compile(r"^(?!" + re.escape(origin) + r")https?://")

    def refuse(route: Any) -> None:
        problems.append(f"request to another host: {route.request.url}")
        route.abort()

    page.route(other_host, refuse)
    page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
    page.on("requestfailed", lambda r: other_host.match(r.url) or problems.append(
        f"failed to load {r.url}: {r.failure}"))


def screenshot(browser: Any, url: str, out: Path, dark: bool = False, width: int = 1280,
               height: int = 2400) -> Path:
    page = open_page(browser, url, width, height, dark)
    page.screenshot(path=str(out))
    page.close()
    return out


def pdf(browser: Any, url: str, out: Path, problems: list[str] | None = None) -> Path:
    """The page printed as Chromium prints it: the stylesheet's @page size and margins, no header,
    collapsed answers (<details>) open, since paper cannot expand them, and the headings as the
    PDF's bookmarks (Chromium builds its outline only for a tagged PDF)."""
    page = open_page(browser, url, width=A4_PRINT_WIDTH_PX, problems=problems)
    page.emulate_media(media="print")
    page.eval_on_selector_all("details", "all => all.forEach(d => { d.open = true; })")
    page.pdf(path=str(out), prefer_css_page_size=True, display_header_footer=False, outline=True, tagged=True)
    page.close()
    return out


# Every table inside `root` whose laid-out box is wider than its column or whose content is wider
# than its box (clipped by a scroll wrapper): its first cell's text, so a failure names the table.
_WIDE_TABLES_JS = """root => {
  const limit = root.getBoundingClientRect().right + 0.5;
  const wide = [];
  for (const table of root.querySelectorAll('table')) {
    const wrap = table.closest('.md-typeset__scrollwrap') || table;
    if (table.getBoundingClientRect().right > limit || wrap.scrollWidth > wrap.clientWidth + 0.5)
      wide.push((table.querySelector('th, td')?.textContent || '').trim().slice(0, 40));
  }
  return wide;
}"""


def wide_tables_in_print(page: Any, selector: str) -> list[str]:
    """Tables under `selector` that do not fit an A4 page's printable width, laid out for print."""
    page.set_viewport_size({"width": A4_PRINT_WIDTH_PX, "height": 1000})
    page.emulate_media(media="print")
    return page.eval_on_selector(selector, _WIDE_TABLES_JS)


# Everything a reader could have to scroll sideways inside the content column: each table's scroll
# wrapper (or the table itself, before Material's script wraps it), each code block and each displayed
# formula, when its content is wider than its box or its box passes the column. Collapsed answers are
# opened and every tab's panel shown first, so nothing escapes for being hidden.
_OVERFLOW_JS = """() => {
  document.querySelectorAll('.md-content details').forEach(d => { d.open = true; });
  const style = document.createElement('style');
  style.textContent = '.tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }';
  document.head.appendChild(style);
  const column = document.querySelector('.md-content__inner');
  const limit = column.getBoundingClientRect().right + 0.5;
  const found = [];
  // `box` scrolls; `shown` is what must stay inside the column (Material's table wrapper reaches
  // into the column's padding on purpose, so for a table it is the table itself).
  const check = (box, shown, kind, text) => {
    if (box.scrollWidth > box.clientWidth + 0.5 || shown.getBoundingClientRect().right > limit)
      found.push(`${kind} "${text.trim().replace(/\\s+/g, ' ').slice(0, 40)}": ` +
                 `${box.scrollWidth} px of content in ${box.clientWidth} px`);
  };
  for (const table of column.querySelectorAll('table'))
    check(table.closest('.md-typeset__scrollwrap') || table, table, 'table',
          table.querySelector('th, td')?.textContent || '');
  for (const code of column.querySelectorAll('pre > code')) check(code, code, 'code block', code.textContent);
  for (const math of column.querySelectorAll('div.arithmatex')) check(math, math, 'formula', math.textContent);
  style.remove();
  return found;
}"""


def overflowing(page: Any) -> list[str]:
    """The tables, code blocks and displayed formulas of the loaded page that need sideways scrolling
    (or pass the content column), each named by its first words."""
    return page.evaluate(_OVERFLOW_JS)


# Elements in the content that carry a tooltip (a title) but cannot take focus: a keyboard or touch
# reader can never open their tooltip. Material turns every [title] in the content into a tooltip. A
# cited figure or a glossary abbreviation is no Tab stop of its own (tabindex -1, which a tap still
# focuses): it is reached from its table's or paragraph's one Tab stop of its kind by the arrow keys
# (assets/javascripts/a11y.js, whose grouping this repeats), so it counts as reachable when its group
# has one of its kind at tabindex 0.
_UNFOCUSABLE_TITLES_JS = """() => {
  const group = el => el.closest('table, p, li, dd, dt, .admonition, details') || document.body;
  const kind = el => el.matches('.cite') ? '.cite' : 'abbr';
  const roving = el => el.matches('.cite, abbr') && el.tabIndex === -1 &&
    [...group(el).querySelectorAll(kind(el))].some(c => c.tabIndex === 0);
  return [...document.querySelectorAll('.md-content [title]')]
    .filter(el => (el.tabIndex < 0 && !roving(el)) || el.closest('[inert]'))
    .map(el => `<${el.tagName.toLowerCase()}> "${el.textContent.trim().slice(0, 30)}"`);
}"""


def unfocusable_tooltips(page: Any) -> list[str]:
    return page.evaluate(_UNFOCUSABLE_TITLES_JS)


# Command-line flags and hyphenated names with a digit (Llama-3.1-70B, tpu-v5e, 2,000-token) that the
# layout split over two lines: each match in the content's text, measured as a range of its own.
_BROKEN_WORDS_JS = """() => {
  const word = /(?<![\\w-])(?:--[a-z][a-z0-9-]*[a-z0-9]|[\\w.,]*\\w-[\\w.,-]*\\w)(?![\\w-])/g;
  const walker = document.createTreeWalker(document.querySelector('.md-content__inner'), NodeFilter.SHOW_TEXT);
  const broken = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('pre, .katex, .arithmatex, script, style')) continue;
    for (const m of node.data.matchAll(word)) {
      if (!m[0].startsWith('--') && !/\\d/.test(m[0])) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


def broken_words(page: Any) -> list[str]:
    """Flags and hyphenated names that the loaded page breaks over two lines."""
    return page.evaluate(_BROKEN_WORDS_JS)


# The smallest text of every drawing shown in the content, in CSS pixels. Its SVG draws text as outlines,
# so the font sizes are read from the data-font-sizes its renderer wrote (diagrams/_style.py, in the
# SVG's user units) and multiplied by the scale the page shows it at: the width of the picture's box
# inside its padding over the width of its viewBox. Collapsed answers are opened and every tab shown
# first; a form of a drawing hidden at this width (display: none) is skipped. A drawing with no record
# counts as 0 px.
_DRAWING_TEXT_JS = """async () => {
  document.querySelectorAll('.md-content details').forEach(d => { d.open = true; });
  const style = document.createElement('style');
  style.textContent = '.tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }';
  document.head.appendChild(style);
  const found = [];
  for (const img of document.querySelectorAll('.md-content figure.drawing img')) {
    if (!img.getClientRects().length) continue;
    const url = img.currentSrc || img.src;
    const text = await (await fetch(url)).text();
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
    const sizes = (svg.getAttribute('data-font-sizes') || '0').split(' ').map(Number);
    const viewBox = (svg.getAttribute('viewBox') || '0 0 1 1').trim().split(/[\\s,]+/).map(Number);
    const css = getComputedStyle(img);
    const inner = img.getBoundingClientRect().width - ['paddingLeft', 'paddingRight', 'borderLeftWidth',
      'borderRightWidth'].reduce((sum, side) => sum + parseFloat(css[side]), 0);
    found.push([url.split('/').pop(), Math.min(...sizes) * inner / viewBox[2]]);
  }
  style.remove();
  return found;
}"""


def drawing_text_px(page: Any) -> list[tuple[str, float]]:
    """(file name, its smallest text in CSS px) for every drawing the loaded page shows at its width."""
    return [(name, px) for name, px in page.evaluate(_DRAWING_TEXT_JS)]


# What lets a reader get at every drawing shown at this width: its picture links to a full-size SVG; when
# it is wider than its frame (it must stay wide to stay legible), the frame scrolls, not the page, and a
# hint shown under it says it scrolls and opens full size; on a phone (`phone`), every drawing has a hint
# shown that says it opens full size. Collapsed answers are opened and every tab shown first.
_DRAWING_FRAMES_JS = """phone => {
  document.querySelectorAll('.md-content details').forEach(d => { d.open = true; });
  const style = document.createElement('style');
  style.textContent = '.tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }';
  document.head.appendChild(style);
  const limit = document.querySelector('.md-content__inner').getBoundingClientRect().right + 0.5;
  const found = [];
  for (const img of document.querySelectorAll('.md-content figure.drawing img')) {
    if (!img.getClientRects().length) continue;
    const name = (img.currentSrc || img.src).split('/').pop();
    const figure = img.closest('figure'), frame = img.closest('.drawing__frame');
    const hints = [...figure.querySelectorAll('.drawing__hint')].filter(h => h.getClientRects().length)
      .map(h => h.textContent).join(' ');
    const link = img.closest('a')?.getAttribute('href') || '';
    if (!/\\.svg$/.test(link)) found.push(`${name}: no link to its full-size file`);
    if (!frame) found.push(`${name}: no frame of its own`);
    else if (frame.getBoundingClientRect().right > limit) found.push(`${name}: its frame passes the column`);
    const scrolls = frame && frame.scrollWidth > frame.clientWidth + 0.5;
    if (scrolls && !/scroll/.test(hints)) found.push(`${name}: scrolls in its frame, and no hint shown says so`);
    if ((scrolls || phone) && !/full size/.test(hints)) found.push(`${name}: no hint shown says it opens full size`);
  }
  style.remove();
  return found;
}"""


def drawing_frames(page: Any, phone: bool) -> list[str]:
    """What keeps a reader from a drawing the loaded page shows at its width (a phone's, when `phone`)."""
    return page.evaluate(_DRAWING_FRAMES_JS, phone)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("site", type=Path)
    p.add_argument("page", help="path under the site, e.g. conventions/")
    p.add_argument("out", type=Path)
    p.add_argument("--dark", action="store_true")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=2400)
    a = p.parse_args()
    if chromium() is None:
        print("Chromium or Playwright is missing: apt-get install -y chromium; make setup", file=sys.stderr)
        raise SystemExit(2)
    with serve(a.site) as base, launch() as browser:
        if a.out.suffix == ".pdf":
            pdf(browser, base + a.page, a.out)
        else:
            screenshot(browser, base + a.page, a.out, a.dark, a.width, a.height)
    print(a.out)


if __name__ == "__main__":
    main()
