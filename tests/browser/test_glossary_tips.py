"""The glossary's abbreviations in a browser: a tap on a phone opens the definition, Tab reaches one
per paragraph and the arrow keys move on within it, no request leaves the site, and every abbreviation
on the page can take focus (assets/javascripts/a11y.js)."""

from __future__ import annotations

from pathlib import Path

import headless as browser

from macros.site import glossary


def test_a_tap_opens_an_abbreviations_definition(chromium, built_site: Path):
    ttft = next(e for e in glossary.load() if e.abbr == "TTFT")
    problems: list[str] = []
    with browser.serve(built_site) as base:
        context = chromium.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
        try:
            page = context.new_page()
            browser.watch(page, base, problems)
            page.goto(base + "guide/roofline/", wait_until="load")
            abbr = page.locator(".md-content abbr", has_text="TTFT").first
            abbr.scroll_into_view_if_needed()
            abbr.tap()
            tip = page.wait_for_selector(".md-tooltip2--active", timeout=3000)
            # The tooltip holds the glossary's words for TTFT, from the data, not a copy.
            assert ttft.definition in tip.text_content()
            assert browser.unfocusable_tooltips(page) == []
        finally:
            context.close()
    assert problems == []


def test_tab_reaches_an_abbreviation_and_the_arrows_move_on(chromium, built_site: Path):
    with browser.serve(built_site) as base:
        page = browser.open_page(chromium, base + "guide/inference/")
        try:
            for _ in range(200):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.tagName") == "ABBR":
                    break
            else:
                raise AssertionError("Tab never reached an abbreviation in chapter 1")
            page.wait_for_selector(".md-tooltip2--active", timeout=3000)
            # In a table of several abbreviations (§1.3's prefill against decode) only the first is a Tab
            # stop; from it the arrow key reaches the second.
            page.evaluate("""(() => { const table = [...document.querySelectorAll('.md-typeset table')]
                .find(t => t.querySelectorAll('abbr').length > 1);
                const [first, second] = table.querySelectorAll('abbr');
                first.dataset.first = 'yes'; second.dataset.second = 'yes'; first.focus(); })()""")
            assert page.evaluate("document.activeElement.tabIndex") == 0
            assert page.evaluate("document.querySelector('[data-second]').tabIndex") == -1
            page.keyboard.press("ArrowRight")
            assert page.evaluate("document.activeElement.dataset.second") == "yes"
            page.wait_for_selector(".md-tooltip2--active", timeout=3000)
        finally:
            page.close()
