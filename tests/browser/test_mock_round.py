"""The mock round in headless Chromium, for chapter 7 and all eight worked designs, from the served site
and from the offline copy (file://): the page's worked answers are out of sight while the clock runs; the
follow-ups are drawn at random, kept with the round, and appear one at a time, each only when the clock has
passed its checkpoint and the last answer is committed; the reader's numbers are read, then checked against
the page's with the derivation shown; what the reader types is shown as text; the round survives a reload;
the score gets the verdict the Python rubric gives and stays listed after a reload; and nothing is
requested from another host."""

from __future__ import annotations

import json
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
# A sentence of each worked answer, and a table-of-contents target inside it and one outside it.
ANSWER_SENTENCE = {
    "design-chatgpt": "When asked, go straight to the constraint.",
    "consumer-chat": "Two targets, not one latency.",
}
HIDDEN_HEADINGS = {"design-chatgpt": ("72-altitude-1-the-abstracted-answer", "75-a-rehearsed-round-45-minutes"),
                   "consumer-chat": ("2-requirements-and-slos", "revision-3", "references")}
SHOWN_HEADINGS = {"design-chatgpt": ("71-the-opening-ninety-seconds", "problems"), "consumer-chat": ()}
WIDTHS = (1280, 390)


def page_path(slug: str, offline: bool) -> str:
    folder = "guide/design-chatgpt" if slug == mock_round.CHAPTER else f"designs/{slug}"
    return folder + (".html" if offline else "/")


def shown_questions(page: Any) -> list[str]:
    return page.eval_on_selector_all(".mock-round__follow-ups .mock-round__question",
                                     "els => els.map(e => e.textContent)")


def stored(page: Any, data: dict) -> dict:
    """The round as local storage holds it."""
    return page.evaluate(f"JSON.parse(localStorage.getItem({json.dumps(data['storage'])}))")


def drawn(page: Any, data: dict) -> list[dict]:
    """The follow-ups this round drew, from the ids stored with it, each with its due time."""
    pool = {f["id"]: f for f in data["pool"]}
    return [dict(pool[i], due_s=due) for i, due in zip(stored(page, data)["draw"], data["due_s"])]


def asked(f: dict, k: int) -> str:
    lead = f"Follow-up {k + 1}, an interruption: " if f["kind"] == "interruption" else f"Follow-up {k + 1}: "
    return lead + f["question"]


def clock_s(page: Any) -> int:
    minutes, secs = page.inner_text(".mock-round__clock").split(":")
    return int(minutes) * 60 + int(secs)


def skip_until(page: Any, seconds: int) -> None:
    """Press "Skip to the next checkpoint" until the clock reads at least `seconds`."""
    for _ in range(len(ROUNDS[mock_round.CHAPTER]["checkpoints_s"]) + 1):
        if clock_s(page) >= seconds:
            return
        page.click("button[data-action=skip]")
    raise AssertionError(f"the clock never reached {seconds} s")


# The page's worked answers still laid out (display not none), for the round's `hide` selectors.
SHOWN_ANSWERS = """hide => hide.flatMap(s => [...document.querySelectorAll(s)])
  .filter(e => !e.closest('.mock-round') && e.getClientRects().length > 0).map(e => e.tagName + '.' + e.className)"""


def open_round(chromium: Any, url: str, width: int = 1280, dark: bool = False) -> tuple[Any, Any, list[str]]:
    problems: list[str] = []
    context = chromium.new_context(viewport={"width": width, "height": 900}, color_scheme="dark" if dark else "light")
    page = context.new_page()
    browser.watch(page, url, problems)
    page.goto(url, wait_until="load")
    page.wait_for_selector(".mock-round[data-phase=idle] button[data-action=start]")
    return context, page, problems


def run_round(chromium: Any, url: str, slug: str) -> list[str]:
    data = ROUNDS[slug]
    context, page, problems = open_round(chromium, url)
    try:
        page.click("button[data-action=start]")
        assert page.evaluate(SHOWN_ANSWERS, data["hide"]) == [], "a worked answer shows while the round runs"
        asking = drawn(page, data)
        assert len(asking) == 6 and [f["kind"] for f in asking].count("interruption") == 1
        page.fill(".mock-round__notes", NOTE)
        assert shown_questions(page) == []  # minute 0: no follow-up yet

        skip_until(page, asking[0]["due_s"])
        assert shown_questions(page) == [asked(asking[0], 0)]
        skip_until(page, asking[1]["due_s"])  # the second is due, but the first is not answered: it waits
        assert len(shown_questions(page)) == 1
        assert "commit your answer" in page.inner_text(".mock-round__status")
        page.click("button[data-action=commit]")  # an empty answer is not committed
        assert len(shown_questions(page)) == 1
        page.fill(".mock-round__follow-ups li.is-open textarea", ANSWER)
        page.click("button[data-action=commit]")
        assert shown_questions(page) == [asked(f, k) for k, f in enumerate(asking[:2])]
        assert page.inner_text(".mock-round__follow-ups li.is-committed .mock-round__answer") == ANSWER

        page.reload(wait_until="load")  # mid-round: the notes, the answer, the draw and the clock come back
        page.wait_for_selector(".mock-round[data-phase=running]")
        assert page.input_value(".mock-round__notes") == NOTE
        assert shown_questions(page) == [asked(f, k) for k, f in enumerate(asking[:2])]
        assert page.evaluate("window.injected") is None
        assert page.evaluate(SHOWN_ANSWERS, data["hide"]) == []

        page.click("button[data-action=finish]")
        if data["fold"]:
            fold = page.locator(data["fold"])
            assert fold.is_visible() and fold.evaluate("d => d.open"), "the worked answer is not revealed"
        for target in (data["worked_href"], data["critiques_href"], *(f["href"] for f in asking if f["href"])):
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
        questions = page.locator(".mock-round__past li .mock-round__written .mock-round__question").all_text_contents()
        assert questions == [f"Follow-up 1: {asking[0]['question']}"]  # the question it drew, kept with the answer
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


def test_nine_rounds_each_drawing_its_follow_ups_at_the_checkpoints():
    assert len(ROUNDS) == 9
    for data in ROUNDS.values():
        assert data["due_s"] == sorted(data["due_s"]) and set(data["due_s"]) <= set(data["checkpoints_s"])


def body_text(page: Any) -> str:
    """What the reader can see and find in the page (innerText leaves out what is not rendered)."""
    return " ".join(page.evaluate("document.body.innerText").split())


def toc_hidden(page: Any, headings: tuple[str, ...]) -> list[bool]:
    """For each table-of-contents link to one of `headings` (Material writes them in full), whether it is hidden."""
    return page.eval_on_selector_all(".md-nav a", """(els, ids) => els.filter(e => ids.includes(e.hash.slice(1)))
      .map(e => getComputedStyle(e.closest('li')).display === 'none')""", list(headings))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("slug", list(ANSWER_SENTENCE))
def test_no_worked_answer_shows_while_the_clock_runs(chromium: Any, built_site: Path, slug: str, width: int):
    data, sentence = ROUNDS[slug], ANSWER_SENTENCE[slug]
    with browser.serve(built_site) as base:
        context, page, problems = open_round(chromium, base + page_path(slug, offline=False), width)
        try:
            if data["fold"]:  # a reader who opened the fold before starting: the round must hide it all the same
                page.evaluate(f"document.querySelector({json.dumps(data['fold'])}).open = true")
            assert sentence in body_text(page)  # the check below can fail: the sentence is there before the round
            assert not any(toc_hidden(page, HIDDEN_HEADINGS[slug]))
            page.click("button[data-action=start]")
            assert page.evaluate(SHOWN_ANSWERS, data["hide"]) == []
            for selector in data["hide"]:  # each marked container is out of the layout, not merely scrolled away
                displays = page.eval_on_selector_all(selector, "els => els.filter(e => !e.closest('.mock-round'))"
                                                               ".map(e => getComputedStyle(e).display)")
                assert displays and set(displays) == {"none"}, (selector, displays)
            assert sentence not in body_text(page), "find-in-page reaches the worked answer"
            assert not any(loc.is_visible() for loc in page.get_by_text(sentence).all())
            hidden = toc_hidden(page, HIDDEN_HEADINGS[slug])  # the sidebar's and, on a phone, the drawer's
            assert len(hidden) >= len(HIDDEN_HEADINGS[slug]) and all(hidden)  # its table of contents' entries go too
            assert not any(toc_hidden(page, SHOWN_HEADINGS[slug]))  # the rest of the page stays
            assert page.evaluate("document.documentElement.scrollWidth") <= width

            page.click("button[data-action=finish]")  # the round ends: the answers come back
            assert sentence in body_text(page)
            assert page.locator(".mock-round-hidden").count() == 0
            assert not any(toc_hidden(page, HIDDEN_HEADINGS[slug]))
        finally:
            context.close()
        assert problems == []


def test_two_fresh_rounds_draw_different_follow_ups(chromium: Any, built_site: Path):
    data = ROUNDS["consumer-chat"]
    draws = []
    with browser.serve(built_site) as base:
        for _ in range(2):  # two readers, each with a fresh browser
            context, page, _ = open_round(chromium, base + page_path("consumer-chat", offline=False))
            try:
                page.click("button[data-action=start]")
                draws.append(stored(page, data)["draw"])
                page.click("button[data-action=finish]")  # the same reader again: a new round, a new draw
                page.click("button[data-action=discard]")
                page.click("button[data-action=start]")
                draws.append(stored(page, data)["draw"])
            finally:
                context.close()
    assert all(len(d) == 6 for d in draws)
    assert len({tuple(d) for d in draws}) == 4, draws  # a repeat has odds of about one in ten million


def number_row(page: Any, key: str) -> Any:
    return page.locator(f".mock-round__number[data-number={key}]")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("slug", ["design-chatgpt", "consumer-chat"])
def test_a_wrong_number_is_flagged_and_shows_its_derivation(chromium: Any, built_site: Path, slug: str, width: int):
    numbers = {n["key"]: n for n in ROUNDS[slug]["numbers"]}
    markup = "<img src=x onerror=window.injected=1>"  # echoed in the message as text, never as markup
    entered = {"kv_per_seq": "34 GB", "max_batch": "207", "fleet_gpus": "~1.6k GPUs", "ttft": markup}
    with browser.serve(built_site) as base:
        context, page, problems = open_round(chromium, base + page_path(slug, offline=False), width)
        try:
            page.click("button[data-action=start]")
            for key, text in entered.items():
                number_row(page, key).locator("input").fill(text)
                number_row(page, key).locator("input").press("Tab")
            # while the clock runs: how each was read, never the page's value
            assert number_row(page, "kv_per_seq").inner_text().endswith("Read as 34 GB.")
            assert number_row(page, "ttft").locator(".mock-round__number-error").inner_text() == (
                f"“{markup}” does not start with a number. Write it as 0.4 s or 400 ms.")
            assert number_row(page, "ttft").get_attribute("data-verdict") == "unreadable"
            assert "The page:" not in page.inner_text(".mock-round__numbers")

            page.click("button[data-action=finish]")
            kv = number_row(page, "kv_per_seq")
            assert kv.get_attribute("data-verdict") == "outside"
            assert "outside the page's band, 43.2× the page's value." in kv.inner_text()  # 34 GB / 786 MB
            assert kv.locator(".mock-round__derivation li").all_text_contents() == numbers["kv_per_seq"]["derivation"]
            assert kv.locator(".mock-round__derivation").is_visible()  # shown, not folded, for a flagged number
            assert numbers["kv_per_seq"]["band"] in kv.inner_text() and numbers["kv_per_seq"]["page"] in kv.inner_text()
            assert number_row(page, "max_batch").get_attribute("data-verdict") == "within"
            assert number_row(page, "fleet_gpus").get_attribute("data-verdict") == "within"  # 1,600 is within 2x
            assert number_row(page, "ttft").get_attribute("data-verdict") == "unreadable"
            cost = number_row(page, "cost_per_day")
            assert cost.get_attribute("data-verdict") == "empty" and "Not entered." in cost.inner_text()
            assert cost.locator(".mock-round__derivation").is_visible()
            number_row(page, "kv_per_seq").locator("input").fill("786 MB")  # corrected after the round: checked again
            assert kv.get_attribute("data-verdict") == "within"
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert page.evaluate("window.injected") is None and page.locator(".mock-round img").count() == 0
        finally:
            context.close()
        assert problems == []


def test_a_reload_mid_round_keeps_the_clock_the_draw_the_notes_and_the_numbers(chromium: Any, built_site: Path):
    data = ROUNDS["design-chatgpt"]
    with browser.serve(built_site) as base:
        context, page, problems = open_round(chromium, base + page_path("design-chatgpt", offline=False))
        try:
            page.click("button[data-action=start]")
            asking = drawn(page, data)
            skip_until(page, asking[0]["due_s"])
            page.fill(".mock-round__notes", NOTE)
            number_row(page, "fleet_gpus").locator("input").fill("1,600")
            number_row(page, "kv_per_seq").locator("input").fill("0.8 GB")
            before = (clock_s(page), shown_questions(page), stored(page, data)["draw"], stored(page, data)["seed"])
            page.reload(wait_until="load")
            page.wait_for_selector(".mock-round[data-phase=running]")
            assert clock_s(page) >= before[0] >= asking[0]["due_s"]
            assert shown_questions(page) == before[1] == [asked(asking[0], 0)]
            assert (stored(page, data)["draw"], stored(page, data)["seed"]) == before[2:]
            assert page.input_value(".mock-round__notes") == NOTE
            assert number_row(page, "fleet_gpus").locator("input").input_value() == "1,600"
            assert number_row(page, "kv_per_seq").locator("input").input_value() == "0.8 GB"
            assert page.evaluate(SHOWN_ANSWERS, data["hide"]) == []  # still hidden after the reload
        finally:
            context.close()
        assert problems == []


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
    follow-up answered, a number entered, the score chosen with the arrow keys, saved; nothing scrolls
    sideways."""
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
            assert shown_questions(page) == [asked(drawn(page, data)[0], 0)]
            tab_to(page, "textarea")  # past the notes, into the follow-up's answer
            page.keyboard.type("eight per replica")
            page.keyboard.press("Tab")
            assert focused(page) == "commit"
            page.keyboard.press("Enter")
            assert page.inner_text(".mock-round__follow-ups li.is-committed .mock-round__answer") == "eight per replica"
            tab_to(page, "mock-round__number-input")  # the first key number, after the follow-ups
            page.keyboard.type("786 MB")
            tab_to(page, "finish", "Shift+Tab")
            page.keyboard.press("Enter")
            assert number_row(page, "kv_per_seq").get_attribute("data-verdict") == "within"
            for level in SCORE:  # each dimension's radios: Space picks the first, the arrows move along
                page.keyboard.press("Space")
                for _ in range(level):
                    page.keyboard.press("ArrowDown")
                page.keyboard.press("Tab")
            assert focused(page) == "save"
            page.keyboard.press("Enter")
            page.wait_for_selector(".mock-round[data-phase=idle] .mock-round__past li")
            assert page.inner_text(".mock-round__past li .mock-round__verdict") == rubric().verdict(SCORE).title
            assert "1 of 5 numbers within the page's bands" in page.inner_text(".mock-round__past > ol > li")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page scrolls sideways at 390 px: {width} px wide"
    finally:
        context.close()
