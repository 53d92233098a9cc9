"""Each worked design's "answer at a glance" fits one phone screen: opened at 390 × 844 px (a common phone's
viewport), in the dark palette, the summary admonition is no taller than the screen and nothing in it scrolls
sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import headless as browser
import pytest

from macros.site.pages import design

WIDTH, SCREEN = 390, 844


@pytest.mark.parametrize("slug", design.slugs())
def test_the_answer_at_a_glance_is_one_phone_screen(chromium: Any, built_site: Path, slug: str):
    context = chromium.new_context(viewport={"width": WIDTH, "height": SCREEN}, color_scheme="dark")
    try:
        with browser.serve(built_site) as base:
            page = context.new_page()
            page.goto(f"{base}designs/{slug}/", wait_until="load")
            page.evaluate("document.fonts.ready.then(() => true)")
            page.evaluate("document.querySelector('details.design-answer').open = true")
            box = page.evaluate("""() => {
              const title = [...document.querySelectorAll('details.design-answer .admonition-title')]
                .find(t => t.textContent.trim() === 'The answer at a glance');
              const card = title.closest('.admonition');
              return {height: card.getBoundingClientRect().height, scroll: card.scrollWidth - card.clientWidth};
            }""")
    finally:
        context.close()
    assert box["height"] <= SCREEN, f"designs/{slug}: the summary is {box['height']:.0f} px tall at {WIDTH} px"
    assert box["scroll"] <= 0, f"designs/{slug}: the summary scrolls sideways by {box['scroll']} px"
