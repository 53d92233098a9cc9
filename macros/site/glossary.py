"""The glossary (data/glossary.toml): read and checked once, then made into Material's abbreviations and the
glossary page.

The abbreviations are a Markdown snippet of `*[TTFT]: ...` lines that pymdownx.snippets appends to every page
(hooks.py writes it under .cache/ and points the extension at it), so an abbreviation shows its definition on
hover and, with Material's content.tooltips, on tap, wherever a page uses it. Python-Markdown's `abbr` leaves
code, math (an AtomicString) and raw HTML alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown.extensions.toc import slugify

from ..engine.specs import DATA_DIR, display_path, read_toml

GLOSSARY_TOML = DATA_DIR / "glossary.toml"
DOCS_DIR = DATA_DIR.parent.parent / "docs"
FIELDS = {"term", "abbr", "also", "definition", "teaches"}
REQUIRED = ("term", "definition", "teaches")
MAX_DEFINITION = 400  # characters: one or two sentences, to read in a tooltip on a phone
KEY = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
TEACHES = re.compile(r"(?P<page>[a-z0-9/_-]+\.md)#(?P<anchor>[a-z0-9_-]+)")
# A Markdown heading, with an explicit id if it has one: `## 5.4 Parallelism` or `### 29. Why ... { #q29 }`.
HEADING = re.compile(r"^#{1,6}\s+(?P<text>.*?)(?:\s*\{\s*#(?P<id>[\w-]+)\s*\})?\s*$")


class GlossaryError(ValueError):
    """A bad glossary entry: one line naming the file, the entry and what is wrong."""


@dataclass(frozen=True)
class Entry:
    key: str  # the entry's anchor on the glossary page
    term: str
    abbr: str | None
    also: tuple[str, ...]
    definition: str
    teaches: str  # page.md#anchor

    @property
    def hovered(self) -> tuple[str, ...]:
        """The strings a page shows this entry's definition on: the abbreviation and its other spellings."""
        return ((self.abbr,) if self.abbr else ()) + self.also

    @property
    def tooltip(self) -> str:
        """The hover text: the name spelled out, where the abbreviation does not already say it, then the
        definition."""
        if self.abbr == self.term:
            return self.definition
        name = self.term[0].upper() + self.term[1:]
        return f"{name}. {self.definition}"


def _text(value: object, field: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise GlossaryError(f"{where} {field}: must be non-empty text, got {value!r}")
    if "\n" in value or value != value.strip():
        raise GlossaryError(f"{where} {field}: must be one line with no space at either end")
    return value


def _entry(key: str, raw: object, where: str) -> Entry:
    at = f"{where}: [{key}]"
    if not KEY.fullmatch(key):
        raise GlossaryError(f"{at}: the key must be lower-case words joined by hyphens (it is the page's anchor)")
    if not isinstance(raw, dict):
        raise GlossaryError(f"{at}: must be a table, got {raw!r}")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        raise GlossaryError(f"{at}: unknown field {unknown[0]!r} (the fields are {', '.join(sorted(FIELDS))})")
    for field in REQUIRED:
        if field not in raw:
            raise GlossaryError(f"{at}: {field} is missing")
    term, definition, teaches = (_text(raw[f], f, at) for f in REQUIRED)
    abbr = _text(raw["abbr"], "abbr", at) if "abbr" in raw else None
    also = raw.get("also", [])
    if not isinstance(also, list):
        raise GlossaryError(f"{at} also: must be a list of text, got {also!r}")
    also = tuple(_text(a, "also", at) for a in also)
    for shown in ((abbr,) if abbr else ()) + also:
        if "]" in shown:  # it would end the `*[...]` of the abbreviation's definition
            raise GlossaryError(f"{at}: {shown!r} cannot hold ']'")
    if len(definition) > MAX_DEFINITION:
        raise GlossaryError(f"{at} definition: {len(definition)} characters, more than {MAX_DEFINITION}")
    if definition[-1] not in ".!?":
        raise GlossaryError(f"{at} definition: must end a sentence")
    if not TEACHES.fullmatch(teaches):
        raise GlossaryError(f"{at} teaches: must be page.md#anchor, got {teaches!r}")
    return Entry(key, term, abbr, also, definition, teaches)


def load(path: Path = GLOSSARY_TOML) -> list[Entry]:
    """Every entry, checked: each field, then that no spelling is claimed by two entries."""
    where = display_path(path)
    entries = [_entry(key, raw, where) for key, raw in read_toml(path, GlossaryError).items()]
    if not entries:
        raise GlossaryError(f"{where}: no entries")
    owner: dict[str, str] = {}
    for entry in entries:
        for shown in entry.hovered:
            if shown in owner:
                raise GlossaryError(f"{where}: [{entry.key}]: {shown!r} is already [{owner[shown]}]'s")
            owner[shown] = entry.key
    return entries


def abbreviations(entries: list[Entry]) -> str:
    """The snippet appended to every page: one `*[ABBR]: definition` line per hovered spelling, each a block of
    its own. In one block, Python-Markdown's abbr takes one definition off at a time and hands the rest back to
    every block processor, which made each page's conversion quadratic in the glossary's size."""
    return "".join(f"*[{shown}]: {entry.tooltip}\n\n" for entry in entries for shown in entry.hovered)


def write_snippet(folder: Path, path: Path = GLOSSARY_TOML) -> Path:
    """Write the abbreviations into `folder` (only when they changed) and return the file."""
    folder.mkdir(parents=True, exist_ok=True)
    snippet = folder / "abbreviations.md"
    text = abbreviations(load(path))
    if not snippet.is_file() or snippet.read_text(encoding="utf-8") != text:
        snippet.write_text(text, encoding="utf-8")
    return snippet


@dataclass(frozen=True)
class Section:
    page_title: str
    heading: str  # the heading's text as written in the Markdown


def _page_title(text: str) -> str:
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if front:
        title = re.search(r"^title:\s*(.+)$", front.group(1), re.M)
        if title:
            return title.group(1).strip().strip("'\"")
    first = re.search(r"^#\s+(.+)$", text, re.M)
    return first.group(1).strip() if first else ""


def section(entry: Entry, docs: Path = DOCS_DIR, where: str | None = None) -> Section:
    """The page and heading `entry.teaches` names, found in the page's Markdown: a link to a heading that
    is not there is one line naming the entry."""
    where = where or display_path(GLOSSARY_TOML)
    match = TEACHES.fullmatch(entry.teaches)
    assert match is not None  # _entry checked the form
    page = docs / match["page"]
    if not page.is_file():
        raise GlossaryError(f"{where}: [{entry.key}] teaches: no page docs/{match['page']}")
    text = page.read_text(encoding="utf-8")
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading and (heading["id"] or slugify(heading["text"], "-")) == match["anchor"]:
            return Section(_page_title(text), heading["text"])
    raise GlossaryError(f"{where}: [{entry.key}] teaches: docs/{match['page']} has no heading #{match['anchor']}")
