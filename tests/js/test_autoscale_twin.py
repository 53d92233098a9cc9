"""`node tools/gpu_math.mjs autoscale` against `gpu_math.py autoscale` (ARCHITECTURE.md, the twin): the day of
traffic's JavaScript twin (docs/assets/javascripts/calculator/autoscale/) prints the same --json keys with values
equal to 1e-9 relative (whole numbers exactly, the minute-by-minute timeline included) for every policy and signal,
on the worked autoscaler, its variants and a replayed trace; and a bad trace is one line and exit code 2 in both."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, gpu_math

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")
FILE = "macros/data/designs/autoscaler.toml"
ENV = {"PATH": "/usr/bin:/bin", "PYTHON": sys.executable}


def _agree(py: object, js: object, where: str) -> None:
    if isinstance(py, dict):
        assert isinstance(js, dict) and list(py) == list(js), f"{where}: keys {list(py)} against {js}"
        for key in py:
            _agree(py[key], js[key], f"{where}.{key}")
    elif isinstance(py, list):
        assert isinstance(js, list) and len(py) == len(js), where
        for n, (a, b) in enumerate(zip(py, js)):
            _agree(a, b, f"{where}[{n}]")
    elif isinstance(py, float) and isinstance(js, (int, float)) and not isinstance(js, bool):
        assert math.isclose(py, js, rel_tol=1e-9, abs_tol=1e-300), f"{where}: Python {py!r}, JavaScript {js!r}"
    else:
        assert py == js, f"{where}: Python {py!r}, JavaScript {js!r}"


def _both(args: list[str]) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """Python's day (gpu_math.py's main() in this process) and Node's (its command line, as a user runs it)."""
    node = subprocess.run([NODE, "tools/gpu_math.mjs", "autoscale", *args], cwd=ROOT, capture_output=True, text=True,
                          env=ENV, timeout=300)
    return gpu_math("autoscale", *args), node


DAYS = [
    [FILE, "--policy", "reactive"],
    [FILE, "--policy", "predictive"],
    [FILE, "--policy", "warm-pool"],
    *([FILE, "--policy", "reactive", "--signal", s] for s in ("kv", "tokens", "requests", "utilisation")),
    [FILE, "--variant", "trough", "--policy", "warm-pool", "--signal", "kv"],
    [FILE, "--variant", "cold-cache", "--policy", "predictive"],
    [FILE, "--policy", "warm-pool", "--reservation", "230"],  # below the day's need: the pool gets what is left
]


@pytest.fixture(scope="module")
def node_days() -> dict[tuple[str, ...], subprocess.CompletedProcess]:
    """Node's days, every one in one process through the command line's main() (tests/js/run_main.mjs): a
    process each would spend most of the suite's time starting Node and simulating the same capacities again.
    The first day also runs as a user runs it, a process of its own (below)."""
    cases = [["autoscale", *args, "--json"] for args in DAYS]
    out = subprocess.run([NODE, "tests/js/run_main.mjs"], input=json.dumps(cases), cwd=ROOT, capture_output=True,
                         text=True, env=ENV, timeout=300, check=True)
    return {tuple(c): subprocess.CompletedProcess(c, r["code"], r["stdout"], r["stderr"])
            for c, r in zip(cases, json.loads(out.stdout), strict=True)}


def test_the_node_command_line_prints_the_day_main_prints(node_days):
    args = [*DAYS[0], "--json"]
    _, js = _both(args)
    assert js.returncode == 0 and json.loads(js.stdout) == json.loads(node_days[("autoscale", *args)].stdout)


@pytest.mark.parametrize("args", DAYS)
def test_the_node_day_is_python_s_day(args, node_days):
    py, js = gpu_math("autoscale", *args, "--json"), node_days[("autoscale", *args, "--json")]
    assert py.returncode == js.returncode == 0, (py.stderr, js.stderr)
    p, j = json.loads(py.stdout), json.loads(js.stdout)
    _agree(p, j, " ".join(args))
    # Admission control sheds what the replicas cannot take: every minute, served + shed = offered.
    assert all(m["served"] + m["shed"] == m["offered"] for m in j["timeline"])
    assert j["served_requests"] + j["shed_requests"] == j["offered_requests"] > 0


def test_a_day_peaked_past_twice_its_mean_is_the_same_day(tmp_path):
    # The design's 600 requests/s as the peak of a day three times its mean (17.28 million a day = 200/s): past
    # twice the mean the day is the peaked curve, in both runtimes the same, and its offered mean is 200/s.
    text = (ROOT / FILE).read_text()
    assert text.count("peak_requests_per_s = 600") == 1
    peaked = tmp_path / "peaked.toml"
    text = re.sub(r"^\[variants\.[^\n]*\n(?:(?!\[)[^\n]*\n)*", "", text, flags=re.M)  # a variant may set the peak
    peaked.write_text(text.replace("peak_requests_per_s = 600", "requests_per_day = 17_280_000\npeak_to_mean = 3"))
    py, js = _both([str(peaked), "--policy", "predictive", "--json"])
    assert py.returncode == js.returncode == 0, (py.stderr, js.stderr)
    p, j = json.loads(py.stdout), json.loads(js.stdout)
    _agree(p, j, "peaked day")
    offered = [m["offered"] for m in p["timeline"]]
    assert max(offered) >= 600 and min(offered) < 1  # the bursts lift the peak; the night falls to zero


def test_a_replayed_trace_is_the_same_day(tmp_path):
    # 90 minutes: 0 requests/s for 30, then 400 for 30 (a step the reactive scaler lags), then 100.
    trace = tmp_path / "rates.csv"
    trace.write_text("requests_per_s\n" + "0\n" * 30 + "400\n" * 30 + "100\n" * 30)
    py, js = _both([FILE, "--policy", "reactive", "--trace", str(trace), "--json"])
    p, j = json.loads(py.stdout), json.loads(js.stdout)
    _agree(p, j, "trace")
    assert j["minutes"] == 90 and j["offered_requests"] == 30 * 400 * 60 + 30 * 100 * 60


def test_a_replica_that_cannot_meet_the_slo_is_the_same_line_in_both(tmp_path):
    # Prompts of 40,000 tokens in the long-prompts variant: the afternoon's (1.5 x, 60,000) miss the p95 TTFT
    # even unloaded.
    long = tmp_path / "long.toml"
    long.write_text((ROOT / FILE).read_text().replace("prompt_tokens = 7500 ", "prompt_tokens = 40000 ", 1))
    py, js = _both([str(long), "--variant", "long-prompts", "--policy", "predictive"])
    assert py.returncode == js.returncode == 2 and "even unloaded" in py.stderr
    assert py.stderr.replace("gpu_math.py", "gpu_math.mjs") == js.stderr


@pytest.mark.parametrize("text, words", [("1\nfast\n", "line 2: expected one rate"), ("-1\n", "must not be negative"),
                                         ("requests_per_s\n", "no rates in the trace")])
def test_a_bad_trace_is_one_line_in_both(tmp_path, text, words):
    trace = tmp_path / "bad.csv"
    trace.write_text(text)
    for out in _both([FILE, "--policy", "reactive", "--trace", str(trace)]):
        assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1 and words in out.stderr


@pytest.mark.parametrize("value, words", [("0", "the reservation must be at least one replica, got 0"),
                                          ("many", "argument --reservation: invalid int value: 'many'")])
def test_a_bad_reservation_is_the_same_line_in_both(value, words):
    py, js = _both([FILE, "--policy", "reactive", "--reservation", value])
    assert py.returncode == js.returncode == 2 and words in py.stderr, py.stderr
    assert py.stderr.replace("gpu_math.py", "gpu_math.mjs") == js.stderr
