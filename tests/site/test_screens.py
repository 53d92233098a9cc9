"""What the built HTML carries for readers on any screen, checked without a browser (the browser
tests in tests/browser/test_pages.py measure the laid-out pages): cited figures take focus, names and
flags are kept whole, the calculator's output and the tables keep the shape that fits 1280 px."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from macros.site.build.nobreak import keep_together
from macros.site.markdown import cite

NOBR = '<span class="nobr">{}</span>'
SPAN_WITH_TITLE = re.compile(r"<span\b[^>]*\btitle=[^>]*>")


# --- keep_together ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text, kept", [
    ("<p>Llama-3.1-70B on 4 GPUs</p>", ["Llama-3.1-70B"]),
    ("<p>a 2,000-token prompt</p>", ["2,000-token"]),
    ("<td>Qwen3-235B-A22B.</td>", ["Qwen3-235B-A22B"]),  # the full stop stays outside
    ("<p><code>--seq-len</code> and <code>--gpus</code></p>", ["--seq-len", "--gpus"]),
    ("<p>gpu_math.py --model llama-70b --gpu h100-pcie</p>", ["--model", "llama-70b", "--gpu", "h100-pcie"]),
])
def test_names_and_flags_are_wrapped(text: str, kept: list[str]):
    out = keep_together(text)
    for word in kept:
        assert NOBR.format(word) in out
    assert re.sub(r"</?span[^>]*>", "", out) == text  # the text itself is unchanged


@pytest.mark.parametrize("text", [
    "<p>copy-on-write and time-to-first-token</p>",  # plain compound words may still break
    "<pre><code>--gpus 4 --model llama-70b</code></pre>",  # code blocks are verbatim
    '<a href="/x/llama-3.1-70b/" title="Llama-3.1-70B">link</a>',  # attributes are not text
    '<span class="arithmatex">\\( N_{a-1} - 2-3 \\)</span>',  # math stays raw for KaTeX
    "<script>let x = a-1; run('--flag-1')</script>",
    "<title>Qwen3-235B-A22B - guide</title>",
])
def test_everything_else_is_left_alone(text: str):
    assert keep_together(text) == text


# --- cite ------------------------------------------------------------------------------------------


def test_cite_takes_focus_and_escapes_its_source():
    # tabindex -1: a tap focuses the span, so Material's tooltip opens, but it is no Tab stop of its own
    # (a11y.js makes one figure per table or paragraph the Tab stop; the arrow keys reach the others).
    span = cite("3.35", 'NVIDIA "H100" datasheet | p. 2', unverified=True)
    assert span == ('<span class="cite unverified" title="unverified: NVIDIA &quot;H100&quot; datasheet '
                    '&#124; p. 2" tabindex="-1">3.35</span>')


def test_every_span_with_a_source_takes_focus(built_site: Path):
    seen = 0
    for page in built_site.rglob("*.html"):
        for tag in SPAN_WITH_TITLE.findall(page.read_text()):
            seen += 1
            assert 'tabindex="-1"' in tag, f"{page.relative_to(built_site)}: {tag[:120]}"
    assert seen > 200, f"expected the cited figures of every reference page, found {seen}"


def test_no_page_says_hover(built_site: Path):
    # Touch and keyboard readers cannot hover; the pages say "point at, tap or Tab to".
    for page in built_site.rglob("*.html"):
        # What a reader reads: not the inlined style sheet (its :hover rules) or scripts.
        shown = re.sub(r"<(style|script)\b.*?</\1>", " ", page.read_text(), flags=re.S)
        text = re.sub(r"<[^>]+>", " ", shown)
        assert not re.search(r"\bhover\b", text, re.I), page.relative_to(built_site)


def test_home_page_title_names_the_site_once(built_site: Path):
    title = re.search(r"<title>(.*?)</title>", (built_site / "index.html").read_text()).group(1)
    assert title == "Inference Infrastructure Field Guide"
