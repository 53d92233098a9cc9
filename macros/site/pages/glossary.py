"""docs/glossary.md: every term of data/glossary.toml with its definition and a link to the section that
teaches it, one table sorted by the name a reader looks for (the abbreviation where there is one)."""

from __future__ import annotations

from types import SimpleNamespace

from .. import glossary
from ..markdown import table


def _cell(text: str) -> str:
    return text.replace("|", "\\|")  # a "|" would end the table cell


def row(entry: glossary.Entry) -> list[str]:
    """The entry's row: its name with an anchor (docs/glossary.md#key), the definition, where it is taught."""
    section = glossary.section(entry)
    name = f"**{entry.abbr}**, {entry.term}" if entry.abbr and entry.abbr != entry.term else f"**{entry.term}**"
    taught = f"[{section.page_title}: {section.heading}]({entry.teaches})"
    return [f'<span id="{entry.key}"></span>{_cell(name)}', _cell(entry.definition), _cell(taught)]


def sort_name(entry: glossary.Entry) -> str:
    return (entry.abbr or entry.term).casefold()


def model() -> SimpleNamespace:
    entries = sorted(glossary.load(), key=sort_name)
    return SimpleNamespace(
        entries=entries, count=len(entries),
        abbreviations=sum(len(e.hovered) for e in entries),
        table=table(["term", "what it means", "taught in"], [row(e) for e in entries], align="lll"),
    )
