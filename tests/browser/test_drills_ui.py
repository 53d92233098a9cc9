"""The drills page's timers in headless Chromium: each drill's clock runs against its target and keeps
the time across a reload; the model answer stays folded until asked for; drill 5's follow-ups come one
at a time, each question only after the last is answered, each model answer only after its question is
answered; nothing is requested from another host; and the same works from the offline copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import headless as browser
import pytest

from macros.site.pages import drills

FIVE = "#follow-ups ~ details"  # drill 5's folded answers: every <details> after its heading
VISIBLE = "ds => ds.filter(d => d.getBoundingClientRect().height > 0).length"  # laid out, so a reader sees it


def drive(chromium: Any, url: str) -> list[str]:
    problems: list[str] = []
    context = chromium.new_context(viewport={"width": 390, "height": 900})
    try:
        page = context.new_page()
        browser.watch(page, url, problems)
        page.goto(url, wait_until="load")
        roofline = page.locator(".drill[data-drill=roofline]")
        roofline.locator("button[data-action=start]").wait_for()
        assert roofline.inner_text().count("target of 1:30") == 1  # TARGETS.roofline = 90 s
        answer = page.locator("#roofline ~ details").first
        assert not answer.evaluate("d => d.open")
        roofline.locator("button[data-action=start]").click()
        roofline.locator("button[data-action=stop]").click()
        assert "inside the 1:30 target" in roofline.locator(".drill__status").inner_text()
        roofline.locator("button[data-action=answer]").click()
        assert answer.evaluate("d => d.open")

        five = page.locator(".drill[data-drill=follow_up]")
        questions = drills.model().follow_ups
        assert page.locator(FIVE).evaluate_all(VISIBLE) == 0
        for k, question in enumerate(questions):
            five.locator("button[data-action=next]").click()
            assert five.locator(".drill__question").inner_text() == f"Follow-up {k + 1} of 6: {question}"
            # only the answers of the questions already answered are on the page
            assert page.locator(FIVE).evaluate_all(VISIBLE) == k
            five.locator("button[data-action=stop]").click()
            assert page.locator(FIVE).evaluate_all(VISIBLE) == k + 1
        assert five.locator("button[data-action=next]").count() == 0

        page.reload(wait_until="load")  # the times persist
        roofline.locator("button[data-action=start]").wait_for()
        assert "over 1 run " in roofline.locator(".drill__results").inner_text()
        assert f"over {len(questions)} runs" in five.locator(".drill__results").inner_text()
    finally:
        context.close()
    return problems


def test_the_drills_on_the_served_site(chromium: Any, built_site: Path):
    with browser.serve(built_site) as base:
        assert drive(chromium, base + "practice/drills/") == []


def test_the_drills_from_the_offline_copy(chromium: Any, offline_site: Path):
    assert drive(chromium, (offline_site / "practice" / "drills.html").as_uri()) == []


def test_drill_five_asks_chapter_7s_follow_ups():
    d = drills.model()
    # the long prompt, rolling updates, a dead GPU, the heavy tenant, cost, agents: 6 of chapter 7's 9
    assert len(d.follow_ups) == 6 and d.follow_ups[0].startswith("A user sends a 100,000-token prompt")
    assert 'data-target-s="60"' in d.timer("follow_up") and 'data-sequence="1"' in d.timer("follow_up")
    with pytest.raises(AttributeError):
        d.timer("no-such-drill")
