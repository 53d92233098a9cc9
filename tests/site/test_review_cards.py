"""The cards the in-page review loads (flashcards.review_js): the deck's cards under the deck's own keys,
so the browser's Leitner boxes and the Anki notes name each card the same way across rebuilds."""

from __future__ import annotations

import json

from macros.site import flashcards


def test_the_review_carries_every_card_under_its_deck_key():
    cards = flashcards.number_cards() + flashcards.problem_cards()
    text = flashcards.review_js(cards).decode()
    prefix = "window.IfgCards = "
    assert text.startswith(prefix) and text.endswith(";\n")
    rows = json.loads(text[len(prefix):-2])
    assert [r["key"] for r in rows] == [c.key for c in cards]
    assert {r["tag"] for r in rows} == {"number", "problem"}
    assert rows[0] == {"key": cards[0].key, "front": cards[0].front, "back": cards[0].back, "tag": cards[0].tag,
                       "kind": "recall"}
    assert {r["kind"] for r in rows if r["tag"] == "problem"} == {"derivation"}
