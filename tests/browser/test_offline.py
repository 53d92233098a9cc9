"""The offline copy (`make offline`) works opened from disk: headless Chromium loads index.html from a
file:// URL, follows the navigation to a chapter in a subfolder, and searches from there, with no
console error and no request to another host. The last test breaks a copy and shows the walk fails."""

from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path
from typing import Any

import headless as browser
import pytest

CHAPTER = "guide/roofline.html"  # in a subfolder: its links to assets and search must climb out of it
QUERY = "bandwidth"
SEARCH_WAIT_MS = 5000


def walk(chromium: Any, site: Path) -> dict[str, Any]:
    """What a reader gets: the chapter reached from the home page's navigation, its title, the
    search results for QUERY and where the first leads, and every problem seen on the way."""
    problems: list[str] = []
    page = browser.open_page(chromium, (site / "index.html").as_uri(), problems=problems)
    try:
        page.click(f'nav.md-nav--primary a.md-nav__link[href="{CHAPTER}"]')
        page.wait_for_load_state("load")
        seen: dict[str, Any] = {"chapter": page.url, "title": page.inner_text("article h1"),
                                "typeset_formulas": page.locator("article .katex").count(),
                                "math_font": page.eval_on_selector("article .katex",
                                                                   "e => getComputedStyle(e).fontFamily")}
        try:
            page.fill("input.md-search__input", QUERY, timeout=SEARCH_WAIT_MS)
            page.wait_for_selector(".md-search-result__item", timeout=SEARCH_WAIT_MS)
            seen["results"] = page.locator(".md-search-result__item").count()
            # Where the first result leads (resolved by the browser, as a click would be).
            seen["result_link"] = page.eval_on_selector(".md-search-result__item a", "a => a.href")
        except browser_timeout() as exc:
            seen["results"] = 0
            problems.append(f"search gave no result: {str(exc).splitlines()[0]}")
        seen["problems"] = problems
        return seen
    finally:
        page.close()


def browser_timeout() -> type[Exception]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    return PlaywrightTimeout


@pytest.fixture(scope="module")
def walked(chromium, offline_site: Path) -> dict[str, Any]:
    return walk(chromium, offline_site)


def test_navigation_works_from_disk(walked, offline_site: Path):
    assert walked["chapter"] == (offline_site / CHAPTER).as_uri()
    assert "roofline" in walked["title"].lower()


def test_formulas_are_typeset_from_disk(walked):
    # The build typesets the math; from disk the chapter shows it in KaTeX's fonts, its stylesheet
    # found relative to the page.
    assert walked["typeset_formulas"] > 0
    assert "KaTeX_Main" in walked["math_font"]


def test_search_works_from_disk(walked, offline_site: Path):
    assert walked["results"] > 0
    link = urllib.parse.urlsplit(walked["result_link"])
    assert link.scheme == "file" and link.path.startswith(str(offline_site) + "/")
    assert link.path.endswith(".html") and Path(urllib.parse.unquote(link.path)).is_file()


def test_no_console_error_and_no_request_to_another_host(walked):
    assert walked["problems"] == []


def test_the_walk_catches_a_broken_copy(chromium, offline_site: Path, tmp_path: Path):
    site = tmp_path / "site-offline"
    shutil.copytree(offline_site, site)
    # Without the vendored web-worker shim, search cannot start its worker from file://.
    (site / "assets" / "iframe-worker" / "shim.js").unlink()
    # An asset from elsewhere, as Material's offline plugin would load its shim by default.
    _replace(site / "index.html", "</head>", '<img src="https://example.org/x.png"></head>')
    problems = walk(chromium, site)["problems"]
    for expected in ("search gave no result", "request to another host: https://example.org/x.png"):
        assert any(expected in problem for problem in problems), problems


def _replace(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new, 1))
