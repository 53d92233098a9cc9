"""Write docs/assets/fonts/fallback-dejavu.css: DejaVu Sans stretched, character by character, to the
width of Roboto, so that text laid out before Roboto arrives wraps exactly as it will in Roboto.

A single size-adjust gives the fallback Roboto's average width, but not each letter's: DejaVu's space
is 28 % wider than Roboto's against 13 % for its lowercase, so a line set in the fallback wrapped
elsewhere than in Roboto, and when the font arrived a paragraph's last words moved to a new line
(layout shift 0.09 on a phone). Here each character of Latin text gets the size-adjust that gives it
Roboto's own advance: characters whose ratios round to the same hundredth share one @font-face, told
apart by unicode-range; a face without a range, defined first so that the others take precedence,
keeps the average for every other character. Advances are measured in headless Chromium (canvas
measureText at 1000 px), in Roboto's light (300, headings), regular (400) and bold (700) against
DejaVu Sans and DejaVu Sans Bold. The overrides give each face Roboto's ascent and descent (1900 and
500 of 2048 units) divided by its size-adjust, which scales them too.

    python tools/fallback_fonts.py [--check]   # --check: exit 1 if the file is not what it would write
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))  # headless.py
OUT = ROOT / "docs" / "assets" / "fonts" / "fallback-dejavu.css"
FAMILY = "Roboto Fallback DejaVu"
# Per weight: the local DejaVu face, and Roboto's width over DejaVu's on running text, measured on the
# text of six pages (extra.css's figures before this file): every character not listed gets it.
WEIGHTS = {300: ('local("DejaVu Sans"), local("DejaVuSans")', 0.8597),
           400: ('local("DejaVu Sans"), local("DejaVuSans")', 0.876),
           700: ('local("DejaVu Sans Bold"), local("DejaVuSans-Bold")', 0.7947)}
# Printable ASCII and the typography the pages use.
CHARS = [chr(c) for c in range(32, 127)] + list("’‘“”–—×·…−→≈≤≥°€£µ")
ASCENT, DESCENT, UNITS = 1900, 500, 2048

_MEASURE_JS = """async ([chars, weights]) => {
  for (const w of weights) await document.fonts.load(`${w} 100px 'Roboto Variable'`);
  const c = document.createElement('canvas').getContext('2d');
  const width = (font, t) => { c.font = font; return c.measureText(t).width; };
  return Object.fromEntries(weights.map(w => [w, chars.map(ch =>
    width(`${w} 1000px 'Roboto Variable'`, ch) / width(`${w === 700 ? 700 : 400} 1000px 'DejaVu Sans'`, ch))]));
}"""


def ratios(chromium: Any) -> dict[int, dict[str, float]]:
    """Per weight, each character's Roboto advance over its DejaVu advance, measured in `chromium` (a
    Playwright browser)."""
    import headless

    with headless.serve(ROOT / "docs" / "assets" / "fonts") as base:
        page = chromium.new_page()
        try:
            page.goto(base, wait_until="load")  # the folder's listing: a page on the fonts' origin
            page.add_style_tag(url=base + "fonts.css")
            measured = page.evaluate(_MEASURE_JS, [CHARS, list(WEIGHTS)])
        finally:
            page.close()
    return {int(w): dict(zip(CHARS, values)) for w, values in measured.items()}


def _face(weight: int, src: str, adjust: float, chars: list[str] | None = None) -> str:
    size = f"{adjust * 100:.2f}".rstrip("0").rstrip(".")
    ascent, descent = ASCENT / UNITS / adjust * 100, DESCENT / UNITS / adjust * 100
    rule = (f'font-family: "{FAMILY}"; src: {src}; font-weight: {weight}; size-adjust: {size}%; '
            f"ascent-override: {ascent:.2f}%; descent-override: {descent:.2f}%; line-gap-override: 0%;")
    if chars:
        rule += " unicode-range: " + ",".join(f"U+{ord(ch):X}" for ch in sorted(chars)) + ";"
    return "@font-face { " + rule + " }\n"


def css(measured: dict[int, dict[str, float]]) -> str:
    out = ["/* Written by tools/fallback_fonts.py, which says why; do not edit. */\n"]
    for weight, (src, average) in WEIGHTS.items():
        out.append(_face(weight, src, average))
        groups: dict[float, list[str]] = {}
        for ch, ratio in measured[weight].items():
            groups.setdefault(round(ratio, 2), []).append(ch)
        out += [_face(weight, src, adjust, chars) for adjust, chars in sorted(groups.items())]
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
