"""Placeholder for the kv_vs_context drawing: to be drawn (see the issues)."""

from pathlib import Path

FORMAT = "svg"
ALT = "kv_vs_context (placeholder, to be drawn)"


def render(out: Path, variant: str | None = None) -> None:
    out.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40">'
                   '<text x="8" y="24" font-family="sans-serif">kv_vs_context: to be drawn</text></svg>')
