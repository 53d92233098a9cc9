"""Write docs/assets/fonts/fallback-dejavu.css: DejaVu Sans and DejaVu Serif stretched, character by
character, to the widths of Roboto and of KaTeX's roman and math italic, so that text and formulas
laid out before those fonts arrive wrap exactly as they will once they have.

A single size-adjust gives a fallback the font's average width, but not each letter's: DejaVu Sans's
space is 28 % wider than Roboto's against 13 % for its lowercase, so a line set in the fallback wrapped
elsewhere than in Roboto, and when the font arrived a paragraph's last words moved to a new line
(layout shift 0.09 on a phone); a formula's slash is half as wide again in KaTeX as in DejaVu Serif.
Here each character gets the size-adjust that gives it the font's own advance: characters whose ratios
round to the same hundredth share one @font-face, told apart by unicode-range; a face without a range,
defined first so that the others take precedence, keeps the average for every other character.
Advances are measured in headless Chromium (canvas measureText at 1000 px). The overrides give each
face the font's ascent, descent and line gap (Roboto: 1900, 500 and 0 of 2048 units; KaTeX's roman
903, 272 and 90 of 1000, its math italic 717, 218 and 90, from their hhea tables) divided by its
size-adjust, which scales them too.

    python tools/fallback_fonts.py [--check]   # --check: exit 1 if the file is not what it would write
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))  # headless.py
ASSETS = ROOT / "docs" / "assets"
OUT = ASSETS / "fonts" / "fallback-dejavu.css"
STYLESHEETS = ("fonts/fonts.css", "katex/katex.min.css")  # the fonts measured, as the site declares them


@dataclass(frozen=True)
class Fallback:
    family: str  # the fallback family written
    weight: int
    style: str
    src: str  # the local font it stretches
    font: str  # the font it stands in for, and the local one, as CSS font shorthands (size and family last)
    local: str
    average: float  # the font's width over the local font's on running text: every character not listed
    metrics: tuple[float, float, float]  # the font's ascent, descent and line gap, in em


ROBOTO = (1900 / 2048, 500 / 2048, 0.0)
SANS, SANS_BOLD = 'local("DejaVu Sans"), local("DejaVuSans")', 'local("DejaVu Sans Bold"), local("DejaVuSans-Bold")'
# Averages measured on running text: Roboto's on the text of six pages, KaTeX's over the glyphs of every
# formula on the site (extra.css's figures before this file).
FALLBACKS = (
    Fallback("Roboto Fallback DejaVu", 300, "normal", SANS, "300 X 'Roboto Variable'", "400 X 'DejaVu Sans'",
             0.8597, ROBOTO),
    Fallback("Roboto Fallback DejaVu", 400, "normal", SANS, "400 X 'Roboto Variable'", "400 X 'DejaVu Sans'",
             0.876, ROBOTO),
    Fallback("Roboto Fallback DejaVu", 700, "normal", SANS_BOLD, "700 X 'Roboto Variable'", "700 X 'DejaVu Sans'",
             0.7947, ROBOTO),
    Fallback("KaTeX_Main Fallback DejaVu", 400, "normal", 'local("DejaVu Serif"), local("DejaVuSerif")',
             "400 X KaTeX_Main", "400 X 'DejaVu Serif'", 0.8873, (0.903, 0.272, 0.09)),
    Fallback("KaTeX_Math Fallback DejaVu", 400, "italic", 'local("DejaVu Serif Italic"), local("DejaVuSerif-Italic")',
             "italic 400 X KaTeX_Math", "italic 400 X 'DejaVu Serif'", 0.8997, (0.717, 0.218, 0.09)),
)
# Printable ASCII, the typography the pages use, and the Greek and operators of the formulas.
CHARS = ([chr(c) for c in range(32, 127)] + list("’‘“”–—×·…−→≈≤≥°€£µ")
         + list("αβγδεηθκλμπρστφχψωΓΔΘΛΠΣΦΨΩ⋅∑∞≠∈∝√"))

_MEASURE_JS = """async ([chars, pairs]) => {
  for (const [font] of pairs) await document.fonts.load(font.replace('X', '100px'), chars.join(''));
  const c = document.createElement('canvas').getContext('2d');
  const width = (font, t) => { c.font = font.replace('X', '1000px'); return c.measureText(t).width; };
  return pairs.map(([font, local]) => chars.map(ch => width(font, ch) / width(local, ch)));
}"""


def ratios(chromium: Any) -> list[dict[str, float]]:
    """Per fallback of FALLBACKS, each character's advance in the font over its advance in the local one,
    measured in `chromium` (a Playwright browser)."""
    import headless

    with headless.serve(ASSETS) as base:
        page = chromium.new_page()
        try:
            page.goto(base, wait_until="load")  # the folder's listing: a page on the fonts' origin
            for sheet in STYLESHEETS:
                page.add_style_tag(url=base + sheet)
            measured = page.evaluate(_MEASURE_JS, [CHARS, [(f.font, f.local) for f in FALLBACKS]])
        finally:
            page.close()
    return [dict(zip(CHARS, values)) for values in measured]


def _face(fallback: Fallback, adjust: float, chars: list[str] | None = None) -> str:
    size = f"{adjust * 100:.2f}".rstrip("0").rstrip(".")
    ascent, descent, gap = (v / adjust * 100 for v in fallback.metrics)
    rule = (f'font-family: "{fallback.family}"; src: {fallback.src}; font-weight: {fallback.weight}; '
            f"font-style: {fallback.style}; size-adjust: {size}%; ascent-override: {ascent:.2f}%; "
            f"descent-override: {descent:.2f}%; line-gap-override: {gap:.2f}%;")
    if chars:
        rule += " unicode-range: " + ",".join(f"U+{ord(ch):X}" for ch in sorted(chars)) + ";"
    return "@font-face { " + rule + " }\n"


def css(measured: list[dict[str, float]]) -> str:
    out = ["/* Written by tools/fallback_fonts.py, which says why; do not edit. */\n"]
    for fallback, widths in zip(FALLBACKS, measured):
        out.append(_face(fallback, fallback.average))
        groups: dict[float, list[str]] = {}
        for ch, ratio in widths.items():
            if ratio == ratio and ratio > 0:  # a character the font lacks measures as its fallback's: kept
                groups.setdefault(round(ratio, 2), []).append(ch)
        out += [_face(fallback, adjust, chars) for adjust, chars in sorted(groups.items())]
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from what it would write")
    check = parser.parse_args().check
    import headless

    with headless.launch() as chromium:
        text = css(ratios(chromium))
    if check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python tools/fallback_fonts.py", file=sys.stderr)
            raise SystemExit(1)
        return
    OUT.write_text(text, encoding="utf-8")
    print(OUT.relative_to(ROOT))


if __name__ == "__main__":
    main()
