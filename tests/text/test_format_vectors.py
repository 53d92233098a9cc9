"""fmt.py against the shared number->string table (tests/vectors/format.json), which the browser's
format.js must also follow (tests/js/format.test.mjs): one rule for the pages and the forms."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from macros.text import fmt

CASES = json.loads((ROOT / "tests" / "vectors" / "format.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['fn']}({c['x']})" for c in CASES])
def test_a_number_reads_as_the_table_says(case):
    assert getattr(fmt, case["fn"])(case["x"], *case["args"]) == case["out"], case["why"]


def test_the_browser_reads_the_same_steps():
    # what catalog.json carries for format.js: the figures and the unit steps fmt.py itself uses
    assert fmt.RULES == {"sig": 3, "si": [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1.0, ""]],
                         "time": [[1.0, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]], "usd_whole_from": 100}
