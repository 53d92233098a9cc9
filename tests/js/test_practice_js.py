"""The practice widgets' pure JavaScript (docs/assets/javascripts/practice/, run as the generated bundle
the browser loads) against the Python: the hire-bar verdict for every one of the 4^7 combinations of
levels, and when the follow-ups appear, one at a time."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from macros.engine.problems.rubric import rubric
from macros.site.build import practice_assets
from macros.site.pages import mock_round

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")

RUN = """
globalThis.window = globalThis;
require(process.argv[2]);
const input = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
const p = window.IfgPractice;
const verdicts = input.scores.map((s) => (p.verdictFor(input.round.rubric, s) || { key: null }).key);
const shown = input.reveals.map(([t, committed]) => p.followUpsShown(input.round, t, committed));
console.log(JSON.stringify({ verdicts, shown }));
"""


def run(tmp_path: Path, payload: dict) -> dict:
    bundle, data, script = tmp_path / "bundle.js", tmp_path / "input.json", tmp_path / "run.js"
    bundle.write_text(practice_assets.bundle())
    data.write_text(json.dumps(payload))
    script.write_text(RUN)
    out = subprocess.run([NODE, str(script), str(bundle), str(data)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_browser_gives_every_score_the_pythons_verdict(tmp_path: Path):
    r = rubric()
    scores = [list(s) for s in itertools.product(range(4), repeat=7)]
    got = run(tmp_path, {"round": mock_round.round_data("consumer-chat"), "scores": scores, "reveals": []})
    expected = [r.verdict(tuple(s)).key for s in scores]
    assert got["verdicts"] == expected


def test_follow_ups_appear_one_at_a_time(tmp_path: Path):
    # consumer chat: follow-ups due at minutes 5, 10, 18, 25, 33, 40
    reveals = [[0, 0], [300, 0], [600, 0], [600, 1], [2700, 1], [2700, 6]]
    got = run(tmp_path, {"round": mock_round.round_data("consumer-chat"), "scores": [], "reveals": reveals})
    assert got["shown"] == [
        {"shown": 0, "waiting": False},  # minute 0: nothing yet
        {"shown": 1, "waiting": False},  # minute 5: the first
        {"shown": 1, "waiting": True},  # minute 10: the second is due but the first is not answered
        {"shown": 2, "waiting": False},  # answered: the second appears
        {"shown": 2, "waiting": True},  # the end of the round, one answered: still only the next one
        {"shown": 6, "waiting": False},  # all answered: all six
    ]


def test_the_bundle_holds_every_module():
    assert set(practice_assets.MODULES) == {p.name for p in practice_assets.SOURCE.glob("*.js")}
