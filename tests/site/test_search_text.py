"""Search results read as text: the built search index holds no LaTeX, and a formula's words are
still in it to be found. The expected texts below are the TeX rewritten by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from macros.site.build.search_text import plain_math, rewrite_index, tex_to_text

CASES = [
    (r"(M - R)/B", "(M - R)/B"),
    (r"I \approx 1", "I ≈ 1"),
    (r"\frac{P}{B}", "P/B"),
    # A fraction of several terms keeps them together; \text{} is its words; \left \right go.
    (r" b_{\max} = \left\lfloor \frac{g M - N w - g R}{\text{KV per sequence}} \right\rfloor ",
     "b_max = ⌊(g M - N w - g R)/(KV per sequence)⌋"),
    (r"\max\big((N w + b \cdot \text{KV per seq}) / g B,\; 2 N_a b / g P\big)",
     "max((N w + b · KV per seq) / g B, 2 N_a b / g P)"),
    # \qquad separates equations on one line.
    (r"\text{machine balance} = \frac{P}{B} \qquad I = \frac{\text{FLOPs}}{\text{bytes}}",
     "machine balance = P/B; I = FLOPs/bytes"),
    (r"\text{out}_i \;=\; \sum_{j \le i} \operatorname{softmax}_j\!\left(\frac{Q_i \cdot K_j}{\sqrt{d_h}}\right) V_j",
     "out_i = Σ_(j ≤ i) softmax_j((Q_i · K_j)/√d_h) V_j"),
    (r"\frac{\text{price} \cdot g}{3600 \cdot \eta} \cdot 10^{6}", "(price · g)/(3600 · η) · 10^6"),
]


@pytest.mark.parametrize("tex, text", CASES)
def test_tex_to_text(tex: str, text: str):
    assert tex_to_text(tex) == text


def test_plain_math_rewrites_math_and_leaves_code():
    html = (r"<p>close to \((M - R)/B\) = 28.5 ms</p><div>\[ I = \frac{F}{B} \]</div>"
            r"<pre><code>re.compile(r'\(x\)')</code></pre> and <code>\[y\]</code>")
    assert plain_math(html) == (r"<p>close to (M - R)/B = 28.5 ms</p><div>I = F/B</div>"
                                r"<pre><code>re.compile(r'\(x\)')</code></pre> and <code>\[y\]</code>")


def test_rewrite_keeps_the_plugins_format(tmp_path: Path):
    index = tmp_path / "search_index.json"
    data = {"config": {"lang": ["en"]}, "docs": [{"location": "a/", "title": r"Why \(P/B\)", "text": "no math"}]}
    index.write_text(json.dumps(data, separators=(",", ":")))
    rewrite_index(index)
    once = index.read_bytes()
    assert json.loads(once)["docs"][0] == {"location": "a/", "title": "Why P/B", "text": "no math"}
    rewrite_index(index)
    assert index.read_bytes() == once, "rewriting twice must change nothing (the build is byte-stable)"


@pytest.fixture(scope="module")
def index(built_site: Path) -> list[dict[str, str]]:
    return json.loads((built_site / "search" / "search_index.json").read_text())["docs"]


def test_the_pages_have_math_for_the_index_to_lose(built_site: Path):
    # Without this, "no TeX in the index" would pass for want of math anywhere. (The search plugin
    # indexes each page's TeX before the build typesets it.)
    page = (built_site / "cheatsheet" / "index.html").read_text()
    assert re.search(r'<span class="arithmatex"><span><span class="katex">', page)


def test_index_holds_no_tex(index: list[dict[str, str]]):
    raw = [entry["location"] for entry in index for field in ("title", "text")
           if re.search(r"\\[(\[]", entry.get(field, ""))]
    assert raw == [], f"raw TeX in the search index: {raw}"


def test_a_formulas_words_are_still_found(index: list[dict[str, str]]):
    def texts(location: str) -> str:
        return " ".join(e["text"] for e in index if e["location"].startswith(location))

    # The calculator's \((M - R)/B\) and the numbers sheet's max-batch formula, as text among their words.
    assert "close to (M - R)/B" in texts("calculator/")
    assert "KV budget = g M - N w - g R; b_max = ⌊(KV budget)/(KV per sequence)⌋" in texts("numbers/")
