"""The Load explorer in headless Chromium: the serving twin in the page computes what the Python computes
(each figure carries its SI value in data-value) at the start and after a reader moves the slider and
changes the replica; the URL keeps the inputs; typed markup stays text; it works from the offline copy
(file://); no console error, no other host."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import headless as browser
from test_calculator_ui import page  # noqa: F401  (the fixture: console errors and other hosts fail the test)

from macros.engine.serving.run import RunRequest
from macros.engine.serving.sweep import capacity_per_s, knee, point, sweep
from macros.site.pages import load_explorer

START_LOAD = 0.7  # the slider's start, as a share of the capacity (load-form.js)


def _shown(page: Any) -> dict[str, str]:  # noqa: F811 (page: the fixture's name)
    page.wait_for_selector(".gpu-calc__results dd")
    return page.eval_on_selector_all(".gpu-calc__results dd", "all => Object.fromEntries(all.filter(d => "
                                     "d.dataset.value).map(d => [d.dataset.key, d.dataset.value]))")


def _agree(shown: dict[str, str], p: Any, capacity: float) -> None:
    expected = {"rate_per_s": p.rate_per_s, "ttft_p50_s": p.ttft_p50_s, "ttft_p99_s": p.ttft_p99_s,
                "tpot_p99_s": p.tpot_p99_s, "output_tokens_per_s_per_gpu": p.output_tokens_per_s_per_gpu,
                "utilisation": p.utilisation, "capacity_per_s": capacity}
    for key, value in expected.items():
        assert math.isclose(float(shown[key]), value, rel_tol=1e-9), (key, shown[key], value)


def test_the_explorer_computes_what_the_python_computes(page: Any, built_site: Path):  # noqa: F811
    q = load_explorer.model()
    start = RunRequest(**q.start, concurrency=1)
    with browser.serve(built_site) as base:
        page.goto(base + "load-explorer/")
        shown = _shown(page)
        _agree(shown, point(start, START_LOAD * q.capacity_per_s, q.capacity_per_s), q.capacity_per_s)
        assert math.isclose(float(shown["knee_rate_per_s"]), q.knee.rate_per_s, rel_tol=1e-9)
        assert page.query_selector(".gpu-calc__load .knee") is not None  # the chart marks the knee
        # The slider to 110 % of the capacity: past it, the queue shows in the tail.
        page.eval_on_selector("#gpu-load-form-load", "e => { e.value = '1.1'; e.dispatchEvent(new Event('input', "
                                                     "{bubbles: true})); }")
        _agree(_shown(page), point(start, 1.1 * q.capacity_per_s, q.capacity_per_s), q.capacity_per_s)
        # Markup typed into a field is refused as text, never inserted.
        page.fill("#gpu-load-form-input_tokens", "<b>x</b>")
        page.wait_for_selector("#gpu-load-form-input_tokens[aria-invalid=true]")
        assert page.query_selector(".gpu-calc b") is None
        # Another replica: GPT-OSS on one H200 with 1,000-token prompts.
        page.select_option("#gpu-load-form-model", "gpt-oss-120b")
        page.select_option("#gpu-load-form-gpu", "h200")
        page.select_option("#gpu-load-form-gpus", "1")
        page.fill("#gpu-load-form-input_tokens", "1000")
        other = RunRequest(model="gpt-oss-120b", gpu="h200", gpus=1, engine=q.start["engine"], input_tokens=1000,
                           output_tokens=q.start["output_tokens"], concurrency=1)
        capacity = capacity_per_s(other)
        # Each change redraws (the text field after a pause): wait for the last one's capacity.
        page.wait_for_function("c => Math.abs(Number(document.querySelector('[data-key=capacity_per_s]')"
                               "?.dataset.value) - c) <= 1e-9 * c", arg=capacity)
        _agree(_shown(page), point(other, 1.1 * capacity, capacity), capacity)
        assert "gpus=1" in page.evaluate("location.search") and "load=1.1" in page.evaluate("location.search")
        # The address gives the same page back.
        page.goto(page.url)
        _agree(_shown(page), point(other, 1.1 * capacity, capacity), capacity)
        k = knee(sweep(other)[1])
        assert (page.query_selector(".gpu-calc__load .knee") is None) == (k is None)


def test_the_explorer_works_from_the_offline_copy(page: Any, offline_site: Path):  # noqa: F811
    q = load_explorer.model()
    page.goto((offline_site / "load-explorer.html").as_uri())
    start = RunRequest(**q.start, concurrency=1)
    _agree(_shown(page), point(start, START_LOAD * q.capacity_per_s, q.capacity_per_s), q.capacity_per_s)


def test_at_390_px_the_explorer_is_a_readable_stack_with_a_legible_chart(chromium: Any, built_site: Path):
    from test_forms_layout import CHART_JS, LAYOUT_JS

    problems: list[str] = []
    with browser.serve(built_site) as base:
        page = browser.open_page(chromium, base + "load-explorer/", width=390, height=844, problems=problems)
        page.wait_for_selector(".gpu-calc__load")
        shown = page.evaluate(LAYOUT_JS)
        assert shown["side"]["top"] >= shown["form"]["bottom"] and shown["overflow"] <= 0, shown
        for tile in shown["tiles"]:
            assert tile["dt"]["bottom"] <= tile["dd"]["top"] + 1, tile  # the label above its value
            assert tile["lines"] == 1, tile  # "2.54 requests/s" on one line
        texts = page.evaluate(CHART_JS)
        # Both curves and the knee are labelled; the y axis spans at least one decade of seconds (two ticks).
        assert {"p50", "p99", "knee"} <= {t["text"] for t in texts}, texts
        assert sum("tick--y" in t["cls"] for t in texts) >= 2, texts
        assert all(t["size"] >= 11 and t["inside"] for t in texts), texts
        page.close()
    assert not problems, problems
