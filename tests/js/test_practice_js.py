"""The practice widgets' pure JavaScript (docs/assets/javascripts/practice/, run as the generated bundle
the browser loads) against the Python: the hire-bar verdict for every one of the 4^7 combinations of
levels; when the follow-ups appear, one at a time; the seeded draw of follow-ups from a round's pool; how
the reader's numbers are read; and the check of a number against the page's band."""

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

# The script gets the bundle and a JSON input, evaluates `input.expr` with `p` the bundle's exports and `input`
# the rest of the input, and prints the result as JSON.
RUN = """
globalThis.window = globalThis;
require(process.argv[2]);
const input = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
const p = window.IfgPractice;
console.log(JSON.stringify(eval(input.expr)));
"""


@pytest.fixture(scope="module")
def chat() -> dict:
    """Chat's round, built when a test asks for it: at import, every worker would pay for it while collecting."""
    return mock_round.round_data("consumer-chat")


def run(tmp_path: Path, expr: str, **payload) -> object:
    bundle, data, script = tmp_path / "bundle.js", tmp_path / "input.json", tmp_path / "run.js"
    bundle.write_text(practice_assets.bundle())
    data.write_text(json.dumps({"expr": expr, **payload}))
    script.write_text(RUN)
    out = subprocess.run([NODE, str(script), str(bundle), str(data)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_browser_gives_every_score_the_pythons_verdict(tmp_path: Path, chat):
    r = rubric()
    scores = [list(s) for s in itertools.product(range(4), repeat=7)]
    got = run(tmp_path, "input.scores.map((s) => (p.verdictFor(input.round.rubric, s) || { key: null }).key)",
              round=chat, scores=scores)
    assert got == [r.verdict(tuple(s)).key for s in scores]


def test_follow_ups_appear_one_at_a_time(tmp_path: Path, chat):
    # consumer chat: six follow-ups drawn, due at minutes 5, 10, 18, 25, 33, 40
    reveals = [[0, 0], [300, 0], [600, 0], [600, 1], [2700, 1], [2700, 6]]
    got = run(tmp_path, "input.reveals.map(([t, c]) => p.followUpsShown(p.drawFollowUps(input.round, 7), t, c))",
              round=chat, reveals=reveals)
    assert got == [
        {"shown": 0, "waiting": False},  # minute 0: nothing yet
        {"shown": 1, "waiting": False},  # minute 5: the first
        {"shown": 1, "waiting": True},  # minute 10: the second is due but the first is not answered
        {"shown": 2, "waiting": False},  # answered: the second appears
        {"shown": 2, "waiting": True},  # the end of the round, one answered: still only the next one
        {"shown": 6, "waiting": False},  # all answered: all six
    ]


DRAWS = "input.seeds.map((s) => p.drawFollowUps(input.round, s).map((f) => [f.id, f.kind, f.due_s]))"


def test_the_draw_is_the_same_for_a_seed_and_differs_across_seeds(tmp_path: Path, chat):
    seeds = list(range(1, 201))
    first, again = (run(tmp_path, DRAWS, round=chat, seeds=seeds) for _ in range(2))
    assert first == again  # a seed always draws the same follow-ups, in the same order
    ids = [tuple(f[0] for f in draw) for draw in first]
    assert len(set(ids)) >= 195  # 200 seeds: (almost) every round asks something else
    pool = {f["id"]: f for f in chat["pool"]}
    for draw in first:
        assert [f[2] for f in draw] == chat["due_s"]  # due at the round's checkpoints
        assert len({f[0] for f in draw}) == 6 and all(f[0] in pool for f in draw)
        kinds = [f[1] for f in draw]
        assert kinds.count("interruption") == 1 and kinds[0] == kinds[-1] == "question"  # the change comes mid-round
    # over many rounds every entry of the pool is asked, and the interruption takes every middle place
    assert {f[0] for draw in first for f in draw} == set(pool)
    assert {[f[1] for f in draw].index("interruption") for draw in first} == {1, 2, 3, 4}


def test_a_stored_draw_is_kept_and_a_stale_one_is_drawn_again(tmp_path: Path, chat):
    expr = """[p.followUpsOf(input.round, 5, input.kept).map((f) => f.id),
               p.followUpsOf(input.round, 5, input.stale).map((f) => f.id),
               p.drawFollowUps(input.round, 5).map((f) => f.id)]"""
    kept = [f["id"] for f in chat["pool"][:6]]
    got = run(tmp_path, expr, round=chat, kept=kept, stale=["gone", *kept[1:]])
    assert got[0] == kept  # the ids the round stored, in their order
    assert got[1] == got[2]  # an id the pool no longer has: the seed's draw


READABLE = [
    ("1,608", "count", 1608), ("1608", "count", 1608), ("1.6k", "count", 1600), ("~1,600 GPUs", "count", 1600),
    ("about 2.4k GPUs", "count", 2400), ("1 608", "count", 1608), ("1.6e3", "count", 1600),
    ("786 MB", "bytes", 786e6), ("0.79GB", "bytes", 0.79e9), ("34 GB", "bytes", 34e9), ("320 KiB", "bytes", 327_680),
    ("327,680 B", "bytes", 327_680), ("786M", "bytes", 786e6), ("786 megabytes", "bytes", 786e6),
    ("0.4 s", "seconds", 0.4), ("400 ms", "seconds", 0.4), ("400ms", "seconds", 0.4), ("0,4 s", "seconds", 0.4),
    ("90 ms at p95", "seconds", 0.09), ("2 minutes", "seconds", 120), ("1.6e-3 s", "seconds", 0.0016),
    ("$96,500", "usd", 96_500), ("$96.5k a day", "usd", 96_500), ("96500 USD", "usd", 96_500),
    ("$1.2M/day", "usd", 1.2e6),
]
UNREADABLE = [
    ("", "count", "Nothing entered."),
    ("lots", "count", "“lots” does not start with a number. Write it as 1,608 or 1.6k."),
    ("786", "bytes", "Give its unit. Write it as 786 MB or 0.79 GB."),
    ("0.4", "seconds", "Give its unit. Write it as 0.4 s or 400 ms."),
    ("786 parsecs", "bytes", "“parsecs” is not a unit of memory. Write it as 786 MB or 0.79 GB."),
    ("4 furlongs", "seconds", "“furlongs” is not a unit of time. Write it as 0.4 s or 400 ms."),
    ("1.6 GB", "count", "“GB” is a unit; a count has none. Write it as 1,608 or 1.6k."),
    ("300-500 ms", "seconds", "Give one number, not a range (its middle, if you like). Write it as 0.4 s or 400 ms."),
    ("-5", "count", "A negative number cannot be right here. Write it as 1,608 or 1.6k."),
    ("12,3456", "count", "“,3456” after the number cannot be read. Write it as 1,608 or 1.6k."),
    ("€90k", "usd", "“€90k” does not start with a number. Write it as $96,500 or $96.5k."),
]


@pytest.fixture(scope="module")
def parsed(tmp_path_factory) -> dict[tuple[str, str], dict]:
    """What parseNumber makes of every text the two tests below give it, in one Node process: a process each
    took most of their time."""
    cases = [[text, unit] for text, unit, _ in (*READABLE, *UNREADABLE)]
    got = run(tmp_path_factory.mktemp("parsed"), "input.cases.map(([t, u]) => p.parseNumber(t, u))", cases=cases)
    return {(text, unit): g for (text, unit), g in zip(cases, got, strict=True)}


@pytest.mark.parametrize(("text", "unit", "value"), READABLE)
def test_numbers_are_read_forgivingly(parsed, text: str, unit: str, value: float):
    got = parsed[text, unit]
    assert got["ok"] and got["value"] == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(("text", "unit", "error"), UNREADABLE)
def test_what_cannot_be_read_says_how_to_write_it(parsed, text: str, unit: str, error: str):
    assert parsed[text, unit] == {"ok": False, "error": error}


def test_a_number_is_checked_against_its_band(tmp_path: Path, chat):
    kv = next(n for n in chat["numbers"] if n["key"] == "kv_per_seq")  # 786 MB, accepted within 10 %
    values = [kv["value"], kv["low"], kv["high"], kv["low"] * 0.999, kv["high"] * 1.001, 34e9]
    got = run(tmp_path, "input.values.map((v) => p.checkNumber(input.n, v))", n=kv, values=values)
    assert [g["within"] for g in got] == [True, True, True, False, False, False]
    assert [g["side"] for g in got[3:]] == ["below", "above", "above"]
    assert got[5]["ratio"] == pytest.approx(34e9 / 786_432_000)


def test_the_bundle_holds_every_module():
    assert set(practice_assets.MODULES) == {p.name for p in practice_assets.SOURCE.glob("*.js")}
