"""The shared tables (tests/vectors/) through Node's test runner, as pytest reads them for Python:
bad_inputs.json (tests/js/bad_inputs.test.mjs): the Node twin and the JavaScript engine refuse every case
with exit code 2, one line and the message Python gives (tests/test_bad_inputs.py holds Python to the same
lines); format.json (tests/js/format.test.mjs): format.js writes each number as fmt.py does; twin.json
(tests/js/twin.test.mjs): the engine's twin gives the Python's figures and refusals on every scenario and plan."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")


def _node_test(file: str) -> int:
    """Runs one `node --test` file; every test must pass. Returns how many passed."""
    r = subprocess.run([NODE, "--test", file], cwd=ROOT, capture_output=True, text=True, timeout=600,
                       env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable})
    failed = re.findall(r"^not ok \d+ - (.*)$", r.stdout, flags=re.M)
    assert r.returncode == 0 and not failed, f"failed in Node: {failed}\n{r.stdout[-3000:]}{r.stderr[-2000:]}"
    return int(re.search(r"^# pass (\d+)$", r.stdout, flags=re.M).group(1))


def _cases(name: str) -> list:
    return json.loads((ROOT / "tests" / "vectors" / name).read_text())["cases"]


def test_node_refuses_every_bad_input_with_python_s_message():
    # every case ran, and one more test: --json prints null where a figure does not exist
    assert _node_test("tests/js/bad_inputs.test.mjs") == len(_cases("bad_inputs.json")) + 1


def test_node_formats_every_number_as_python_does():
    assert _node_test("tests/js/format.test.mjs") == len(_cases("format.json"))


def test_node_s_serving_model_agrees_with_python_s_on_the_shared_vectors():
    # one test per seed of the generator, per simulation, per run and per sweep of tests/vectors/serving.json,
    # and one for the generator's published reference outputs
    v = json.loads((ROOT / "tests" / "vectors" / "serving.json").read_text())
    parts = ("prng", "simulations", "runs", "sweeps")
    assert _node_test("tests/js/serving.test.mjs") == sum(len(v[part]) for part in parts) + 1


def test_node_s_engine_agrees_with_python_s_on_the_shared_vectors():
    vectors = json.loads((ROOT / "tests" / "vectors" / "twin.json").read_text())
    assert _node_test("tests/js/twin.test.mjs") == len(vectors["scenarios"]) + len(vectors["plans"])


def test_node_s_day_of_traffic_keeps_served_plus_shed_equal_to_offered():
    # a hand-checked step day and one invariant check per policy (reactive, predictive, warm-pool)
    assert _node_test("tests/js/autoscale.test.mjs") == 1 + 3


def test_node_s_planner_agrees_with_python_s_on_the_shared_vectors():
    # one test per shape search, pool sizing, speculative case, capacity search and day, and one for the bursts
    v = json.loads((ROOT / "tests" / "vectors" / "planner.json").read_text())
    parts = ("shapes", "disaggregated", "speculative", "capacity", "days")
    assert _node_test("tests/js/planner.test.mjs") == sum(len(v[part]) for part in parts) + 1
