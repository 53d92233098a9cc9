"""The fallback text font's widths (docs/assets/fonts/fallback-dejavu.css) are what tools/fallback_fonts.py
measures today in Chromium: re-measured and compared, so a new Roboto, a new DejaVu or a changed list of
characters fails here until the file is written again."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import fallback_fonts  # noqa: E402


def test_the_fallback_widths_are_up_to_date(chromium):
    measured = fallback_fonts.ratios(chromium)
    # Against DejaVu, Roboto's space is narrower than its lowercase in each weight, and KaTeX's slash
    # wider than its digits (what the file is for: one ratio cannot fit both).
    for fallback, widths in zip(fallback_fonts.FALLBACKS, measured):
        if fallback.family.startswith("Roboto"):
            assert widths[" "] < widths["n"] < 1.0, fallback
        if fallback.family.startswith("KaTeX_Main"):
            assert widths["/"] > widths["2"], fallback
    assert fallback_fonts.css(measured) == fallback_fonts.OUT.read_text(encoding="utf-8"), \
        "run python tools/fallback_fonts.py"
