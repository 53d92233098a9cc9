"""The interactive calculator and planner in headless Chromium: set inputs as a reader would, read the
displayed results (each carries its SI value in data-value) and check them against the Python
engine; the URL keeps the inputs and gives the same page back; no console error, no other host;
and the calculator works from the offline copy (file://), where ES modules and fetch cannot load."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Any

import headless as browser
import pytest

from macros.engine.fleet.planner import plan
from macros.engine.fleet.workload_file import design
from macros.engine.model.scenario import scenario
from macros.engine.workloads import workloads

OFF_HOST = re.compile(r"^(?!(?:https?://(?:127\.0\.0\.1|localhost)[:/]|file:|data:|blob:|about:)).+")


@pytest.fixture()
def page(chromium: Any):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    p.errors, p.off_host = [], []
    p.on("console", lambda msg: msg.type == "error" and p.errors.append(msg.text))
    p.on("pageerror", lambda exc: p.errors.append(str(exc)))
    p.on("request", lambda req: OFF_HOST.match(req.url) and p.off_host.append(req.url))
    p.route(OFF_HOST, lambda route: route.abort())
    yield p
    assert not p.errors and not p.off_host, (p.errors, p.off_host)
    context.close()


def _shown(page: Any) -> dict[str, str]:
    page.wait_for_selector(".gpu-calc__results dd")
    return page.eval_on_selector_all(".gpu-calc__results dd", "all => Object.fromEntries(all.map("
                                     "d => [d.dataset.key, d.dataset.value]))")


def _close(shown: dict[str, str], expected: dict[str, Any]) -> None:
    for key, value in expected.items():
        assert math.isclose(float(shown[key]), value, rel_tol=1e-9), (key, shown[key], value)


def test_the_calculator_computes_what_the_python_computes_and_keeps_it_in_the_url(page: Any, built_site: Path):
    with browser.serve(built_site) as base:
        page.goto(base + "calculator/")
        w = workloads()
        _close(_shown(page), {"max_batch": scenario(w["model"], w["gpu"], gpus=w["gpus"]).max_batch})
        # A reader picks DeepSeek-V3 on eight H200s with data-parallel attention and a longer context.
        page.select_option("#gpu-calc-form-model", "deepseek-v3")
        page.select_option("#gpu-calc-form-gpu", "h200")
        page.fill("#gpu-calc-form-gpus", "8")
        page.select_option("#gpu-calc-form-layout", "dp-attention")
        page.fill("#gpu-calc-form-seq_len", "8192")
        page.fill("#gpu-calc-form-batch", "64")
        s = scenario("deepseek-v3", "h200", gpus=8, layout="dp-attention", seq_len=8192, batch=64)
        expected = {"max_batch": s.max_batch, "kv_budget_bytes": s.kv_budget_bytes, "decode_step_s": s.decode_step_s,
                    "planned_step_s": s.planned_step_s, "decode_tokens_per_s": s.decode_tokens_per_s,
                    "cost_per_million_tokens": s.cost_per_million_tokens, "kv_copies": s.kv_copies}
        _close(_shown(page), expected)
        query = page.evaluate("location.search")
        assert "model=deepseek-v3" in query and "layout=dp-attention" in query and "gpus=8" in query, query
        # The shared address gives the same inputs and the same figures.
        page.goto(base + "calculator/" + query)
        assert page.input_value("#gpu-calc-form-model") == "deepseek-v3"
        _close(_shown(page), expected)
        # Keyboard: the form's controls take focus in order from the model select.
        page.focus("#gpu-calc-form-model")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "gpu-calc-form-gpu"


def test_a_custom_geometry_and_a_bad_input(page: Any, built_site: Path):
    with browser.serve(built_site) as base:
        page.goto(base + "calculator/?model=custom&m_params=30&m_layers=48&m_query_heads=32&m_kv_heads=4"
                  "&m_head_dim=128&m_hidden=4096&m_max_context=32768&gpu=h100&gpus=1")
        assert page.is_visible("#gpu-calc-form-m_params")
        shown = _shown(page)
        from macros.engine.specs import Model
        m = Model(key="custom", name="Custom model", params=30e9, layers=48, query_heads=32, kv_heads=4, head_dim=128,
                  max_context=32768, source="", checked="", hidden_size=4096)
        _close(shown, {"max_batch": scenario(m, "h100", gpus=1).max_batch})
        page.fill("#gpu-calc-form-seq_len", "100000")
        assert "supports at most 32,768 tokens" in page.text_content("#gpu-calc-form-seq_len-msg")


def test_the_planner_sizes_the_fleet_the_python_sizes(page: Any, built_site: Path):
    w, _ = design(workloads()["planner_design"])
    with browser.serve(built_site) as base:
        page.goto(base + "planner/")
        _close(_shown(page), {"gpus": plan(w).gpus})
        page.fill("#gpu-plan-form-tpot_ms", "30")
        page.select_option("#gpu-plan-form-gpu", "h200")
        page.fill("#gpu-plan-form-gpus_per_replica", "8")
        p = plan(dataclasses.replace(w, tpot_s=0.03, gpu="h200", gpus_per_replica=8))
        shown = _shown(page)
        _close(shown, {"gpus": p.gpus, "replicas": p.replicas, "slo_batch": p.slo_batch,
                       "planned_prefill_s": p.planned_prefill_s, "cost_per_day": p.cost_per_day})
        assert ("KV budget" in page.text_content("[data-key=binding]")) == (p.binding == "kv")
        assert "tpot_ms=30" in page.evaluate("location.search")


def test_the_calculator_works_from_the_offline_copy(page: Any, offline_site: Path):
    page.goto((offline_site / "calculator.html").as_uri())
    w = workloads()
    _close(_shown(page), {"max_batch": scenario(w["model"], w["gpu"], gpus=w["gpus"]).max_batch})
