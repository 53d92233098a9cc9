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
    # Roboto's space is narrower than DejaVu's than its lowercase is (what the file is for), in each weight.
    for weight in fallback_fonts.WEIGHTS:
        assert measured[weight][" "] < measured[weight]["n"] < 1.0
    assert fallback_fonts.css(measured) == fallback_fonts.OUT.read_text(encoding="utf-8"), \
        "run python tools/fallback_fonts.py"
