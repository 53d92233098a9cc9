"""The cheat sheet prints: headless Chromium against the built site served on 127.0.0.1 makes an A4
PDF of at most two pages, with no table wider than the page.

"Wider than the page" is measured in the browser, on the page laid out for print at A4's printable
width: a table whose box passes the column, or whose content passes its box, is too wide. (Reading it
back from the PDF depended on how the PDF's text extraction ordered wrapped cells, which changes from
one machine to the next.) The last test injects too-wide tables and shows that the check fires.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import headless as browser
import pytest

pypdf = pytest.importorskip("pypdf")

MAX_PAGES = 2


def wide_cheatsheet_tables(chromium, site: Path) -> list[str]:
    with browser.serve(site) as base:
        page = browser.open_page(chromium, base + "cheatsheet/")
        try:
            return browser.wide_tables_in_print(page, "div.cheatsheet")
        finally:
            page.close()


@pytest.fixture(scope="module")
def printed(chromium, built_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    with browser.serve(built_site) as base:
        return browser.pdf(chromium, base + "cheatsheet/", tmp_path_factory.mktemp("print") / "cheatsheet.pdf")


def test_cheatsheet_prints_on_at_most_two_a4_pages(printed: Path):
    pages = pypdf.PdfReader(printed).pages
    assert 1 <= len(pages) <= MAX_PAGES, f"the cheat sheet prints on {len(pages)} pages"
    width, height = float(pages[0].mediabox.width), float(pages[0].mediabox.height)
    assert (round(width), round(height)) == (595, 842), f"not A4: {width} × {height} pt"


def test_no_table_is_wider_than_the_page(chromium, built_site: Path):
    assert wide_cheatsheet_tables(chromium, built_site) == []


def test_the_check_catches_a_table_wider_than_the_page(chromium, built_site: Path, tmp_path: Path):
    # Columns of unbreakable text: 6 are a little wider than A4's printable width (Chromium would shrink
    # the whole page to fit), 16 far wider (it would clip the last columns). Both must be caught.
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page = site / "cheatsheet" / "index.html"

    def table(name: str, columns: int) -> str:
        cells = "".join(f"<td>WIDECELL{i:02d}WWWWWW</td>" for i in range(columns))
        heads = "".join(f"<th>{name}{i:02d}</th>" for i in range(columns))
        return (f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table><thead><tr>{heads}'
                f"</tr></thead><tbody><tr>{cells}</tr></tbody></table></div></div>")

    text = page.read_text()
    at = text.index('<h2 id="formulas"')
    page.write_text(text[:at] + table("SIX", 6) + table("SIXTEEN", 16) + text[at:])
    assert wide_cheatsheet_tables(chromium, site) == ["SIX00", "SIXTEEN00"]
