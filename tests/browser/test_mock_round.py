"""The mock round in headless Chromium, for chapter 7 and all eight worked designs, from the served site
and from the offline copy (file://): the follow-ups appear one at a time, each only when the clock has
passed its checkpoint and the last answer is committed; what the reader types is shown as text; the
round survives a reload; the score gets the verdict the Python rubric gives and stays listed after a
reload; and nothing is requested from another host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import headless as browser
import pytest

from macros.engine.problems.rubric import rubric
from macros.site.pages import mock_round

ROUNDS = mock_round.all_rounds()
# Text that would be markup if it were inserted as HTML: it must come back exactly as typed.
NOTE = "KV <b>budget</b> & <img src=x onerror=window.injected=1>"
ANSWER = "Price it: <i>tp8</i>"
# One score per dimension, lowest level first: at bar on everything but two dimensions at hire.
SCORE = (2, 2, 1, 1, 1, 1, 2)


def page_path(slug: str, offline: bool) -> str:
    folder = "guide/design-chatgpt" if slug == mock_round.CHAPTER else f"designs/{slug}"
    return folder + (".html" if offline else "/")


def shown_questions(page: Any) -> list[str]:
    return page.eval_on_selector_all(".mock-round__follow-ups .mock-round__question",
                                     "els => els.map(e => e.textContent)")


def skip_until(page: Any, seconds: int) -> None:
    """Press "Skip to the next checkpoint" until the clock reads at least `seconds`."""
    for _ in range(len(ROUNDS[mock_round.CHAPTER]["checkpoints_s"]) + 1):
        minutes, secs = page.inner_text(".mock-round__clock").split(":")
        if int(minutes) * 60 + int(secs) >= seconds:
            return
        page.click("button[data-action=skip]")
    raise AssertionError(f"the clock never reached {seconds} s")


def run_round(chromium: Any, url: str, slug: str) -> list[str]:
    problems: list[str] = []
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        browser.watch(page, url, problems)
        page.goto(url, wait_until="load")
        data = ROUNDS[slug]
        page.wait_for_selector(".mock-round[data-phase=idle] button[data-action=start]")
        page.click("button[data-action=start]")
        fold = page.locator("details.design-answer")
        if data["fold"]:
            assert not fold.is_visible(), "the worked answer shows while the round runs"
        page.fill(".mock-round__notes", NOTE)
        assert shown_questions(page) == []  # minute 0: no follow-up yet

        first, second = (f["due_s"] for f in data["follow_ups"][:2])
        skip_until(page, first)
        assert shown_questions(page) == ["Follow-up 1: " + data["follow_ups"][0]["question"]]
        skip_until(page, second)  # the second is due, but the first is not answered: it waits
        assert len(shown_questions(page)) == 1
        assert "commit your answer" in page.inner_text(".mock-round__status")
        page.click("button[data-action=commit]")  # an empty answer is not committed
        assert len(shown_questions(page)) == 1
        page.fill(".mock-round__follow-ups li.is-open textarea", ANSWER)
        page.click("button[data-action=commit]")
        assert shown_questions(page)[1] == "Follow-up 2: " + data["follow_ups"][1]["question"]
        assert page.inner_text(".mock-round__follow-ups li.is-committed .mock-round__answer") == ANSWER

        page.reload(wait_until="load")  # mid-round: the notes, the answer and the clock come back
        page.wait_for_selector(".mock-round[data-phase=running]")
        assert page.input_value(".mock-round__notes") == NOTE
        assert len(shown_questions(page)) == 2
        assert page.evaluate("window.injected") is None

        page.click("button[data-action=finish]")
        if data["fold"]:
            assert fold.is_visible() and fold.evaluate("d => d.open"), "the worked answer is not revealed"
        for target in (data["worked_href"], data["critiques_href"], *(f["href"] for f in data["follow_ups"])):
            assert page.locator(f'[id="{target[1:]}"]').count() == 1, f"{target} leads nowhere"
        assert page.is_disabled("button[data-action=save]")
        for dimension, level in zip(data["rubric"]["dimensions"], SCORE):
            page.check(f"fieldset[data-dimension={dimension['key']}] input[data-level='{level}']")
        expected = rubric().verdict(SCORE)
        assert page.inner_text(".mock-round__verdict-line").startswith(f"Verdict: {expected.title}.")
        page.click("button[data-action=save]")

        page.reload(wait_until="load")  # the score persists: listed with its verdict and levels
        page.wait_for_selector(".mock-round[data-phase=idle] .mock-round__past li")
        assert page.inner_text(".mock-round__past li .mock-round__verdict") == expected.title
        shown = page.eval_on_selector_all(".mock-round__past li .mock-round__level-score",
                                          "s => s.map(e => e.textContent)")
        levels, dims = rubric().levels, rubric().dimensions
        assert shown == [f"{d.title}: {levels[i]}" for d, i in zip(dims, SCORE)]
        kept = page.locator(".mock-round__past li .mock-round__written .mock-round__answer").all_text_contents()
        assert kept == [NOTE, ANSWER]  # the round's notes and answer stay with its score, as text
        assert page.locator(".mock-round b, .mock-round i, .mock-round img").count() == 0
    finally:
        context.close()
    return problems


@pytest.mark.parametrize("slug", list(ROUNDS))
def test_the_round_from_the_served_site(chromium: Any, built_site: Path, slug: str):
    with browser.serve(built_site) as base:
        assert run_round(chromium, base + page_path(slug, offline=False), slug) == []


@pytest.mark.parametrize("slug", list(ROUNDS))
def test_the_round_from_the_offline_copy(chromium: Any, offline_site: Path, slug: str):
    url = (offline_site / page_path(slug, offline=True)).as_uri()
    assert run_round(chromium, url, slug) == []


def test_nine_rounds_each_with_its_follow_ups_in_order():
    assert len(ROUNDS) == 9
    for data in ROUNDS.values():
        due = [f["due_s"] for f in data["follow_ups"]]
        assert due == sorted(due) and all(d in data["checkpoints_s"] for d in due)


def focused(page: Any) -> str:
    """What has the keyboard focus: a button's action, a field's first class, or its tag."""
    return page.evaluate("""() => { const e = document.activeElement;
      const own = [...e.classList].filter(c => c !== "focus-visible");  // Material's focus marker
      return e.dataset.action || own[0] || e.tagName.toLowerCase(); }""")


def tab_to(page: Any, target: str, key: str = "Tab", limit: int = 400) -> None:
    for _ in range(limit):
        if focused(page) == target:
            return
        page.keyboard.press(key)
    raise AssertionError(f"{target} never took the focus")


def test_the_round_keyboard_only_at_390_px(chromium: Any, built_site: Path):
    """A whole round with the keyboard alone, on a phone's width: start, notes, pause and resume, a
    follow-up answered, the score chosen with the arrow keys, saved; nothing scrolls sideways."""
    data = ROUNDS["consumer-chat"]
    context = chromium.new_context(viewport={"width": 390, "height": 800})
    try:
        with browser.serve(built_site) as base:
            page = context.new_page()
            page.goto(base + page_path("consumer-chat", offline=False), wait_until="load")
            page.wait_for_selector("button[data-action=start]")
            tab_to(page, "start")
            page.keyboard.press("Enter")
            assert focused(page) == "mock-round__notes"  # the notes take the focus when the clock starts
            page.keyboard.type("sized in tokens")
            tab_to(page, "pause", "Shift+Tab")
            page.keyboard.press("Enter")  # paused: the clock stands still
            assert focused(page) == "resume" and "is-paused" in page.get_attribute(".mock-round", "class")
            stopped = page.inner_text(".mock-round__clock")
            page.wait_for_timeout(1500)
            assert page.inner_text(".mock-round__clock") == stopped
            page.keyboard.press("Enter")  # resumed: it runs on from where it stood
            page.wait_for_timeout(1500)
            assert page.inner_text(".mock-round__clock") != stopped
            tab_to(page, "skip")
            page.keyboard.press("Enter")
            assert shown_questions(page) == ["Follow-up 1: " + data["follow_ups"][0]["question"]]
            tab_to(page, "textarea")  # past the notes, into the follow-up's answer
            page.keyboard.type("eight per replica")
            page.keyboard.press("Tab")
            assert focused(page) == "commit"
            page.keyboard.press("Enter")
            assert page.inner_text(".mock-round__follow-ups li.is-committed .mock-round__answer") == "eight per replica"
            tab_to(page, "finish", "Shift+Tab")
            page.keyboard.press("Enter")
            for level in SCORE:  # each dimension's radios: Space picks the first, the arrows move along
                page.keyboard.press("Space")
                for _ in range(level):
                    page.keyboard.press("ArrowDown")
                page.keyboard.press("Tab")
            assert focused(page) == "save"
            page.keyboard.press("Enter")
            page.wait_for_selector(".mock-round[data-phase=idle] .mock-round__past li")
            assert page.inner_text(".mock-round__past li .mock-round__verdict") == rubric().verdict(SCORE).title
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page scrolls sideways at 390 px: {width} px wide"
    finally:
        context.close()
