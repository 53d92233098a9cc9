"""The whole guide as one PDF (`make pdf`): the print-site build's print_page/, printed by headless
Chromium as `make pdf` prints it, is one A4 document with a contents page that lists every page in
the navigation, every page's title as a bookmark in nav order, and the questions' collapsed answers
printed open. Printing the whole guide is the slow part of this file (measured in the report)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import headless as browser
import pytest
import yaml
from conftest import ROOT

pypdf = pytest.importorskip("pypdf")

# At least a page per nav page, after the contents; at most what a runaway print stylesheet (a table
# or figure per page) would make of a guide that prints on about 330 (the worked designs and the
# generated problems included).
MAX_PAGES = 600


class _NavLoader(yaml.SafeLoader):
    """Reads mkdocs.yml: its !ENV values do not matter here."""


_NavLoader.add_constructor("!ENV", lambda loader, node: None)


def nav_entries(nav: list[Any]) -> Iterator[tuple[str, str | None]]:
    """(title, markdown path) for each nav entry in order; a section's path is None."""
    for item in nav:
        (title, target), = item.items()
        if isinstance(target, list):
            yield title, None
            yield from nav_entries(target)
        else:
            yield title, target


def page_title(site: Path, md_path: str) -> str:
    """A page's first heading as the built site shows it (directory URLs: guide/x.md → guide/x/)."""
    stem = md_path.removesuffix(".md")
    built = site / ("index.html" if stem == "index" else stem.removesuffix("/index") + "/index.html")
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", built.read_text(), re.S).group(1)
    return html.unescape(re.sub(r"<[^>]+>", "", heading)).replace("¶", "").strip()


def missing_from_outline(outline: list[str], expected: list[str]) -> list[str]:
    """The expected bookmarks that the outline lacks or has out of order."""
    rest = iter(outline)
    return [title for title in expected if title not in rest]


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def nav() -> list[tuple[str, str | None]]:
    return list(nav_entries(yaml.load((ROOT / "mkdocs.yml").read_text(), _NavLoader)["nav"]))


@pytest.fixture(scope="module")
def printed(chromium: Any, print_site: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # The session's browser (conftest.py): a second Playwright in one process cannot start.
    out = tmp_path_factory.mktemp("pdf") / "field-guide.pdf"
    problems: list[str] = []
    with browser.serve(print_site) as base:
        browser.pdf(chromium, base + "print_page/", out, problems=problems)
    return {"reader": pypdf.PdfReader(out), "problems": problems}


def top_level_bookmarks(reader: Any) -> list[str]:
    return [entry.title for entry in reader.outline if not isinstance(entry, list)]


def test_one_a4_document_of_plausible_length(printed, nav):
    pages = printed["reader"].pages
    chapters = sum(1 for _, path in nav if path)
    assert chapters + 1 <= len(pages) <= MAX_PAGES, f"the guide prints on {len(pages)} pages"
    width, height = float(pages[0].mediabox.width), float(pages[0].mediabox.height)
    assert (round(width), round(height)) == (595, 842), f"not A4: {width} × {height} pt"


def test_the_contents_page_lists_every_nav_page(printed, nav):
    reader = printed["reader"]
    first = min(reader.get_destination_page_number(e) for e in reader.outline[1:] if not isinstance(e, list))
    contents = words(" ".join(p.extract_text() for p in reader.pages[:first]))  # it may run over pages
    at = contents.find("Contents")
    assert at >= 0, "the first page is not the contents"
    for title, _ in nav:
        found = contents.find(title, at)
        assert found >= 0, f"the contents page lacks {title!r} (or lists it out of order)"
        at = found + len(title)


def test_every_page_title_is_a_bookmark_in_nav_order(printed, nav, print_site: Path):
    expected = ["Contents"] + [page_title(print_site, path) if path else title for title, path in nav]
    assert top_level_bookmarks(printed["reader"]) == expected


def test_the_bookmark_check_catches_a_missing_chapter(printed, nav, print_site: Path):
    outline = top_level_bookmarks(printed["reader"])
    chapter = page_title(print_site, "guide/roofline.md")
    assert missing_from_outline(outline, [chapter]) == []
    assert missing_from_outline([t for t in outline if t != chapter], [chapter]) == [chapter]
    assert missing_from_outline(list(reversed(outline)), outline[:2]) == [outline[1]]


def test_collapsed_answers_print_open(printed, print_site: Path):
    # The first answer on the questions page, up to its first formula: on paper it must be there,
    # on the pages after the chapter's bookmark.
    page = (print_site / "questions" / "index.html").read_text()
    answer = re.search(r'<details class="answer">\s*<summary>.*?</summary>\s*<p>(.*?)(?:\\\(|</p>)', page, re.S)
    opening = " ".join(html.unescape(re.sub(r"<[^>]+>", "", answer.group(1))).split()[:8])
    reader = printed["reader"]
    title = page_title(print_site, "questions.md")
    start = next(reader.get_destination_page_number(e) for e in reader.outline
                 if not isinstance(e, list) and e.title == title)
    assert opening in words(" ".join(p.extract_text() for p in reader.pages[start:start + 3]))


def test_no_console_error_and_no_request_to_another_host(printed):
    assert printed["problems"] == []


def test_the_printed_drawings_have_their_sizes(print_site: Path):
    # The print page is made of the pages' HTML before hooks.on_page_context fills in their drawings' sizes
    # (figures.fill): on_post_build fills the print page's too, or its pictures would print unsized.
    page = (print_site / "print_page" / "index.html").read_text()
    assert "@@drawing:" not in page
    assert re.search(r'<img [^>]*class="drawing__wide"[^>]*width="\d+"', page)
