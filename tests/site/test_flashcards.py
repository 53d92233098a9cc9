"""The flashcards: a valid Anki package (a zip holding an SQLite collection with one note per card),
its numbers the site's, the same note ids from one build to the next, and a changed GPU spec changing
the affected answers but not the ids."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sqlite3
import zipfile
from pathlib import Path

import genanki
import pytest

from macros.site import flashcards
from macros.site.pages import flashcards as page

FIELD_SEP = "\x1f"


def notes(site: Path, tmp: Path) -> dict[str, tuple[int, str, str, str]]:
    """key -> (note id, guid, front, back), read from the package's collection database."""
    with zipfile.ZipFile(site / "practice" / "flashcards.apkg") as z:
        assert set(z.namelist()) == {"collection.anki2", "media"}
        db = tmp / f"collection-{abs(hash(str(site)))}.anki2"
        db.write_bytes(z.read("collection.anki2"))
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select id, guid, flds from notes").fetchall()
        cards = conn.execute("select nid from cards").fetchall()
    assert sorted(nid for (nid,) in cards) == sorted(r[0] for r in rows), "one card per note"
    out = {}
    for nid, guid, fields in rows:
        front, back, key = fields.split(FIELD_SEP)
        out[key] = (nid, guid, front, back)
    assert len(out) == len(rows), "a key used twice"
    return out


def _text(fragment: str) -> str:
    # A glossary abbreviation is inline, often inside a word's run ("295 <abbr>FLOP</abbr>/B"): no space for it.
    fragment = re.sub(r"</?abbr\b[^>]*>", "", fragment)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


FORMULA = re.compile(r'<(span|div) class="arithmatex">')
ANNOTATION = re.compile(r'<annotation encoding="application/x-tex">(.*?)</annotation>', re.S)


def _as_tex(page_html: str) -> str:
    """The built page with each typeset formula back as arithmatex wrote it, its TeX between \\( \\) or
    \\[ \\], as a card carries it for Anki to typeset (KaTeX keeps the TeX in its MathML annotation)."""
    out, at = [], 0
    for start in FORMULA.finditer(page_html):
        tag, depth = start.group(1), 0
        for t in re.finditer(rf"<(/?){tag}\b[^>]*>", page_html[start.start():]):
            depth += -1 if t.group(1) else 1
            if depth == 0:
                end = start.start() + t.end()
                break
        tex = ANNOTATION.search(page_html, start.start(), end).group(1)
        tex = rf"\({tex}\)" if tag == "span" else rf"\[{tex}\]"
        out += [page_html[at:start.start()], f'<{tag} class="arithmatex">{tex}</{tag}>']
        at = end
    return "".join(out) + page_html[at:]


def test_the_deck_is_a_valid_package_with_one_note_per_card(built_site: Path, tmp_path: Path):
    deck = notes(built_site, tmp_path)
    stated = page.model()
    assert len(deck) == stated.total
    kinds = [key.split("/")[0] for key in deck]
    assert (kinds.count("question"), kinds.count("number"), kinds.count("term"), kinds.count("problem")) == (
        stated.questions, stated.numbers, stated.terms, stated.problems)
    for key, (_, guid, _, _) in deck.items():
        assert guid == genanki.guid_for(key), key  # from the key, never from the text
    rows = list(csv.DictReader(io.StringIO((built_site / "practice" / "flashcards.csv").read_text())))
    assert [r["key"] for r in rows] == list(deck) and all(r["back"] == deck[r["key"]][3] for r in rows)


def test_the_deck_says_what_the_site_says(built_site: Path, tmp_path: Path):
    deck = notes(built_site, tmp_path)
    questions = _text(_as_tex((built_site / "questions" / "index.html").read_text()))
    cheatsheet = _text((built_site / "cheatsheet" / "index.html").read_text())
    problems_page = _text((built_site / "practice" / "problems" / "index.html").read_text())
    glossary_page = _text((built_site / "glossary" / "index.html").read_text())
    stated = {c.key: c.value for c in flashcards.number_cards() + flashcards.term_cards() + flashcards.problem_cards()
              + flashcards.formula_deck()}
    for key, (_, _, front, back) in deck.items():
        kind = key.split("/")[0]
        if kind == "question":
            assert _text(back) in questions and _text(front) in questions, key
        else:
            value = stated[key]
            assert value in _text(back), key
            if kind == "formula":  # its worked value is the engine's (test_formula_cards.py), on no one page
                continue
            assert value in {"number": cheatsheet, "term": glossary_page}.get(kind, problems_page), (key, value)


def test_the_term_cards_are_the_glossarys_definitions(tmp_path: Path, monkeypatch):
    # problems.toml's [deck] terms: one recall card each, the glossary's term and definition, keyed by the entry.
    from macros.site import glossary

    entries = {e.key: e for e in glossary.load()}
    cards = flashcards.term_cards()
    assert [c.key for c in cards] == [f"term/{k}" for k in flashcards.settings()["deck"]["terms"]]
    mm1 = next(c for c in cards if c.key == "term/m-m-1")
    assert mm1.front == "M/M/1 queue: what is it?" and mm1.value == entries["m-m-1"].definition
    assert {c.kind for c in cards} == {"recall"}
    # A key the glossary lacks is one line naming the file and the key.
    monkeypatch.setattr(flashcards, "settings", lambda: {"deck": {"terms": ["m-m-2"]}})
    with pytest.raises(flashcards.FlashcardError, match=r"problems.toml: \[deck\] terms: 'm-m-2' is not an entry"):
        flashcards.term_cards()


def test_the_checks_catch_a_deck_that_disagrees(built_site: Path, tmp_path: Path):
    deck = notes(built_site, tmp_path)
    questions = _text(_as_tex((built_site / "questions" / "index.html").read_text()))
    _, _, _, back = deck["question/q12"]
    assert _text(back) in questions
    assert _text(back.replace("22.7 ms", "91 ms").replace("122", "131")) not in questions


def test_two_builds_give_the_same_notes_and_bytes(built_site: Path, print_site: Path, tmp_path: Path):
    # The print-site build is a second build of the same sources in another process, minutes later;
    # its plugins change how pages are put together, which must not reach the deck.
    again = print_site
    first, second = notes(built_site, tmp_path), notes(again, tmp_path)
    assert {k: v[:2] for k, v in first.items()} == {k: v[:2] for k, v in second.items()}
    assert (built_site / "practice" / "flashcards.apkg").read_bytes() == (again / "practice" /
                                                                           "flashcards.apkg").read_bytes()


@pytest.fixture(scope="module")
def faster_h100(changed_project: tuple[Path, Path]) -> Path:
    """The site built from a copy of the project whose H100 has more bandwidth (conftest.py)."""
    return changed_project[1]


def test_a_changed_gpu_spec_changes_the_answers_but_not_the_ids(built_site: Path, faster_h100: Path,
                                                                 tmp_path: Path):
    before, after = notes(built_site, tmp_path), notes(faster_h100, tmp_path)
    assert {k: v[:2] for k, v in before.items()} == {k: v[:2] for k, v in after.items()}  # same notes, same ids
    assert before["number/h100-bandwidth"][3] != after["number/h100-bandwidth"][3]
    assert after["number/h100-bandwidth"][3] == "4.69 TB/s"  # CHANGED_BANDWIDTH, as the cheat sheet writes it
    old = {e["id"]: e for e in json.loads((built_site / "practice" / "problems.json").read_text())}
    new = {e["id"]: e for e in json.loads((faster_h100 / "practice" / "problems.json").read_text())}
    assert list(old) == list(new)  # the same questions under the same ids
    changed = unchanged = 0
    for id_, e in old.items():
        key = f"problem/{id_}"
        was = {i["name"]: i["printed"] for i in e["inputs"]}
        now = {i["name"]: i["printed"] for i in new[id_]["inputs"]}
        if e["kind"] == "speculative" and was.get("bandwidth") == "3.35 TB/s":  # on an H100: the balance moves
            assert now == {**was, "bandwidth": "4.69 TB/s"}, id_  # the same question with the new figure
            assert new[id_]["answer"] != e["answer"] and before[key][3] != after[key][3], id_
            changed += 1
        elif new[id_]["inputs"] == e["inputs"] and e["variant"] != "queue":  # simulated on the changed GPU
            assert new[id_]["answer"] == e["answer"] and before[key][3] == after[key][3], id_
            unchanged += 1
    assert changed and unchanged
