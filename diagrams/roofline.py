"""Placeholder for the per-GPU roofline chart: to be drawn (see the issues)."""

from pathlib import Path

from macros.specs import catalog

FORMAT = "svg"


def VARIANTS() -> list[str]:
    return list(catalog().gpus)


def ALT(variant: str | None) -> str:
    return f"roofline of {variant} (placeholder, to be drawn)"


def render(out: Path, variant: str | None = None) -> None:
    out.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40">'
                   f'<text x="8" y="24" font-family="sans-serif">roofline {variant}: to be drawn</text></svg>')
