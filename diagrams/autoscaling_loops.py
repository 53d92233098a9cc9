"""Placeholder for the autoscaling_loops drawing: to be drawn (see the issues)."""

from pathlib import Path

FORMAT = "svg"
ALT = "autoscaling_loops (placeholder, to be drawn)"


def render(out: Path, variant: str | None = None) -> None:
    out.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40">'
                   '<text x="8" y="24" font-family="sans-serif">autoscaling_loops: to be drawn</text></svg>')
