"""The flashcards (docs/practice/flashcards.md): an Anki package (.apkg, written with genanki) and a CSV
of the same cards, built at build time from the thirty-five questions (their rendered answers, so the
deck says exactly what the page says), the numbers to quote cold (the cheat sheet's figures), the formulas, one
to a card (formula_cards.py), the terms to
define cold (the glossary's definitions of the entries problems.toml's [deck] lists) and the generated practice
problems.

Anki matches a note on import by its guid. Each card's guid is derived from its key ("question/q12",
"number/kv-per-token", "term/m-d-1", "problem/memory-3"), never from its text, so importing a rebuilt deck after a
spec change updates the cards whose answers moved instead of adding duplicates.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sqlite3
import zipfile
from dataclasses import dataclass
from urllib.parse import urljoin

from ..engine.problems import PATH, problems, settings
from ..engine.specs import display_path
from ..text import fmt, show
from . import formula_cards, glossary
from . import practice as text
from .pages import cheatsheet

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the zip format's earliest date: no build time in the package
QUESTION = re.compile(r'<h3 id="(q\d+)">(.*?)<a class="headerlink".*?</h3>\s*<details class="answer">\s*'
                      r"<summary>.*?</summary>(.*?)</details>", re.S)
HREF = re.compile(r'href="([^"#][^"]*|#[^"]*)"')
CSS = ".card { font-family: sans-serif; font-size: 18px; text-align: left; } pre { white-space: pre-wrap; }"


class FlashcardError(ValueError):
    """The deck cannot be built: one line naming what is missing."""


@dataclass(frozen=True)
class Card:
    key: str  # stable: the note's guid is derived from it
    front: str  # HTML
    back: str  # HTML
    tag: str  # "question", "number", "formula", "term" or "problem"
    value: str = ""  # the figure the back states, as the site prints it (empty for a question)

    @property
    def kind(self) -> str:
        """"recall" (a question, a number or a formula to say cold) or "derivation" (a problem worked step by step):
        a second tag, so a review can take the two apart."""
        return "derivation" if self.tag == "problem" else "recall"


def question_cards(page_html: str, page_url: str) -> list[Card]:
    """One card per question of the rendered questions page, links made absolute from `page_url`."""
    def absolute(m: re.Match) -> str:
        return f'href="{html.escape(urljoin(page_url, html.unescape(m.group(1))))}"'

    cards = []
    for key, title, answer in QUESTION.findall(page_html):
        cards.append(Card(f"question/{key}", title.strip(), HREF.sub(absolute, answer.strip()), "question"))
    if not cards:
        raise FlashcardError("the questions page has no '### N. … { #qN }' question with a '??? answer' block")
    return cards


def number_cards() -> list[Card]:
    """The cheat sheet's numbers to quote cold, each as the cheat sheet prints it."""
    q = cheatsheet.model()
    s, gpu, h200, b200 = q.s, q.gpu, q.h200, q.b200
    group = f"{s.gpus} × {gpu.name}, {q.model.name}, {fmt.count(s.seq_len)}-token sequences"
    facts = [
        ("h100-bandwidth", f"{gpu.name}: memory bandwidth?", fmt.bandwidth(gpu.bandwidth_bytes_per_s)),
        ("h100-bf16", f"{gpu.name}: dense BF16 peak?", fmt.flops_rate(gpu.bf16_flops)),
        ("h100-memory", f"{gpu.name}: memory?", fmt.bytes_(gpu.memory_bytes)),
        ("machine-balance", f"{gpu.name}: machine balance (dense BF16)?", show.machine_balance(gpu)),
        ("h200-bandwidth", f"{h200.name}: memory bandwidth?", fmt.bandwidth(h200.bandwidth_bytes_per_s)),
        ("h200-bandwidth-gain", f"{h200.name} against {gpu.name}: how much more bandwidth?",
         fmt.pct(q.bandwidth_gain, 2)),
        ("b200-bandwidth", f"{b200.name}: memory bandwidth?", fmt.bandwidth(b200.bandwidth_bytes_per_s)),
        ("weights-70b", f"{q.model.name}: weight bytes in {s.weights_dtype.upper()}?", show.weights(s)),
        ("kv-per-token", f"{q.model.name}: KV bytes per token?", show.kv_per_token(q.model)),
        ("kv-per-seq", f"{q.model.name}: KV cache of one {fmt.count(s.seq_len)}-token sequence?",
         fmt.bytes_(s.kv_bytes_per_seq)),
        ("kv-long", f"{q.model.name}: KV cache of one {fmt.count(q.long)}-token sequence?", fmt.bytes_(q.kv_long)),
        ("weight-read-one-gpu", f"{q.model.name}: reading every weight once on one {gpu.name}?",
         fmt.ms(q.one_gpu.read_s)),
        ("anchor-budget", f"{group}: KV budget?", fmt.bytes_(s.kv_budget_bytes)),
        ("anchor-max-batch", f"{group}: max batch?", f"{s.max_batch} sequences"),
        ("anchor-step", f"{group}: decode-step floor at the max batch?", fmt.ms(s.decode_step_s)),
        ("anchor-per-user", f"{group}: floor rate per user?", fmt.tokens_per_s(s.decode_tokens_per_s_per_user)),
        ("anchor-cost", f"{group}: cost per million output tokens at {fmt.usd(s.price_per_gpu_hour)} per GPU-hour "
         f"and {fmt.pct(s.efficiency)} of the floor?", fmt.usd(s.cost_per_million_tokens)),
        ("mla-kv-per-token", f"{q.mla.name}: KV bytes per token (MLA)?", f"{fmt.count(q.mla_kv_per_token)} bytes"),
    ]
    return [Card(f"number/{key}", html.escape(front), html.escape(value), "number", value)
            for key, front, value in facts]


def term_cards() -> list[Card]:
    """The glossary entries the deck's settings list (problems.toml's [deck] terms), to define cold: the term,
    then its definition as the glossary page prints it."""
    entries = {e.key: e for e in glossary.load()}
    cards = []
    for key in settings()["deck"].get("terms", []):
        if key not in entries:
            raise FlashcardError(f"{display_path(PATH)}: [deck] terms: {key!r} is not an entry of the glossary")
        e = entries[key]
        name = e.term[0].upper() + e.term[1:] + (f" ({e.abbr})" if e.abbr and e.abbr not in e.term else "")
        cards.append(Card(f"term/{key}", html.escape(f"{name}: what is it?"), html.escape(e.definition), "term",
                          e.definition))
    return cards


def problem_cards(site_url: str | None = None) -> list[Card]:
    """One derivation card per generated problem: the question with every number it needs, then the answer
    and its worked steps (and, for a simulated answer, the command that checks it)."""
    cards = []
    for p in problems():
        answer = text.answer_text(p)
        steps = "".join(f"<li>{html.escape(what)}: {html.escape(how)}</li>" for what, how in text.steps(p))
        back = f"<b>{html.escape(answer)}</b><ul>{steps}</ul>"
        check = text.command(p)
        if check:
            back += f"<p>Check it: <code>{html.escape(check)}</code></p>"
        if site_url:
            back += f'<p><a href="{urljoin(site_url, "practice/problems/")}#{p.id}">On the site</a></p>'
        cards.append(Card(f"problem/{p.id}", html.escape(text.question(p)), back, "problem", answer))
    return cards


def formula_deck(site_url: str | None = None) -> list[Card]:
    """One card per formula (macros/site/formula_cards.py): the quantity asked, then the formula, its symbols
    and its value on the anchor model."""
    return [Card(f"formula/{c.key}", formula_cards.front(c), formula_cards.back(c, site_url), "formula",
                 c.shown(c.value())) for c in formula_cards.cards()]


def cards(questions_html: str, questions_url: str, site_url: str | None = None) -> list[Card]:
    return (question_cards(questions_html, questions_url) + number_cards() + formula_deck(site_url) + term_cards()
            + problem_cards(site_url))


def apkg(deck_cards: list[Card]) -> bytes:
    """The Anki package: a zip holding collection.anki2 (an SQLite collection) and an empty media map,
    byte-identical from one build to the next (fixed ids, timestamp and zip dates)."""
    import genanki

    conf = settings()["deck"]
    note_type = genanki.Model(
        conf["model_id"], f"{conf['name']} card",
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Key"}],
        templates=[{"name": "Card", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}], css=CSS)
    deck = genanki.Deck(conf["deck_id"], conf["name"])
    for c in deck_cards:
        deck.add_note(genanki.Note(model=note_type, fields=[c.front, c.back, c.key], tags=[c.tag, c.kind],
                                   guid=genanki.guid_for(c.key)))
    conn = sqlite3.connect(":memory:")  # in memory, then serialized: no temporary file
    timestamp = float(conf["timestamp"])
    genanki.Package(deck).write_to_db(conn.cursor(), timestamp, iter(range(int(timestamp * 1000), 2**62)))
    conn.commit()
    db = conn.serialize()
    conn.close()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in (("collection.anki2", db), ("media", b"{}")):
            z.writestr(zipfile.ZipInfo(name, ZIP_DATE), data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def review_js(deck_cards: list[Card]) -> bytes:
    """The cards for the review in the page (docs/assets/javascripts/practice/review.js), as a classic
    script, which a page opened from disk can load where it could not fetch JSON. Each card keeps its
    key, so the browser's Leitner boxes and the Anki deck name a card the same way."""
    rows = [{"key": c.key, "front": c.front, "back": c.back, "tag": c.tag, "kind": c.kind} for c in deck_cards]
    return ("window.IfgCards = " + json.dumps(rows, ensure_ascii=False, separators=(",", ":")) + ";\n").encode()


def csv_bytes(deck_cards: list[Card]) -> bytes:
    """The same cards as CSV (key, front, back, tag), for any other flashcard tool."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["key", "front", "back", "tag"])
    for c in deck_cards:
        writer.writerow([c.key, c.front, c.back, c.tag])
    return out.getvalue().encode()
