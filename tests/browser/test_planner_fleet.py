"""The planner page's simulated half in headless Chromium: at a desktop's and a phone's width
it shows the figures gpu_math.py plan and autoscale print for the worked workload (the simulated count, its
p95s, Little's law, the chosen shape and runner-up, the day under a policy), redraws them after an edit without
freezing the page, shows what a reader typed as text, fits the column, and asks no other host."""

from __future__ import annotations

import dataclasses
import math
import urllib.parse
from pathlib import Path
from typing import Any

import headless as browser
import pytest

from macros.engine.autoscale.run import autoscale
from macros.engine.fleet.answer import answer
from macros.engine.fleet.planner import plan
from macros.engine.fleet.workload_file import design
from macros.engine.workloads import workloads

DONE = "() => (document.querySelector('.gpu-fleet__status') || {}).textContent.startsWith('Done')"
WAIT_MS = 180_000


def _python(w: Any, policy: str) -> dict[str, Any]:
    return {**answer(plan(w)).json, "day": autoscale(w, policy).as_json()}


def _shown(page: Any) -> dict[str, str]:
    page.wait_for_function(DONE, timeout=WAIT_MS)
    return page.eval_on_selector_all(".gpu-fleet dd", "all => Object.fromEntries(all.map(d => [d.dataset.key, "
                                     "d.dataset.value === undefined ? d.textContent : d.dataset.value]))")


def _agree(shown: dict[str, str], py: dict[str, Any]) -> None:
    day = py["day"]
    for key, value in {"napkin_gpus": py["napkin_gpus"], "gpus": py["gpus"], "replicas": py["replicas"],
                       "gpus_per_replica": py["gpus_per_replica"], "ttft_p95_s": py["ttft_p95_s"],
                       "tpot_p95_s": py["tpot_p95_s"],
                       "live_concurrency_per_replica": py["live_concurrency_per_replica"],
                       "shape_search_best_output_tokens_per_s_per_gpu":
                           py["shape_search_best_output_tokens_per_s_per_gpu"],
                       "gpu_hours": day["gpu_hours"], "offered_requests": day["offered_requests"],
                       "served_requests": day["served_requests"], "shed_requests": day["shed_requests"],
                       "slo_violation_minutes": day["slo_violation_minutes"]}.items():
        assert math.isclose(float(shown[key]), value, rel_tol=1e-9), (key, shown[key], value)
    for key in ("shape_search_best", "shape_search_runner_up"):
        assert shown[key] == py[key], key
    assert int(shown["served_requests"]) + int(shown["shed_requests"]) == int(shown["offered_requests"])


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_simulates_what_the_python_simulates_and_fits(chromium: Any, built_site: Path, width: int):
    w, _ = design(workloads()["planner_design"])
    problems: list[str] = []
    with browser.serve(built_site) as base:
        page = browser.open_page(chromium, base + "planner/", width=width, problems=problems)
        _agree(_shown(page), _python(w, "reactive"))
        # Both charts drawn, inside the column; nothing on the page scrolls sideways.
        boxes = page.eval_on_selector_all(".gpu-fleet svg", "all => all.map(s => s.getBoundingClientRect().right)")
        column = page.eval_on_selector("article", "a => a.getBoundingClientRect().right")
        assert len(boxes) == 2 and max(boxes) <= column + 1, (boxes, column)
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        page.screenshot(path=str(built_site.parent / f"planner-fleet-{width}.png"), full_page=True)
        page.close()
    assert not problems, problems


def test_an_edit_and_a_policy_redraw_it_without_freezing_the_page(chromium: Any, built_site: Path):
    w, _ = design(workloads()["planner_design"])
    problems: list[str] = []
    with browser.serve(built_site) as base:
        page = browser.open_page(chromium, base + "planner/", problems=problems)
        page.wait_for_function(DONE, timeout=WAIT_MS)
        # The longest the page's event loop goes without a turn while it simulates: a tick every 10 ms.
        page.evaluate("window.__gap = 0; window.__last = performance.now(); setInterval(() => { const now = "
                      "performance.now(); window.__gap = Math.max(window.__gap, now - window.__last); "
                      "window.__last = now; }, 10)")
        page.fill("#gpu-plan-form-ttft_p95_ms", "800")
        page.select_option("#gpu-fleet-policy", "warm-pool")
        tighter = dataclasses.replace(w, ttft_p95_s=0.8)
        _agree(_shown(page), _python(tighter, "warm-pool"))
        # One simulated run (a few hundred ms here) is the longest the page waits; the search takes seconds.
        assert page.evaluate("window.__gap") < 1500
        page.close()
    assert not problems, problems


def test_what_a_reader_typed_is_shown_as_text(chromium: Any, built_site: Path):
    typed = '<img src=x onerror="window.__ran = 1">'
    problems: list[str] = []
    with browser.serve(built_site) as base:
        query = urllib.parse.urlencode({"ttft_p95_ms": typed})
        page = browser.open_page(chromium, base + "planner/?" + query, problems=problems)
        message = page.text_content("#gpu-plan-form-ttft_p95_ms-msg")
        assert typed in message  # the field's words quote it, as text
        assert page.locator(".gpu-calc img").count() == 0 and page.evaluate("window.__ran") is None
        assert "waits for every field" in page.text_content(".gpu-fleet__status")
        page.close()
    assert not problems, problems
