"""The styles a page's HTML can use, inlined in its <head> (macros/site/build/critical_css.py): which rules are
kept, how their addresses are rewritten, and where the stylesheets go. The browser side (the inlined
rules lay a page out exactly as the full stylesheets do) is tests/browser/test_first_paint.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from macros.site.build.critical_css import MARKER, CriticalCssError, inline, names, parse


def kept(css: str, page_names: set[str]) -> str:
    return "".join(rule.text(page_names) for rule in parse(css, "test.css"))


def test_a_rule_is_kept_when_every_class_and_id_of_one_selector_is_on_the_page():
    css = ".a .b{color:red}#c>p{color:blue}.d,.a{margin:0}p{padding:0}"
    # .a .b needs .a and .b (only .a here): out. #c>p needs #c: in. ".d,.a": the second selector needs
    # only .a: in, whole. p names no class: in.
    assert kept(css, {".a", "#c"}) == "#c>p{color:blue}.d,.a{margin:0}p{padding:0}"


def test_what_a_selector_names_inside_parentheses_brackets_and_comments_is_not_needed():
    # :not(.x) matches without .x; an attribute value may hold a dot; a comment names nothing.
    css = '.a:not(.x){color:red}a[href$=".pdf"]{color:blue}/* .y */.a{margin:0}:is(.z .w) p{padding:0}'
    assert kept(css, {".a"}) == css.replace("/* .y */", "")


def test_a_selector_with_an_escape_is_kept():
    assert kept(r".w-1\/2{width:50%}", set()) == r".w-1\/2{width:50%}"


def test_grouping_at_rules_keep_what_applies_and_drop_when_empty():
    css = "@media (min-width:10em){.a{color:red}.b{color:blue}}@supports (display:grid){.b{display:grid}}"
    assert kept(css, {".a"}) == "@media (min-width:10em){.a{color:red}}"


def test_other_at_rules_are_kept_whole():
    css = '@charset "UTF-8";@font-face{font-family:F;src:url(f.woff2)}@keyframes spin{to{transform:rotate(1turn)}}'
    assert kept(css, set()) == css


def test_unbalanced_css_is_one_line_naming_the_file():
    with pytest.raises(CriticalCssError, match=r"^test\.css: a block or a string is not closed$"):
        parse(".a{color:red", "test.css")
    with pytest.raises(CriticalCssError, match=r"^test\.css: an unmatched '\}'"):
        parse(".a{color:red}}", "test.css")


def test_names_are_the_classes_and_ids_of_the_html():
    assert names('<div class="a  b" id="c"><p class="">x</p></div>') == {".a", ".b", "#c"}


FONT = '<link rel="preload" href="../../assets/katex/fonts/K.woff2" as="font" type="font/woff2" crossorigin>'
PAGE = f"""<html><head><link rel="stylesheet" href="../../assets/main.css"><title>t</title></head>
<body><p class="a">x</p><link rel="stylesheet" href="../../assets/katex/katex.css">{FONT}
{MARKER}<script></script></body></html>"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "assets" / "katex").mkdir(parents=True)
    (tmp_path / "assets" / "main.css").write_text('@charset "UTF-8";.a{background:url(img/x.png)}.gone{color:red}')
    (tmp_path / "assets" / "katex" / "katex.css").write_text("@font-face{font-family:K;src:url(fonts/K.woff2)}")
    return tmp_path


def test_inline_puts_the_used_rules_in_head_the_fonts_first_in_body_and_one_stylesheet_at_the_marker(site: Path):
    out = inline(PAGE, "guide/x/index.html", site)
    head, body = out.split("</head>")
    # The page at guide/x/: main.css's url(img/x.png) is assets/img/x.png, ../../assets/img/x.png from
    # the page; katex.css's fonts/K.woff2 is assets/katex/fonts/K.woff2. .gone is not on the page.
    style = re.fullmatch(r"<html><head><style>(.*)</style><title>t</title>", head, re.S).group(1)
    assert style == ('@charset "UTF-8";.a{background:url("../../assets/img/x.png")}\n'
                     '@font-face{font-family:K;src:url("../../assets/katex/fonts/K.woff2")}')
    assert body.startswith(f"\n<body>{FONT}<p") and body.count(FONT) == 1  # the font preload first in <body>
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)">', out)
    assert len(links) == 1 and MARKER not in out and body.index(links[0]) < body.index("<script>")
    joined = site / "assets" / "stylesheets" / links[0].rsplit("/", 1)[1]
    assert re.fullmatch(r"\.\./\.\./assets/stylesheets/all-[0-9a-f]{12}\.css", links[0])
    # Both sheets whole, in the page's order, their addresses from assets/stylesheets/; one @charset, first.
    assert joined.read_text() == ('@charset "UTF-8";\n.a{background:url("../img/x.png")}.gone{color:red}\n'
                                  '@font-face{font-family:K;src:url("../katex/fonts/K.woff2")}')


def test_the_joined_stylesheet_is_named_by_its_content(site: Path):
    first = re.search(r'href="([^"]+all-[^"]+)"', inline(PAGE, "guide/x/index.html", site)).group(1)
    (site / "assets" / "main.css").write_text(".a{color:blue}")
    second = re.search(r'href="([^"]+all-[^"]+)"', inline(PAGE, "guide/x/index.html", site)).group(1)
    assert first != second


def test_a_missing_stylesheet_or_marker_is_one_line_naming_the_page(site: Path):
    (site / "assets" / "main.css").unlink()
    with pytest.raises(CriticalCssError, match=r"^guide/x/index\.html: the stylesheet \.\./\.\./assets/main\.css "
                                               r"is not in the built site$"):
        inline(PAGE, "guide/x/index.html", site)
    with pytest.raises(CriticalCssError, match=r"^guide/x/index\.html: no '<!-- stylesheets -->' in the page"):
        inline(PAGE.replace(MARKER, ""), "guide/x/index.html", site)
