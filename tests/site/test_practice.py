"""The generated practice problems (docs/practice/problems.md, practice/problems.json): at least forty,
of every kind, each answer what the calculator's command line prints for the problem's inputs."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path
from typing import Any

import gpu_math
from macros.engine.practice import KINDS, problems
from macros.site import practice

FIELDS = {"id", "kind", "question", "inputs", "answer", "unit", "json_key"}
OPTIONS = {"model", "gpu", "gpus", "seq_len", "weights", "kv", "batch", "layout"}


def _cli_json(argv: list[str]) -> dict[str, Any]:
    """gpu_math.py's --json, run in-process (a subprocess per problem would be most of the test's time)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert gpu_math.main([*argv, "--json"]) == 0, argv
    return json.loads(out.getvalue())


def _expected(entry: dict[str, Any], tmp: Path) -> Any:
    """The answer, read from the calculator's output for the entry's inputs; the mapping from kind to key is
    written out here, apart from the generator's, so a generator that reads the wrong key fails."""
    inputs = entry["inputs"]
    if entry["kind"] == "planner":
        if "workload" in inputs:
            path = tmp / f"{entry['id']}.toml"
            path.write_text(practice.workload_toml(inputs["workload"]))
            argv = ["plan", str(path)]
        else:
            argv = ["plan", inputs["file"], *(["--variant", inputs["variant"]] if "variant" in inputs else [])]
        return _cli_json(argv)["gpus"]
    out = _cli_json([a for k, v in inputs.items() for a in (f"--{k.replace('_', '-')}", str(v))])
    return {"fit": out["fits"], "max-batch": out["max_batch"], "layout": out["max_batch"],
            "decode-floor": out["decode_step_s"], "per-user": None if not out["fits"] else 1 / out["planned_step_s"],
            "cost": out["cost_per_million_tokens"], "binding": out["bound"]}[entry["kind"]]


def mismatches(entries: list[dict[str, Any]], tmp: Path) -> list[str]:
    bad = []
    for e in entries:
        want = _expected(e, tmp)
        same = (math.isclose(e["answer"], want, rel_tol=1e-9) if isinstance(want, float)
                else e["answer"] == want and type(e["answer"]) is type(want))
        if not same:
            bad.append(f"{e['id']}: {e['answer']!r}, the calculator says {want!r}")
    return bad


def test_at_least_forty_problems_of_every_kind():
    ps = problems()
    assert len(ps) >= 40
    assert {p.kind for p in ps} == set(KINDS)
    assert {p.inputs["layout"] for p in ps if p.kind == "layout"} == {"tp", "dp-attention"}
    planner = [p.inputs for p in ps if p.kind == "planner"]
    assert any("file" in i for i in planner) and any("workload" in i for i in planner)
    assert {p.answer for p in ps if p.kind == "fit"} == {True, False}
    assert {p.answer for p in ps if p.kind == "binding"} == {"memory", "compute"}
    assert len({p.id for p in ps}) == len(ps)


def test_every_answer_is_what_the_calculator_prints(tmp_path: Path):
    entries = practice.exported()
    assert mismatches(entries, tmp_path) == []


def test_the_check_catches_a_wrong_answer(tmp_path: Path):
    entries = json.loads(json.dumps(practice.exported()))
    by_kind = {e["kind"]: e for e in entries}
    by_kind["decode-floor"]["answer"] *= 1.01
    by_kind["fit"]["answer"] = not by_kind["fit"]["answer"]
    by_kind["planner"]["answer"] += 1
    by_kind["binding"]["answer"] = "compute" if by_kind["binding"]["answer"] == "memory" else "memory"
    assert len(mismatches(list(by_kind.values()), tmp_path)) == 4


def test_problems_json_is_in_the_built_site(built_site: Path):
    entries = json.loads((built_site / "practice" / "problems.json").read_text())
    assert entries == json.loads(json.dumps(practice.exported()))
    assert len(entries) >= 40
    for e in entries:
        assert set(e) == FIELDS, e["id"]
        if e["kind"] != "planner":
            assert set(e["inputs"]) <= OPTIONS and {"model", "gpu", "gpus", "seq_len", "weights", "kv"} <= set(
                e["inputs"]), e["id"]


def test_the_page_shows_every_problem_with_its_worked_answer(built_site: Path):
    html = (built_site / "practice" / "problems" / "index.html").read_text()
    for p in problems():
        start = html.index(f'<h3 id="{p.id}"')
        block = html[start:html.index("</details>", start)]
        assert '<details class="answer">' in block, p.id
        assert practice.answer_text(p).replace("&", "&amp;") in block, p.id
        assert "gpu_math.py" in block, p.id
    assert "{{" not in html and "{%" not in html
