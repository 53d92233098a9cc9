"""The shared serving vectors (tests/vectors/serving.json), which the JavaScript twin is held to
(tests/js/serving.test.mjs): the file is what tools/serving_vectors.py computes from the Python now
(tests/test_generated.py checks that), and it covers what its docstring says it covers, so a twin that passes it
has been through every branch named."""

from __future__ import annotations

import json

from conftest import ROOT

VECTORS = ROOT / "tests" / "vectors" / "serving.json"


def test_the_vectors_cover_every_engine_arrival_length_layout_and_preemption():
    v = json.loads(VECTORS.read_text())
    sims = [c["input"] for c in v["simulations"]]
    outs = [c["output"] for c in v["simulations"]]
    assert {s["engine"] for s in sims} == {"vllm", "sglang", "trt", "atom"}
    assert {s["arrivals"]["kind"] for s in sims} == {"closed", "poisson", "gamma", "trace"}
    # Gamma below shape 1 (cv > 1: the boosted draw) and above it (cv < 1).
    assert {s["arrivals"]["cv"] > 1 for s in sims if s["arrivals"]["kind"] == "gamma"} == {True, False}
    assert {s["prompt"]["kind"] for s in sims if s["prompt"]} == {"fixed", "range", "lognormal"}
    assert {s["layout"] for s in sims} == {"tp", "dp-attention"} and any(s["ep"] > 1 for s in sims)
    assert {"llama-3.1-8b", "deepseek-v3", "mistral-7b", "gemma-2-27b", "gpt-oss-120b"} <= {s["model"] for s in sims}
    assert any(o["preemptions"] > 0 for o in outs)  # a recomputing engine out of blocks
    assert any(o["summary"]["tpot_s"]["p50"] is None for o in outs)  # one-token outputs: no TPOT at all
    assert {r["output"]["arrivals"] for r in v["runs"]} == {"ClosedLoop", "Offline", "Poisson", "Gamma", "Trace"}
    assert any(r["input"].get("token_budget") for r in v["runs"])  # a launch given on the command line
    # Every request of every simulation has a record: the twin is checked request by request.
    assert all(len(o["records"]) == s["requests"] for s, o in zip(sims, outs, strict=True) if s["arrivals"]["kind"]
               != "trace")
    assert VECTORS.stat().st_size < 300_000
