"""The shared planner vectors (tests/vectors/planner.json), which the JavaScript twin is held to
(tests/js/planner.test.mjs): the file is what tools/planner_vectors.py computes from the Python now
(tests/test_generated.py checks that), and it reaches the branches its docstring names, so a twin that passes it
has been through them."""

from __future__ import annotations

import json

from conftest import ROOT

VECTORS = ROOT / "tests" / "vectors" / "planner.json"


def test_the_vectors_reach_every_branch_they_name():
    v = json.loads(VECTORS.read_text())
    engines = {c["input"][4] for c in v["shapes"]}
    assert {"vllm", "trt"} & engines and {"sglang", "atom"} & engines  # mixed steps and prefill-first
    assert any(s["does_not_fit"] for c in v["shapes"] for s in c["output"]["shapes"])
    assert any(s["shape"].startswith("DP-attention") and s["best"] for c in v["shapes"] for s in c["output"]["shapes"])
    assert {c["input"][-1] for c in v["disaggregated"]} == {True, False}  # the transfer inside a node and between
    assert all(c["output"]["prefill"] and c["output"]["decode"] for c in v["disaggregated"])
    assert {c["output"]["break_even_batch"] is None for c in v["speculative"]} == {True, False}
    assert [("error" in c) for c in v["capacity"]] == [False, True]
    assert {c["input"]["controls"]["policy"] for c in v["days"]} == {"reactive", "predictive", "warm-pool"}
    assert any(x > 0 for x in v["bursts"]["lifts"]) and any(c["output"]["shed_requests"] > 0 for c in v["days"])
    assert VECTORS.stat().st_size < 300_000
