"""Markdown and HTML fragments for generated tables: a table, tabs, a figure with its source on hover."""

from __future__ import annotations

import html
from typing import Sequence


def _title(text: str) -> str:
    """Escaped for an HTML attribute inside a Markdown table cell (no raw "|")."""
    return html.escape(text, quote=True).replace("|", "&#124;")


def cite(text: str, source: str, unverified: bool = False, kind: str = "") -> str:
    """`text` with `source` on hover; marked (class "unverified") when not confirmed. `kind` adds
    a CSS class of its own (e.g. "claim")."""
    classes = " ".join(c for c in (kind, "unverified" if unverified else "") if c)
    cls = f' class="{classes}"' if classes else ""
    title = ("unverified: " if unverified else "") + source
    return f'<span{cls} title="{_title(title)}">{text}</span>'


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "", indent: str = "") -> str:
    """A Markdown table; align has one letter per column, l or r (default: first l, rest r)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = [header, rule, *rows]
    return "\n".join(indent + "| " + " | ".join(str(c) for c in line) + " |" for line in lines)


def tabs(panes: Sequence[tuple[str, str]]) -> str:
    """pymdownx.tabbed blocks: one tab per (label, Markdown body)."""
    out = []
    for label, body in panes:
        out.append(f'=== "{label}"\n\n' + "\n".join("    " + line if line else "" for line in body.split("\n")))
    return "\n\n".join(out)
