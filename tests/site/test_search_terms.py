"""The search index tags each key term's defining section (macros/site/build/search_terms.py); the ranking
itself is checked in the browser, with Material's own search (tests/browser/test_search.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from macros.site.build.search_terms import DEFINED_AT, SearchTermError, tag_definitions, tags_by_location


def test_a_word_of_a_longer_term_is_listed_twice():
    defined_at = {"prefill": "a/#one", "decode": "a/#one", "chunked prefill": "b/#two"}
    # "prefill" is a word of "chunked prefill"; "decode" is no word of another term.
    assert tags_by_location(defined_at) == {"a/#one": ["prefill", "prefill", "decode"], "b/#two": ["chunked prefill"]}


def test_tags_go_on_the_defining_entry_and_rerunning_changes_nothing():
    docs = [{"location": "a/", "title": "A", "text": ""},
            {"location": "a/#one", "title": "One", "text": "", "tags": ["kept"]}]
    tag_definitions(docs, {"decode": "a/#one"})
    assert docs == [{"location": "a/", "title": "A", "text": ""},
                    {"location": "a/#one", "title": "One", "text": "", "tags": ["kept", "decode"]}]
    tag_definitions(docs, {"decode": "a/#one"})
    assert docs[1]["tags"] == ["kept", "decode"]


def test_the_offline_copys_locations_are_found():
    # The offline copy links pages as files: guide/memory.html#x, and the home page as index.html.
    docs = [{"location": "guide/memory.html#x", "title": "", "text": ""},
            {"location": "index.html", "title": "", "text": ""}]
    tag_definitions(docs, {"KV cache": "guide/memory/#x", "home": ""})
    assert [d["tags"] for d in docs] == [["KV cache"], ["home"]]


def test_a_missing_section_is_one_clear_error():
    with pytest.raises(SearchTermError, match=r"search_terms\.py: MoE defined at guide/toolkit/#gone, which"):
        tag_definitions([{"location": "guide/toolkit/", "title": "", "text": ""}], {"MoE": "guide/toolkit/#gone"})


def test_the_built_index_tags_every_term(built_site: Path):
    docs = json.loads((built_site / "search" / "search_index.json").read_text())["docs"]
    tagged = {tag for entry in docs for tag in entry.get("tags", [])}
    assert tagged == set(DEFINED_AT)
