"""Search ranks the section that defines a key term first.

Material's search weighs a title match a thousand times a text match, so a term in a question's or a
critique's heading outranked the chapter that defines it in its prose ("KV cache" found the RAG
design's critiques before chapter 3). After the search plugin writes search/search_index.json, the
hook tags each defining section with its terms: Material's search weighs a tag a thousand times a
title, and shows it on the result.

A term that is one word of a longer defined term ("prefill", in "chunked prefill") is listed twice
on its own section: otherwise a search for the word ties between the two sections, and the longer
term's section can win on its text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# Each key term and the section that defines it: the page's URL and the heading's anchor.
DEFINED_AT: dict[str, str] = {
    "prefill": "guide/inference/#13-prefill-and-decode-are-different-workloads",
    "decode": "guide/inference/#13-prefill-and-decode-are-different-workloads",
    "TTFT": "guide/inference/#13-prefill-and-decode-are-different-workloads",
    "TPOT": "guide/inference/#13-prefill-and-decode-are-different-workloads",
    "roofline": "guide/roofline/",
    "arithmetic intensity": "guide/roofline/#21-arithmetic-intensity",
    "machine balance": "guide/roofline/#21-arithmetic-intensity",
    "KV cache": "guide/memory/#32-the-kv-cache-derived",
    "GQA": "guide/memory/#33-gqa-and-why-long-context-is-affordable",
    "MLA": "guide/memory/#33-gqa-and-why-long-context-is-affordable",
    "continuous batching": "guide/batching/#42-continuous-batching",
    "PagedAttention": "guide/batching/#43-pagedattention",
    "chunked prefill": "guide/batching/#44-chunked-prefill",
    "prefix caching": "guide/toolkit/#51-prefix-caching",
    "speculative decoding": "guide/toolkit/#52-speculative-decoding",
    "quantization": "guide/toolkit/#53-quantization",
    "FP8": "guide/toolkit/#53-quantization",
    "tensor parallelism": "guide/toolkit/#54-parallelism-tp-pp-ep",
    "MoE": "guide/toolkit/#54-parallelism-tp-pp-ep",
    "disaggregated prefill": "guide/toolkit/#55-disaggregated-prefill-and-decode",
    "autoscaling": "guide/autoscaling/",
    "Little's law": "guide/autoscaling/#64-admission-control-and-fairness",
}


class SearchTermError(Exception):
    """A defining section the built index does not have (a heading renamed): one line to fix it."""


def _words(term: str) -> set[str]:
    return set(term.lower().split())


def tags_by_location(defined_at: dict[str, str]) -> dict[str, list[str]]:
    """Each defining section's tags: its terms, a term that is a word of a longer one twice."""
    tags: dict[str, list[str]] = {}
    for term, location in defined_at.items():
        within_longer = any(_words(term) < _words(other) for other in defined_at)
        tags.setdefault(location, []).extend([term] * (2 if within_longer else 1))
    return tags


def _site_location(location: str) -> str:
    """An index location with directory URLs, as DEFINED_AT writes it: the offline copy's
    `guide/memory.html#x` and `index.html` read as `guide/memory/#x` and ``."""
    page, hash_, anchor = location.partition("#")
    page = re.sub(r"(^|/)index\.html$", r"\1", page)
    page = re.sub(r"\.html$", "/", page)
    return page + hash_ + anchor


def tag_definitions(docs: list[dict], defined_at: dict[str, str] = DEFINED_AT) -> None:
    """Tag the defining sections in a search index's entries, in place; rerun, it changes nothing."""
    entries = {_site_location(entry["location"]): entry for entry in docs}
    for location, tags in tags_by_location(defined_at).items():
        entry = entries.get(location)
        if entry is None:
            terms = ", ".join(sorted(set(tags)))
            raise SearchTermError(f"macros/site/build/search_terms.py: {terms} defined at {location}, which the site "
                                  "does not have (a heading renamed? point the term at its new anchor)")
        entry["tags"] = [t for t in entry.get("tags", []) if t not in tags] + tags


def tag_index(path: Path) -> None:
    """tag_definitions on a search_index.json, in the search plugin's own format."""
    data = json.loads(path.read_text(encoding="utf-8"))
    tag_definitions(data["docs"])
    path.write_text(json.dumps(data, separators=(",", ":"), default=str), encoding="utf-8")
