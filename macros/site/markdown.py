"""Markdown and HTML fragments for generated tables: a table, tabs, a figure with its source in a tooltip; and a list
of names in a sentence."""

from __future__ import annotations

import html
from collections.abc import Sequence


def _title(text: str) -> str:
    """Escaped for an HTML attribute inside a Markdown table cell (no raw "|")."""
    return html.escape(text, quote=True).replace("|", "&#124;")


def cite(text: str, source: str, unverified: bool = False, kind: str = "") -> str:
    """`text` with `source` in a tooltip; marked (class "unverified") when not confirmed. `kind` adds
    a CSS class of its own (e.g. "claim"). The span can take focus (tabindex -1), so the tooltip
    (Material's content.tooltips, shown on hover or focus) opens on a tap, not only under a mouse; it is
    not a Tab stop of its own: a table of figures would be a hundred. assets/javascripts/a11y.js makes
    the first figure of each table or paragraph the Tab stop, and the arrow keys move between them."""
    classes = " ".join(c for c in ("cite", kind, "unverified" if unverified else "") if c)
    title = ("unverified: " if unverified else "") + source
    return f'<span class="{classes}" title="{_title(title)}" tabindex="-1">{text}</span>'


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


def listed(names: Sequence[str]) -> str:
    """Names in a sentence: "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
