"""Placeholder for the prefix_router drawing: to be drawn (see the issues)."""

from pathlib import Path

FORMAT = "svg"
ALT = "prefix_router (placeholder, to be drawn)"


def render(out: Path, variant: str | None = None) -> None:
    out.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40">'
                   '<text x="8" y="24" font-family="sans-serif">prefix_router: to be drawn</text></svg>')
