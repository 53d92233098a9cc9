"""The math is typeset at build time (macros/site/build/katex_html.py): every page of the built site holds
KaTeX's HTML and no raw TeX, so it reads with no JavaScript; a formula KaTeX cannot typeset is one
clear error, and a formula seen twice goes to Node once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from macros.site.build.katex_html import MathError, Typesetter

# What a reader must never see: TeX's delimiters, or a formula element with no KaTeX inside. Code,
# scripts and KaTeX's MathML annotation (the TeX, for screen readers and copying) are not prose.
NOT_PROSE = re.compile(r"<(pre|code|script|annotation)\b.*?</\1>", re.S)
ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">')
SHOWN = 12  # characters of each find, to name it


def raw_tex(page_html: str) -> list[str]:
    """Each TeX delimiter in the page's prose, then each formula element with no KaTeX inside, by
    the characters that follow."""
    prose = NOT_PROSE.sub("", page_html)
    raw = [prose[m.start():m.start() + SHOWN] for m in re.finditer(r"\\\(|\\\[|\$\$", prose)]
    return raw + [prose[m.end():m.end() + SHOWN] for m in ARITHMATEX.finditer(prose)
                  if not prose.startswith('<span><span class="katex', m.end())]


@pytest.fixture(scope="module")
def typesetter():
    typesetter = Typesetter()
    yield typesetter
    typesetter.close()


def test_inline_and_display_math_become_katex(typesetter: Typesetter):
    page = (r'<p>ratio <span class="arithmatex">\(P/B\)</span></p>'
            r'<div class="arithmatex">\[ a &lt; b \]</div>')
    out = typesetter.typeset(page)
    assert out.startswith('<p>ratio <span class="arithmatex"><span><span class="katex">')
    # Display math sits in KaTeX's display wrapper; the escaped "<" reached KaTeX as "<", an operator
    # (left escaped, "&" would have been an alignment tab, which KaTeX rejects outside an array).
    assert '<div class="arithmatex"><span><span class="katex-display">' in out
    assert "<mo>&lt;</mo>" in out
    assert raw_tex(out) == []


def test_a_formula_katex_cannot_typeset_is_one_error(typesetter: Typesetter):
    with pytest.raises(MathError, match=r"cannot typeset \\\(\\frac\{P\}\\\): .*frac"):
        typesetter.typeset(r'<span class="arithmatex">\(\frac{P}\)</span>')


def test_an_element_without_delimiters_is_an_error(typesetter: Typesetter):
    with pytest.raises(MathError, match="without"):
        typesetter.typeset('<span class="arithmatex">P/B</span>')


def test_each_formula_goes_to_node_once():
    sent: list[list[tuple[str, bool]]] = []

    class Counting(Typesetter):
        def _render(self, formulas):
            sent.append(formulas)
            return super()._render(formulas)

    typesetter = Counting()
    try:
        inline = r'<span class="arithmatex">\(x\)</span>'
        first = typesetter.typeset(inline * 3 + r'<div class="arithmatex">\[x\]</div>')
        second = typesetter.typeset(inline)
    finally:
        typesetter.close()
    # One page: x inline and x displayed, once each; the next page's x is known already.
    assert sent == [[("x", False), ("x", True)]]
    assert second in first


def test_raw_tex_is_found():
    page = (r'<p>\(P/B\) and $$x$$</p><span class="arithmatex">\(y\)</span>'
            r'<pre><code>re.compile(r"\(x\)")</code></pre>')
    # Each delimiter in prose (the \( of P/B, both $$ and the \( of y), then the formula element
    # holding y; not the \( in code.
    assert raw_tex(page) == [r"\(P/B\) and ", "$$x$$</p><sp", "$$</p><span ", r"\(y\)</span>", r"\(y\)</span>"]


def test_no_page_has_raw_tex(built_site: Path):
    pages = sorted(built_site.rglob("*.html"))
    typeset = [p for p in pages if 'class="katex"' in p.read_text()]
    assert len(typeset) >= 5, "the site's math should come typeset"
    raw = {str(p.relative_to(built_site)): found for p in pages if (found := raw_tex(p.read_text()))}
    assert raw == {}
