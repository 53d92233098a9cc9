"""gpu_math.py autoscale (main() in this process; the first test starts the script as a user does): --json with its
keys, the text report, a replayed trace, and every bad input one line on stderr with exit code 2."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import ROOT, gpu_math

FILE = "macros/data/designs/autoscaler.toml"
REQUIRED = ("gpu_hours", "cost", "slo_violation_minutes", "offered_requests", "served_requests", "shed_requests",
            "cold_starts", "timeline")


def run(*args: str, process: bool = False) -> subprocess.CompletedProcess:
    return gpu_math("autoscale", *args, process=process)


def test_json_has_the_totals_and_a_timeline_that_adds_up():
    r = run(FILE, "--policy", "warm-pool", "--json", process=True)  # as a user runs it
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(REQUIRED) <= set(out)
    assert len(out["timeline"]) == 1440
    assert out["served_requests"] + out["shed_requests"] == out["offered_requests"]
    assert sum(m["offered"] for m in out["timeline"]) == out["offered_requests"]
    assert sum(m["shed"] for m in out["timeline"]) == out["shed_requests"]
    assert out["slo_violation_minutes"] == sum(m["late"] for m in out["timeline"])
    assert out["cost"] == pytest.approx(out["gpu_hours"] * out["price_per_gpu_hour"])


def test_the_report_says_what_it_leaves_out():
    r = run(FILE, "--policy", "reactive", "--signal", "requests")
    assert r.returncode == 0, r.stderr
    for text in ("reactive scaling on requests", "cold start:", "GPU-hours", "SLO minutes", "Leaves out:"):
        assert text in r.stdout
    assert r.stderr == ""


def test_a_replayed_trace_sets_the_day(tmp_path):
    # 60 minutes at 10 requests/s: 600 requests a minute, 36,000 in all.
    trace = tmp_path / "rates.txt"
    trace.write_text("requests_per_s\n" + "10\n" * 60)
    out = json.loads(run(FILE, "--policy", "predictive", "--trace", str(trace), "--json").stdout)
    assert out["minutes"] == 60 and out["offered_requests"] == 36_000
    assert out["served_requests"] + out["shed_requests"] == 36_000


def _workload(tmp_path, name: str, *edits: str) -> str:
    """A copy of the design file with each (old, new) pair of `edits` replaced once."""
    text = (ROOT / FILE).read_text()
    for old, new in zip(edits[::2], edits[1::2]):
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("args, words", [
    ((FILE, "--policy", "eager"), "argument --policy: invalid choice: 'eager'"),
    ((FILE, "--policy", "reactive", "--signal", "vibes"), "argument --signal: invalid choice: 'vibes'"),
    ((FILE,), "the following arguments are required: --policy"),
    ((FILE, "--policy", "reactive", "--reservation", "0"), "the reservation must be at least one replica, got 0"),
    ((FILE, "--policy", "reactive", "--reservation", "many"), "argument --reservation: invalid int value: 'many'"),
    ((FILE, "--policy", "reactive", "--variant", "nope"), "no [variants.nope]"),
    (("nowhere.toml", "--policy", "reactive"), "nowhere.toml"),
    (("TRACE", "--policy", "reactive", "--trace", "BAD"), "line 2: expected one rate"),
    (("TRACE", "--policy", "reactive", "--trace", "NEGATIVE"), "line 1: the rate must not be negative"),
    (("NEGATIVE_PEAK", "--policy", "reactive"), "peak_requests_per_s must be a positive number"),
    (("UNKNOWN_KEY", "--policy", "reactive", "--json"), "unknown field peak_rps"),
    # Prompts of 30,000 tokens, half as long again in the afternoon: no load meets a 1 s TTFT.
    (("LONG_PROMPTS", "--policy", "reactive", "--variant", "long-prompts"), "the afternoon's 45,000-token prompts"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    (tmp_path / "bad.txt").write_text("1\nfast\n")
    (tmp_path / "neg.txt").write_text("-3\n")
    swap = {"BAD": str(tmp_path / "bad.txt"), "NEGATIVE": str(tmp_path / "neg.txt"), "TRACE": FILE,
            "NEGATIVE_PEAK": _workload(tmp_path, "negative.toml", "peak_requests_per_s = 600",
                                       "peak_requests_per_s = -600"),
            "UNKNOWN_KEY": _workload(tmp_path, "unknown.toml", "peak_requests_per_s = 600", "peak_rps = 600"),
            # at the engine's own token budget: in 512-token steps a 45,000-token prompt misses 1 s unloaded
            "LONG_PROMPTS": _workload(tmp_path, "long.toml", "prompt_tokens = 7500 ", "prompt_tokens = 30000 ",
                                      "token_budget = 512 ", "# token_budget = 512 ")}
    r = run(*[swap.get(a, a) for a in args])
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
