"""The calculator's and the planner's forms in headless Chromium, held to the shared table of bad inputs
(tests/vectors/bad_inputs.json): every case that belongs to a form field (the command line's flags that
are calculator fields, scenario() given a bad value, the custom model and GPU, the planner's form), and
every numeric field of both forms crossed with negative, zero, nan, inf, huge, text and empty. For each,
the page shows exactly the table's message in the form's words (the field's label where the table names
the field or its flag, the value as typed), beside that field and no other, the results area says the
inputs need fixing, no figure anywhere is NaN, infinite or a negative count, and nothing reaches the
console. One page load per form: cases are set by script, each from the same starting state."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import headless as browser
import pytest
from conftest import ROOT
from test_calculator_ui import OFF_HOST

from macros.engine.fleet.planner import plan
from macros.engine.fleet.workload_file import design
from macros.engine.model.scenario import scenario
from macros.engine.specs import catalog
from macros.engine.workloads import workloads
from macros.text import fmt

CASES = json.loads((ROOT / "tests" / "vectors" / "bad_inputs.json").read_text())["cases"]
RULES = tomllib.loads((ROOT / "macros" / "data" / "rules.toml").read_text())
# The table's generator: its bad values and the words it expects, written out there by hand.
_spec = importlib.util.spec_from_file_location("bad_inputs", ROOT / "tools" / "bad_inputs.py")
bad_inputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bad_inputs)

# Each numeric field of a form: (the rule it is held to, what the typed value is multiplied by to give the
# rule's SI value). A field in OPTIONAL may be left blank: it says so in its placeholder ("auto", "max",
# "on record", "none").
CALCULATOR = {
    "gpus": ("scenario", "gpus", 1), "seq_len": ("scenario", "seq_len", 1), "batch": ("scenario", "batch", 1),
    "reserve": ("scenario", "reserve_bytes", 1e9), "price": ("scenario", "price", 1),
    "efficiency": ("scenario", "efficiency", 1),
    **{f"m_{f}": ("model", r, s) for f, r, s in [
        ("params", "params", 1e9), ("active", "active_params", 1e9), ("layers", "layers", 1),
        ("query_heads", "query_heads", 1), ("kv_heads", "kv_heads", 1), ("head_dim", "head_dim", 1),
        ("hidden", "hidden_size", 1), ("max_context", "max_context", 1), ("experts", "experts", 1),
        ("experts_per_token", "experts_per_token", 1), ("kv_lora_rank", "kv_lora_rank", 1),
        ("rope", "qk_rope_head_dim", 1), ("q_lora_rank", "q_lora_rank", 1), ("window", "sliding_window", 1),
        ("window_layers", "sliding_window_layers", 1)]},
    **{f"g_{f}": ("gpu", r, s) for f, r, s in [
        ("memory", "memory_bytes", 1e9), ("bandwidth", "bandwidth_bytes_per_s", 1e12), ("bf16", "bf16_flops", 1e12),
        ("fp8", "fp8_flops", 1e12), ("fp4", "fp4_flops", 1e12), ("link", "interconnect_bytes_per_s", 1e9)]},
}
PLANNER = {f: ("workload", f, 1) for f in ("gpus_per_replica", "requests_per_day", "peak_to_mean", "prompt_tokens",
                                          "output_tokens", "prefix_hit_rate", "efficiency", "headroom")}
PLANNER |= {"ttft_ms": ("workload", "ttft_s", 1e-3), "tpot_ms": ("workload", "tpot_s", 1e-3),
            "price": ("workload", "price_per_gpu_hour", 1)}
# (the planner's mean targets may be blank: its start values give p95 targets, which stand in for them)
OPTIONAL = {"gpus", "batch", "price", "gpus_per_replica", "m_active", "m_hidden", "m_experts", "m_experts_per_token",
            "m_kv_lora_rank", "m_rope", "m_q_lora_rank", "m_window", "m_window_layers", "g_fp8", "g_fp4", "ttft_ms",
            "tpot_ms"}
FLAGS = {"--gpus": "gpus", "--seq-len": "seq_len", "--batch": "batch", "--reserve": "reserve", "--price": "price",
         "--efficiency": "efficiency", "--model": "model", "--gpu": "gpu"}
OPTIONS = {"model": set(catalog().models), "gpu": set(catalog().gpus)}  # what the selects offer
COUNTS = {"gpus", "max_batch", "batch", "kv_copies", "replicas", "gpus_per_replica", "slo_batch"}

# Set fields by script (no events but one), as a reader's last keystroke would, and read what the tool
# shows: each message by its field, whether it sits right under its input, the results.
SET_JS = """([formId, values, changed]) => {
  const form = document.getElementById(formId), box = form.closest('.gpu-calc');
  for (const [k, v] of Object.entries(values)) form.elements[k].value = v;
  form.elements[changed].dispatchEvent(new Event('input', { bubbles: true }));
  const msgs = {};
  for (const m of form.querySelectorAll('.gpu-calc__msg')) {
    if (!m.textContent) continue;
    const input = document.getElementById(m.id.replace(/-msg$/, ''));
    const a = input.getBoundingClientRect(), b = m.getBoundingClientRect();
    msgs[input.name] = { text: m.textContent,
                         beside: Math.abs(a.left - b.left) < 2 && b.top >= a.bottom - 1 && b.top - a.bottom < 12 };
  }
  const text = (sel) => box.querySelector(sel).textContent;
  return { msgs, general: text('.gpu-calc__error'), out: text('.gpu-calc__out'),
           charts: box.querySelector('.gpu-calc__charts').innerHTML, pending: !!box.querySelector('.gpu-calc__pending'),
           figures: [...box.querySelectorAll('.gpu-calc__results dd[data-value]')]
             .map(d => [d.dataset.key, d.dataset.value]) };
}"""
LABELS_JS = "id => Object.fromEntries([...document.getElementById(id).elements].filter(e => e.name).map(e => " \
            "[e.name, document.querySelector(`label[for=\"${e.id}\"]`).textContent]))"
ABSURD = re.compile(r"NaN|Infinity|∞|undefined|null|\$-|−|(?<![\w.])-\d")


def typed(value: Any, scale: float = 1) -> str:
    """A table's value as a reader types it in the form's unit."""
    if isinstance(value, dict):
        return value["$float"]
    x = value / scale
    return str(int(x)) if float(x).is_integer() else f"{x:.12g}"


def check_clean(shown: dict[str, Any]) -> None:
    """No NaN, infinity or negative figure in the results or the charts."""
    assert not ABSURD.search(shown["out"]), shown["out"]
    assert "NaN" not in shown["charts"] and "Infinity" not in shown["charts"]
    for key, value in shown["figures"]:
        assert math.isfinite(float(value)) and (key not in COUNTS or float(value) >= 0), (key, value)


def check(shown: dict[str, Any], field: str, expected: str | None, parts: tuple[str, ...] = ()) -> None:
    """`expected` (or every one of `parts`) beside `field` and nowhere else; or, with neither, no message and
    the results shown."""
    check_clean(shown)
    if expected is None and not parts:
        assert not shown["msgs"] and not shown["general"] and not shown["pending"] and shown["figures"], shown
        return
    assert list(shown["msgs"]) == [field] and not shown["general"], shown["msgs"] or shown["general"]
    got = shown["msgs"][field]
    assert got["beside"], f"the message for {field} is not under its input"
    if expected is not None:
        assert got["text"] == expected, (got["text"], expected)
    assert all(p in got["text"] for p in parts), (got["text"], parts)
    assert "--" not in got["text"], got  # the page's words, never a command-line flag
    assert shown["pending"] and "need fixing" in shown["out"] and not shown["figures"], shown["out"]


def run(page: Any, form: str, start: dict[str, str], cases: list[tuple[dict[str, str], str, Any, tuple]]) -> None:
    for values, field, line, parts in cases:
        try:
            check(page.evaluate(SET_JS, [form, values, field]), field, line, parts)
        except AssertionError as exc:
            changed = {k: v for k, v in values.items() if start.get(k) != v}
            raise AssertionError(f"{field} with {changed}: {exc}") from None


def in_words(message: str, labels: dict[str, str], names: dict[str, str]) -> str:
    """The table's message in the form's words: each field's name (longest first) as its label."""
    for name in sorted(names, key=len, reverse=True):
        message = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", labels[names[name]], message)
    return message


def quoted(message: str, text: str) -> str:
    """The value at a message's end as the form shows it: as typed, quoted."""
    head, sep, _ = message.rpartition(", got ")
    return f"{head}{sep}'{text}'" if sep else message


@pytest.fixture(scope="module")
def tool(chromium: Any, built_site: Path):
    """Open a tool's page once: yields (page, form id, the form's starting values, its labels)."""
    with browser.serve(built_site) as base:
        context = chromium.new_context(viewport={"width": 1280, "height": 900})
        pages: dict[str, Any] = {}

        def open_tool(path: str, form: str) -> tuple[Any, str, dict[str, str], dict[str, str]]:
            if path not in pages:
                page = context.new_page()
                page.errors = []
                page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
                page.on("pageerror", lambda exc: page.errors.append(str(exc)))
                page.route(OFF_HOST, lambda route: (page.errors.append(route.request.url), route.abort()))
                page.goto(base + path)
                page.wait_for_selector(".gpu-calc__results dd")
                start = page.evaluate(f"Object.fromEntries([...document.getElementById('{form}').elements]"
                                      ".filter(e => e.name).map(e => [e.name, e.value]))")
                pages[path] = (page, form, start, page.evaluate(LABELS_JS, form))
            return pages[path]

        yield open_tool
        for page, *_ in pages.values():
            assert not page.errors, page.errors
        context.close()


def crossed(fields: dict[str, tuple[str, str, float]], start: dict[str, str],
            labels: dict[str, str]) -> list[tuple[dict[str, str], str, Any, tuple]]:
    """Every numeric field crossed with the table's bad values (bad_inputs.BAD), its message in the words
    of the table's generator with the field's label for its name; a blank is allowed where it means
    something."""
    cases = []
    for field, (kind, name, _) in fields.items():
        rule = RULES[kind]["fields"][name]
        for label, text, *_ in bad_inputs.BAD:
            line = None if label == "empty" and field in OPTIONAL else bad_inputs.message(labels[field], rule, label,
                                                                                          f"'{text}'")
            cases.append(({**start, field: text}, field, line, ()))
    return cases


def flags_of(args: list[str]) -> list[tuple[str, str]] | None:
    """A command line's (flag, value) pairs (--json left out), or None where it is not only such pairs."""
    out, rest = [], [a for a in args if a != "--json"]
    while rest:
        arg = rest.pop(0)
        if not arg.startswith("--") or ("=" not in arg and not rest):
            return None
        out.append(tuple(arg.split("=", 1)) if "=" in arg else (arg, rest.pop(0)))
    return out


def calculator_cases(start: dict[str, str], labels: dict[str, str]) -> list[tuple[dict[str, str], str, Any, tuple]]:
    """(the form's values, the field set last, the message expected or None, parts) for every case."""
    # Every numeric field crossed with the bad values, on a custom model and GPU (all fields shown).
    cases = crossed(CALCULATOR, {**start, "model": "custom", "gpu": "custom"}, labels)
    # The table's command-line cases whose flags are all this form's fields (a model or GPU the select
    # offers): the message goes beside the last flag's field, with its label for the flag. Messages of the
    # argument parser itself ("(see --help)") have no form field.
    for case in CASES:
        flags = flags_of(case["args"]) if case["kind"] == "cli" else None
        if not flags or "(see --help)" in case.get("message", "") or any(f not in FLAGS for f, _ in flags):
            continue
        values = {FLAGS[f]: v for f, v in flags}
        if any(v == "" and f in OPTIONAL for f, v in values.items()):
            continue  # a blank in the form is how the reader says "auto": the command line omits the flag
        if values.get("model", "llama-70b") not in OPTIONS["model"] or values.get("gpu", "h100") not in OPTIONS["gpu"]:
            continue
        flag, field = flags[-1][0], FLAGS[flags[-1][0]]
        line = case.get("message")
        line = line and line.replace(flag, labels[field])
        cases.append(({**start, **values}, field, line, tuple(case.get("parts", ()))))
    # scenario() handed a bad value, a custom model or GPU: the value typed in the form's unit, the field's
    # label for its name (the fieldset's legend says "Custom model", so the message need not).
    for case in CASES:
        if case["kind"] != "scenario":
            continue
        values, kinds, given = dict(start), {"scenario"}, {}
        for key, value in case["input"].items():
            if key in ("model", "gpu") and isinstance(value, dict) and "$float" not in value:
                values[key] = "custom"
                kinds.add(key)
                values.update({f: "" for f, (kind, _, _) in CALCULATOR.items() if kind == key})
                given.update({(key, n): v for n, v in value.items()})
            elif key in ("model", "gpu"):
                values[key] = value
            else:
                given["scenario", key] = value
        names = {name: field for field, (kind, name, _) in CALCULATOR.items() if kind in kinds}
        for (kind, name), value in given.items():
            field = next((f for f, (k, n, _) in CALCULATOR.items() if (k, n) == (kind, name)), None)
            if field is not None:
                values[field] = typed(value, CALCULATOR[field][2])
        message = case["message"].split(": ", 1)[1] if case["message"].startswith("Custom ") else case["message"]
        found = [(m.start(), n) for n in names if (m := re.search(rf"(?<![\w-]){n}(?![\w-])", message))]
        if not found:
            continue  # a select's value (layout, kv): nothing to type
        field = names[min(found)[1]]
        cases.append((values, field, quoted(in_words(message, labels, names), values[field]), ()))
    return cases


def test_the_calculator_refuses_every_bad_field_in_its_own_words(tool: Any):
    page, form, start, labels = tool("calculator/", "gpu-calc-form")
    cases = calculator_cases(start, labels)
    # 27 fields x 7 values, the table's 12 calculator flags' cases and its 14 custom-model, GPU and scenario ones
    assert len(cases) >= 27 * 7 + 12 + 14, len(cases)
    run(page, form, start, cases)


def planner_cases(start: dict[str, str], labels: dict[str, str]) -> list[tuple[dict[str, str], str, Any, tuple]]:
    cases = crossed(PLANNER, start, labels)
    # The table's planner-form cases: a workload in SI units, its message naming the field it blames first.
    names = {name: field for field, (_, name, _) in PLANNER.items()}
    for case in CASES:
        if case["kind"] != "workload" or case["message"].split()[0] not in names:
            continue  # (a peak rate as well as a daily volume: the form has no field for a peak rate)
        values = dict(start)
        for key, value in case["input"].items():
            if key in ("model", "gpu"):
                values[key] = value
            elif key in names:
                values[names[key]] = typed(value, PLANNER[names[key]][2])
        field = names[case["message"].split()[0]]
        cases.append((values, field, quoted(in_words(case["message"], labels, names), values[field]), ()))
    return cases


def test_the_planner_refuses_every_bad_field_in_its_own_words(tool: Any):
    page, form, start, labels = tool("planner/", "gpu-plan-form")
    cases = planner_cases(start, labels)
    assert len(cases) >= 11 * 7 + 6, len(cases)  # 11 fields x 7 values, the table's 6 form cases with a field
    run(page, form, start, cases)


def test_a_shared_link_carries_a_blank_auto_gpu_count(tool: Any, chromium: Any, built_site: Path):
    """The sender clears the GPU count (auto); the receiver of the link gets the same replica."""
    page, form, start, _ = tool("calculator/", "gpu-calc-form")
    w = workloads()
    # By hand: 70e9 x 2 B = 140 GB of weights; one H100 (80 GB) cannot hold them, two (160 GB, less 2 x 4 GB
    # reserve) leave 12 GB, enough for one 4,096-token sequence of 1.34 GB: auto picks 2, not the anchor's 4.
    assert (w["model"], w["gpu"], w["gpus"]) == ("llama-70b", "h100", 4)
    sent = page.evaluate(SET_JS, [form, {**start, "gpus": ""}, "gpus"])
    assert dict(sent["figures"])["gpus"] == "2" == str(scenario("llama-70b", "h100").gpus)
    query = page.evaluate("location.search")
    assert "gpus=" in query, query
    with browser.serve(built_site) as base:
        other = chromium.new_page()
        other.goto(base + "calculator/" + query)
        other.wait_for_selector(".gpu-calc__results dd")
        assert other.input_value("#gpu-calc-form-gpus") == ""
        received = dict(other.eval_on_selector_all(".gpu-calc__results dd[data-value]",
                                                   "all => all.map(d => [d.dataset.key, d.dataset.value])"))
        other.close()
    assert received == dict(sent["figures"])


def test_a_gpu_with_no_price_on_record_says_so_where_the_cost_would_be(tool: Any):
    name = catalog().gpus["b300"].name
    assert "b300" not in catalog().prices  # the premise: no price on record for the B300
    for path, form, price in (("calculator/", "gpu-calc-form", "price"), ("planner/", "gpu-plan-form", "price")):
        page, _, start, _ = tool(path, form)
        values = {**start, "gpu": "b300", price: ""}
        if path == "calculator/":
            values["gpus"] = "8"
        shown = page.evaluate(SET_JS, [form, values, "gpu"])
        check_clean(shown)
        assert f"no price on record for {name}: enter one" in shown["out"], shown["out"]
        assert page.get_attribute(f"#{form}-price", "placeholder") == "none on record"


def test_the_forms_format_as_the_pages_do(tool: Any):
    """fmt.py's rule in the browser: 999.6e9 B rounds to 1.00e12 at three figures, so "1 TB", not "1,000 GB"."""
    page, form, start, _ = tool("calculator/", "gpu-calc-form")
    values = {**start, "model": "custom", "m_params": "499.8", "m_active": "", "weights": "bf16", "gpus": "16"}
    shown = page.evaluate(SET_JS, [form, values, "m_params"])
    assert float(dict(shown["figures"])["weight_bytes"]) == 999.6e9
    assert page.text_content("[data-key=weight_bytes]") == "1 TB" == fmt.bytes_(999.6e9)
    # The planner's figures too: its cost per day as fmt.usd writes the Python plan's.
    page, form, start, _ = tool("planner/", "gpu-plan-form")
    w, _ = design(workloads()["planner_design"])
    shown = page.evaluate(SET_JS, [form, start, "model"])
    assert page.text_content("[data-key=cost_per_day]") == fmt.usd(plan(w).cost_per_day)
