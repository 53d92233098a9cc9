"""The flashcard review in the page (docs/practice/flashcards.md, practice/review.js and leitner.js) in
headless Chromium, served and from the offline copy: a new card known moves to box 2, due in two days,
and leaves today's queue; the state survives a reload under the card's stable key; the filter shows
one kind of card; the keyboard lands on the next button; nothing is requested from another host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import headless as browser

STATE = "JSON.parse(localStorage.getItem('ifg-practice:leitner'))"


def drive(chromium: Any, url: str) -> list[str]:
    problems: list[str] = []
    context = chromium.new_context(viewport={"width": 390, "height": 900})
    try:
        page = context.new_page()
        browser.watch(page, url, problems)
        page.goto(url, wait_until="load")
        page.wait_for_selector(".review button[data-action=show]")
        first = page.get_attribute(".review__front", "data-key")
        assert first == "question/q1"  # the deck's order: the questions first
        assert page.locator(".review__back").count() == 0  # the answer waits to be asked for
        page.click(".review button[data-action=show]")
        assert page.evaluate("document.activeElement.dataset.action") == "knew"
        page.keyboard.press("Enter")
        state = page.evaluate(STATE)
        today = page.evaluate("Math.floor((Date.now() - new Date().getTimezoneOffset() * 60000) / 86400000)")
        # Leitner: a new card starts in box 1; known, it moves to box 2, whose interval is 2 days
        assert state["cards"][first] == {"box": 2, "due": today + 2}
        assert state["introduced"] == {str(today): 1}
        page.reload(wait_until="load")
        page.wait_for_selector(".review button[data-action=show]")
        assert page.get_attribute(".review__front", "data-key") == "question/q2"  # q1 is not due today
        assert "19 new today" in page.inner_text(".review__counts")  # 20 a day, one already introduced
        page.select_option("#review-tag", "derivation")  # the problems, worked step by step
        assert page.get_attribute(".review__front", "data-key").startswith("problem/")
        page.select_option("#review-tag", "number")
        assert page.get_attribute(".review__front", "data-key").startswith("number/")
        page.click(".review button[data-action=show]")
        page.click(".review button[data-action=missed]")
        missed = page.evaluate(STATE)["cards"]
        assert [v for k, v in missed.items() if k.startswith("number/")] == [{"box": 1, "due": today + 1}]
    finally:
        context.close()
    return problems


def test_the_review_on_the_served_site(chromium: Any, built_site: Path):
    with browser.serve(built_site) as base:
        assert drive(chromium, base + "practice/flashcards/") == []


def test_the_review_from_the_offline_copy(chromium: Any, offline_site: Path):
    assert drive(chromium, (offline_site / "practice" / "flashcards.html").as_uri()) == []
