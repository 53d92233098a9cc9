"""Search in headless Chromium against the built site served on 127.0.0.1: the search index (the
site's largest file) is fetched only once the reader opens search, and the page that defines each key
term is the first result for it (macros/site/build/search_terms.py tags the defining sections). The walk
(test_pages.py) checks that no page fetches the index as it loads; from disk, test_offline.py.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import headless as browser
import pytest

INDEX = re.compile(r"/search/search_index\.json$")
PAGE = "guide/roofline/"

# Each key term, and the page that defines it, read off the chapters by hand: where the term is
# introduced, in a heading or in bold in the prose.
DEFINED_ON = {
    "KV cache": "guide/memory/",  # §3.2 The KV cache, derived
    "roofline": "guide/roofline/",  # chapter 2, The roofline
    "machine balance": "guide/roofline/",  # §2.1, "the **machine balance**"
    "arithmetic intensity": "guide/roofline/",  # §2.1 Arithmetic intensity
    "prefill": "guide/inference/",  # §1.3 Prefill and decode are different workloads
    "decode": "guide/inference/",  # §1.3
    "TTFT": "guide/inference/",  # §1.3, "**TTFT** is the wait before the first token"
    "TPOT": "guide/inference/",  # §1.3, "**TPOT** is the gap between tokens"
    "continuous batching": "guide/batching/",  # §4.2 Continuous batching
    "paged attention": "guide/batching/",  # §4.3 PagedAttention, as a reader would type it
    "chunked prefill": "guide/batching/",  # §4.4 Chunked prefill
    "GQA": "guide/memory/",  # §3.3 GQA and why long context is affordable
    "MLA": "guide/memory/",  # §3.3, "**Multi-head latent attention** (MLA)"
    "prefix caching": "guide/toolkit/",  # §5.1 Prefix caching
    "speculative decoding": "guide/toolkit/",  # §5.2 Speculative decoding
    "quantization": "guide/toolkit/",  # §5.3 Quantization
    "FP8": "guide/toolkit/",  # §5.3, FP8 weights on the H100's FP8 peak
    "tensor parallelism": "guide/toolkit/",  # §5.4 Parallelism: TP, PP, EP
    "MoE": "guide/toolkit/",  # §5.4, expert parallelism for a MoE
    "autoscaling": "guide/autoscaling/",  # chapter 6, Autoscaling
    "Little's law": "guide/autoscaling/",  # §6.4, "Little's law (requests in the system = ...)"
}


def open_search(chromium: Any, base: str, path: str) -> tuple[Any, list[str]]:
    """The page loaded and settled, and the list its search-index requests are recorded on."""
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    fetched: list[str] = []
    page.on("request", lambda request: INDEX.search(request.url) and fetched.append(request.url))
    page.goto(base + path, wait_until="load")
    page.evaluate("new Promise(done => document$.subscribe(() => done(true)))")
    page.wait_for_timeout(500)  # time for any request the page would make on its own
    return page, fetched


def top_page(page: Any, base: str, term: str) -> str:
    """The page of the first search result for `term`, relative to the site."""
    page.evaluate("document.querySelector('.md-search-result__list').replaceChildren()")
    page.fill("input.md-search__input", term)
    page.keyboard.press("End")  # Material searches on keyup
    page.wait_for_selector(".md-search-result__list > li", timeout=20_000)
    href = page.eval_on_selector(".md-search-result__list > li a", "a => a.href")
    return re.sub(r"[?#].*$", "", href).removeprefix(base)


@pytest.fixture(scope="module")
def searched(chromium, built_site: Path) -> dict[str, Any]:
    with browser.serve(built_site) as base:
        page, fetched = open_search(chromium, base, PAGE)
        try:
            before = list(fetched)
            page.keyboard.press("/")  # Material's shortcut to the search field
            page.wait_for_timeout(200)
            return {"before": before, "after": list(fetched),
                    "top": {term: top_page(page, base, term) for term in DEFINED_ON}}
        finally:
            page.close()


def test_the_index_is_fetched_only_when_search_opens(searched):
    assert searched["before"] == []
    assert len(searched["after"]) == 1


def test_the_defining_page_ranks_first(searched):
    wrong = {term: f"{top} (defined on {DEFINED_ON[term]})" for term, top in searched["top"].items()
             if top != DEFINED_ON[term]}
    assert wrong == {}


def test_the_check_catches_a_page_that_fetches_the_index_up_front(chromium, built_site: Path, tmp_path: Path):
    # Without the script that holds the request back, Material fetches the index as the page loads.
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    html = site / PAGE / "index.html"
    text = html.read_text()
    held = re.search(r"<script>\s*// Search loaded on demand.*?</script>", text, re.S)
    assert held, "the page should carry the script that holds the index back"
    html.write_text(text.replace(held.group(0), ""))
    with browser.serve(site) as base:
        page, fetched = open_search(chromium, base, PAGE)
        page.close()
    assert len(fetched) == 1
