"""Light pages: measured in headless Chromium against the built site served on 127.0.0.1, in the walk
the layout tests share (tests/browser/walk.py, which says what a page's weight counts). Drawings load lazily,
so a drawing far down the page, or in a tab that is not open, costs nothing up front; the math
comes typeset from the build, so no page fetches KaTeX's script, and only a page with math its
stylesheet. The last tests make a page too heavy and show that the
check fires.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import headless as browser
import pytest
from walk import Load, load

from macros.site.build.katex_html import Typesetter, links

MAX_PAGE_BYTES = 1_500_000  # 1.5 MB, decimal like every unit on the site


def has_math(site: Path, path: str) -> bool:
    return 'class="arithmatex"' in (site / path / "index.html").read_text()


@pytest.fixture(scope="module")
def loads(site_walk) -> dict[str, Load]:
    """Every page's load, from the walk the layout tests share (tests/browser/walk.py)."""
    return site_walk.loads


def test_every_page_is_measured(loads: dict[str, Load], built_site: Path):
    assert "" in loads and "numbers/" in loads and len(loads) == len(list(built_site.rglob("index.html")))
    # Sanity: the measure counts what a page fetches (its HTML at least, and Material's bundle).
    for path, measured in loads.items():
        assert measured.bytes >= (built_site / path.lstrip("/") / "index.html").stat().st_size
        assert measured.fetched(r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js$"), path


def test_no_page_is_heavier_than_the_budget(loads: dict[str, Load]):
    heavy = {path: m.bytes for path, m in loads.items() if m.bytes > MAX_PAGE_BYTES}
    assert heavy == {}, f"pages over {MAX_PAGE_BYTES:,} bytes up front: {heavy}"


def test_no_page_fetches_the_search_index(loads: dict[str, Load]):
    # Fetched once the reader opens search (overrides/main.html; test_search.py), not as a page loads.
    assert {path: m.fetched(r"search_index\.json$") for path, m in loads.items() if m.fetched("search_index")} == {}


KATEX_RULE = "font-family:KaTeX_AMS"  # a font only KaTeX's stylesheet (assets/katex/katex.min.css) declares


def stylesheets(site: Path, path: str, measured: Load) -> str:
    """The page's styles: those inlined in its <head> and the stylesheets it fetched (critical_css.py
    joins every stylesheet a page links in one)."""
    html = (site / path / "index.html").read_text()
    fetched = [(site / url.split("?")[0]).read_text() for url in measured.fetched(r"\.css$")]
    return html[:html.index("</head>")] + "".join(fetched)


def test_katex_loads_only_where_there_is_math(loads: dict[str, Load], built_site: Path):
    with_math = [p for p in loads if has_math(built_site, p.lstrip("/"))]
    without = [p for p in loads if p not in with_math]
    assert with_math and without, "the site should have pages with math and pages without"
    for path in with_math:
        assert KATEX_RULE in stylesheets(built_site, path, loads[path]), f"{path} has math but not KaTeX's styles"
    for path in loads:  # the math comes typeset: no page needs KaTeX's script
        assert not loads[path].fetched(r"katex[^/]*\.js$"), f"{path} loaded {loads[path].fetched('katex')}"
    for path in without:
        fetched = loads[path].fetched("katex")
        assert not loads[path].fetched(r"assets/katex/"), f"{path} has no math but loaded {fetched}"
        assert KATEX_RULE not in stylesheets(built_site, path, loads[path]), f"{path} has no math but KaTeX's styles"


def test_math_is_typeset(site_walk, built_site: Path):
    assert any(has_math(built_site, path.lstrip("/")) for path in site_walk.loads)
    assert site_walk.untypeset == {}, f"formulas the build left raw: {site_walk.untypeset}"


def test_hidden_tabs_load_no_drawing(chromium, built_site: Path):
    # /numbers/ has one roofline per GPU, each in a tab; scrolled to them, only the open tab's loads.
    html = (built_site / "numbers" / "index.html").read_text()
    placed = set(re.findall(r"assets/drawings/(roofline-[\w-]+)\.svg", html))
    assert len(placed) > 2
    with browser.serve(built_site) as base:
        measured = load(chromium, base, "numbers/", scroll_to=".tabbed-set:has(img[src*='roofline'])")
    assert len(measured.fetched(r"assets/drawings/roofline-[\w-]+\.svg$")) == 1, measured.fetched("roofline")


def test_the_weight_check_catches_a_heavy_page(chromium, built_site: Path, tmp_path: Path):
    # A page given a 2 MB picture at its top, loaded eagerly, weighs more than the budget; the same
    # picture loaded lazily far down the page costs nothing up front.
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    (site / "assets" / "heavy.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' + "<!--" + "x" * 2_000_000 + "--></svg>")
    page = site / "errata" / "index.html"
    text = page.read_text()
    at = text.index("<h1")
    page.write_text(text[:at] + '<img src="../assets/heavy.svg" width="10" height="10">' + text[at:])
    lazy = site / "conventions" / "index.html"
    text = lazy.read_text()
    at = text.index("</article>")
    lazy.write_text(text[:at] + '<div style="height:20000px"></div><img src="../assets/heavy.svg" loading="lazy" '
                    'width="10" height="10">' + text[at:])
    with browser.serve(site) as base:
        heavy, light = load(chromium, base, "errata/"), load(chromium, base, "conventions/")
    assert heavy.bytes > MAX_PAGE_BYTES and heavy.fetched(r"heavy\.svg$")
    assert light.bytes < MAX_PAGE_BYTES and not light.fetched(r"heavy\.svg$")


def test_the_katex_check_follows_the_page(chromium, built_site: Path, tmp_path: Path):
    # A page without math given a formula as the build typesets it (katex_html.py), its stylesheet
    # linked ahead of it, fetches KaTeX's stylesheet and no script.
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    typesetter = Typesetter()
    try:
        formula = typesetter.typeset(r'<span class="arithmatex">\(P/B\)</span>')
    finally:
        typesetter.close()
    page = site / "errata" / "index.html"
    assert not has_math(site, "errata")
    text = page.read_text()
    at = text.index("</article>")
    link = links(lambda path: "../" + path, preload_fonts=False)
    page.write_text(text[:at] + f"<p>{link}{formula}</p>" + text[at:])
    with browser.serve(site) as base:
        measured = load(chromium, base, "errata/")
    assert measured.fetched(r"assets/katex/katex\.min\.css$") and not measured.fetched(r"katex.*\.js$")
