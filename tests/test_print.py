"""The cheat sheet prints: headless Chromium against the built site served on 127.0.0.1 makes an A4
PDF of at most two pages, with no table wider than the page.

"Wider than the page" is checked two ways, because Chromium hides an overflow rather than showing it:
content wider than the printable width makes it shrink the whole page to fit (every glyph gets smaller,
so the PDF's CSS-pixel-to-point scale drops below 72/96), and past its shrink limit it clips the
overflow (the cut-off cells' text is missing from the PDF). The last test injects a too-wide table
and shows that both checks fire.
"""

from __future__ import annotations

import collections
import html.parser
import re
import shutil
from pathlib import Path

import pytest

import browser

pypdf = pytest.importorskip("pypdf")

MAX_PAGES = 2
PX_TO_PT = 72 / 96  # Chromium's PDF transform for an unscaled page: one CSS pixel is 0.75 pt
NO_BROWSER = "Chromium is not installed (apt-get install -y chromium): the print tests cannot run"


@pytest.fixture(autouse=True)
def _chromium() -> None:
    # Skipped in setup, not at import: CI (conftest.py) turns a setup skip into a failure.
    if browser.chromium() is None:
        pytest.skip(NO_BROWSER)


class _Cells(html.parser.HTMLParser):
    """The text of every table cell inside <div class="cheatsheet">, math left out (KaTeX's PDF text
    differs from its source)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._depth = 0  # <div> nesting inside the cheat sheet; 0 = outside
        self._cell: list[str] | None = None
        self._math = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div" and (self._depth or "cheatsheet" in classes):
            self._depth += 1
        if not self._depth:
            return
        if tag in ("td", "th"):
            self._cell = []
        if tag == "span" and ("arithmatex" in classes or self._math):
            self._math += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._depth:
            self._depth -= 1
        if tag == "span" and self._math:
            self._math -= 1
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._math:
            self._cell.append(data)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def overflow_problems(page_html: str, pdf: Path) -> list[str]:
    """What in the printed cheat sheet is wider than the page; empty when everything fits."""
    problems = []
    scales: collections.Counter[float] = collections.Counter()
    text = []
    for page in pypdf.PdfReader(pdf).pages:
        def visit(chunk: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
            if chunk.strip():
                scales[round(cm[0], 3)] += 1
        text.append(page.extract_text(visitor_text=visit))
    scale = scales.most_common(1)[0][0]
    if scale < PX_TO_PT - 0.002:
        problems.append(f"Chromium shrank the page to {scale / PX_TO_PT:.0%} to fit content wider than A4")
    printed = _squash("".join(text))
    parser = _Cells()
    parser.feed(page_html)
    assert parser.cells, "no tables found inside <div class=\"cheatsheet\">"
    missing = [c.strip() for c in parser.cells if _squash(c) and _squash(c) not in printed]
    if missing:
        problems.append(f"table cells cut off in the PDF: {missing[:8]}")
    return problems


def print_cheatsheet(site: Path, out: Path) -> Path:
    with browser.serve(site) as base:
        return browser.pdf(base + "cheatsheet/", out)


@pytest.fixture(scope="module")
def printed(built_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if browser.chromium() is None:  # module-scoped fixtures set up before the autouse check above
        pytest.skip(NO_BROWSER)
    return print_cheatsheet(built_site, tmp_path_factory.mktemp("print") / "cheatsheet.pdf")


def test_cheatsheet_prints_on_at_most_two_a4_pages(printed: Path):
    pages = pypdf.PdfReader(printed).pages
    assert 1 <= len(pages) <= MAX_PAGES, f"the cheat sheet prints on {len(pages)} pages"
    width, height = float(pages[0].mediabox.width), float(pages[0].mediabox.height)
    assert (round(width), round(height)) == (595, 842), f"not A4: {width} × {height} pt"


def test_no_table_is_wider_than_the_page(built_site: Path, printed: Path):
    page_html = (built_site / "cheatsheet" / "index.html").read_text()
    assert overflow_problems(page_html, printed) == []


@pytest.mark.parametrize("columns, expect", [(6, "shrank the page"), (16, "cut off")])
def test_the_check_catches_a_table_wider_than_the_page(built_site: Path, tmp_path: Path, columns: int, expect: str):
    # Columns of unbreakable text: 6 make Chromium shrink the page to fit (every figure gets smaller),
    # 16 go past its shrink limit and clip the last columns. Each check must fire on its own case.
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page = site / "cheatsheet" / "index.html"
    cells = "".join(f"<td>WIDECELL{i:02d}WWWWWW</td>" for i in range(columns))
    heads = "".join(f"<th>COLUMN{i:02d}</th>" for i in range(columns))
    wide = (f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table><thead><tr>{heads}'
            f"</tr></thead><tbody><tr>{cells}</tr></tbody></table></div></div>")
    text = page.read_text()
    at = text.index('<h2 id="formulas"')
    page.write_text(text[:at] + wide + text[at:])
    problems = overflow_problems(page.read_text(), print_cheatsheet(site, tmp_path / "wide.pdf"))
    assert any(expect in p for p in problems), f"a {columns}-column table wider than A4 went unnoticed: {problems}"
