"""Placeholder for the paged_kv drawing: to be drawn (see the issues)."""

from pathlib import Path

FORMAT = "svg"
ALT = "paged_kv (placeholder, to be drawn)"


def render(out: Path, variant: str | None = None) -> None:
    out.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40">'
                   '<text x="8" y="24" font-family="sans-serif">paged_kv: to be drawn</text></svg>')
