"""The thirty-five questions page: every question numbered in order, each with a collapsed
answer that links to a section of the site that exists."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

PAGE = "questions/index.html"
QUESTIONS = 35
# The seed's groups, by the number of their first question.
GROUPS = {"Fundamentals": 1, "The roofline": 6, "Memory": 13, "Batching": 17, "Toolkit": 22, "Serving": 29}


@dataclass
class Question:
    id: str
    heading: str = ""
    answers: int = 0  # <details class="answer"> blocks before the next heading
    links: list[str] = field(default_factory=list)  # hrefs inside those blocks


class QuestionParser(HTMLParser):
    """Walks the page: each <h3 id="qN"> opens a question; <h2> closes it; a details block of
    class "answer" after it is its answer, and the links inside that block are its links."""

    def __init__(self) -> None:
        super().__init__()
        self.questions: list[Question] = []
        self.groups: list[tuple[str, int]] = []  # (h2 text, questions seen before it)
        self.current: Question | None = None
        self.heading: str | None = None  # the tag whose text is being collected
        self.text = ""
        self.details_depth = 0  # > 0 while inside an answer block (details may nest)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("h2", "h3"):
            self.current = None
            if tag == "h3" and re.fullmatch(r"q\d+", a.get("id") or ""):
                self.current = Question(a["id"])
                self.questions.append(self.current)
            self.heading, self.text = tag, ""
        elif tag == "details" and self.current is not None:
            if self.details_depth or "answer" in (a.get("class") or "").split():
                if not self.details_depth:
                    self.current.answers += 1
                self.details_depth += 1
        elif tag == "a" and self.details_depth and self.current is not None and a.get("href"):
            self.current.links.append(a["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == self.heading:
            text = self.text.replace("¶", "").strip()
            if tag == "h3" and self.current is not None:
                self.current.heading = text
            elif tag == "h2":
                self.groups.append((text, len(self.questions)))
            self.heading = None
        elif tag == "details" and self.details_depth:
            self.details_depth -= 1

    def handle_data(self, data: str) -> None:
        if self.heading:
            self.text += data


class IdParser(HTMLParser):
    """Every id attribute on a page: the anchors a link can point at."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)


@pytest.fixture(scope="module")
def parsed(built_site: Path) -> QuestionParser:
    parser = QuestionParser()
    parser.feed((built_site / PAGE).read_text())
    return parser


def resolve(site: Path, href: str) -> tuple[Path, str] | None:
    """The built file and anchor an internal link from the questions page points at; None if the
    link leaves the site."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    base = posixpath.dirname(PAGE)
    target = posixpath.normpath(posixpath.join(base, unquote(parts.path))) if parts.path else PAGE
    path = site / target
    if path.is_dir() or parts.path.endswith("/"):
        path = path / "index.html"
    return path, unquote(parts.fragment)


def test_thirty_five_numbered_questions_in_order(parsed: QuestionParser):
    assert [q.id for q in parsed.questions] == [f"q{n}" for n in range(1, QUESTIONS + 1)]
    for n, q in enumerate(parsed.questions, start=1):
        assert q.heading.startswith(f"{n}. "), f"{q.id}: heading {q.heading!r} is not numbered {n}"
        assert q.heading.endswith("?") or q.heading.endswith("."), f"{q.id}: {q.heading!r}"


def test_questions_grouped_as_in_the_source(parsed: QuestionParser):
    # An h2 seen after k questions starts the group whose first question is k + 1.
    starts = {text: seen + 1 for text, seen in parsed.groups if text in GROUPS}
    assert starts == GROUPS


def test_every_question_has_one_answer_with_an_internal_link(parsed: QuestionParser, built_site: Path):
    for q in parsed.questions:
        assert q.answers == 1, f"{q.id}: {q.answers} answer blocks"
        internal = [h for h in q.links if resolve(built_site, h) is not None]
        assert internal, f"{q.id}: the answer links to no page of the site"


def test_every_answer_link_resolves_to_a_page_and_anchor(parsed: QuestionParser, built_site: Path):
    ids: dict[Path, set[str]] = {}
    for q in parsed.questions:
        for href in q.links:
            target = resolve(built_site, href)
            if target is None:
                continue
            path, anchor = target
            assert path.is_file(), f"{q.id}: {href} points at a page that was not built"
            if path not in ids:
                parser = IdParser()
                parser.feed(path.read_text())
                ids[path] = parser.ids
            assert not anchor or anchor in ids[path], f"{q.id}: {href}: no id {anchor!r} on that page"


def test_answers_link_to_sections_not_just_pages(parsed: QuestionParser):
    # Each answer points at the section that covers it, so its first internal link has an anchor.
    for q in parsed.questions:
        assert "#" in q.links[0], f"{q.id}: {q.links[0]} names a page but no section"


def test_resolve_catches_a_broken_anchor(built_site: Path, tmp_path: Path):
    # The link check must be able to fail: a made-up anchor on a real page is not in its ids.
    path, anchor = resolve(built_site, "../guide/memory/#no-such-section")
    parser = IdParser()
    parser.feed(path.read_text())
    assert path.is_file() and anchor not in parser.ids
    assert resolve(built_site, "https://arxiv.org/abs/2309.06180") is None
