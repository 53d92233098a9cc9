"""The shared table of bad inputs (tests/vectors/bad_inputs.json, written by tools/bad_inputs.py), read by
the Python side: each case exits 2 with one line on stderr and nothing on stdout, and that line is the
case's message. tests/js/test_bad_inputs_node.py reads the same file with Node's test runner."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

import gpu_math
from macros.engine import rules
from macros.engine.lookup import InputError
from macros.engine.model import measurements
from macros.engine.model.scenario import scenario
from macros.engine.specs import DATA_DIR, Gpu, Model, SpecError, load_catalog

VECTORS = ROOT / "tests" / "vectors" / "bad_inputs.json"
CASES = json.loads(VECTORS.read_text())["cases"]
FIXTURES = ROOT / "tests" / "engine" / "fixtures" / "configs"
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def decode(value: Any) -> Any:
    """A vector's value, a {"$float": ...} tag read as the float it stands for."""
    if isinstance(value, dict):
        return _FLOATS[value["$float"]] if "$float" in value else {k: decode(v) for k, v in value.items()}
    return value


def make_file(case: dict[str, Any], folder: Path) -> Path:
    """The file a plan or config case reads: written from its text, bytes or edit; or a directory; or nothing."""
    path = folder / ("w.toml" if case["kind"] == "plan" else "config.json")
    if case.get("directory"):
        path.mkdir()
    elif "hex" in case:
        path.write_bytes(bytes.fromhex(case["hex"]))
    elif "toml" in case or "text" in case:
        path.write_text(case.get("toml", case.get("text")))
    elif "base" in case:  # a fixture with fields set to JSON text (NaN, Infinity, 1e400 are JSON to Python)
        config = json.loads((FIXTURES / f"{case['base']}.json").read_text())
        config.update({name: f"@@{name}@@" for name in case["set"]})
        text = json.dumps(config)
        for name, value in case["set"].items():
            text = text.replace(f'"@@{name}@@"', value)
        path.write_text(text)
    return path


def argv(case: dict[str, Any], path: Path | None) -> list[str]:
    if case["kind"] == "plan":
        return ["plan", str(path), *case.get("args", [])]
    if case["kind"] == "config":
        return ["--config", str(path), "--gpu", "h100"]
    return case["args"]


def check_message(case: dict[str, Any], text: str, path: Path | None) -> None:
    if "message" in case:
        assert text == (f"{path}: {case['message']}" if case.get("names_file") else case["message"])
    else:
        for part in case["parts"]:
            assert part in text, f"{part!r} missing from {text!r}"


def check_line(case: dict[str, Any], code: int, out: str, err: str, path: Path | None) -> None:
    assert code == case["exit"] == 2, (code, err)
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    prog, sep, text = err[:-1].partition(": error: ")
    assert sep and prog in ("gpu_math.py", "gpu_math.py plan"), err
    check_message(case, text, path)


def _edit_data(case: dict[str, Any], folder: Path) -> Path:
    # the inputs, not the simulations memo beside them: a refused input never simulates
    data = shutil.copytree(DATA_DIR, folder / "data", ignore=shutil.ignore_patterns("simulated"))
    file = data / case["file"]
    old, new = case["replace"]
    assert file.read_text().count(old) >= 1, f"{old!r} is not in {case['file']}: the vector needs updating"
    file.write_text(file.read_text().replace(old, new, 1))
    return data


def _custom(value: Any, cls: type) -> Any:
    return cls(**value) if isinstance(value, dict) else value


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_a_bad_input_is_refused_in_one_line(case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture):
    kind = case["kind"]
    if kind in ("cli", "plan", "config"):
        path = make_file(case, tmp_path) if kind != "cli" else None
        try:
            code = gpu_math.main(argv(case, path))
        except SystemExit as exc:  # argparse's errors
            code = exc.code
        out, err = capsys.readouterr()
        check_line(case, code, out, err, path)
    elif kind == "data":  # the loader raises SpecError, which every command line prints as one line, exit 2
        data = _edit_data(case, tmp_path)
        with pytest.raises(SpecError) as exc:
            if case["file"] == "measurements.toml":
                measurements.load_measurements(data / case["file"])
            else:
                load_catalog(data)
        check_message(case, str(exc.value), data / case["file"])
    elif kind == "scenario":  # scenario() raises InputError: exit 2 on every command line
        given = decode(case["input"])
        given["model"], given["gpu"] = _custom(given["model"], Model), _custom(given["gpu"], Gpu)
        with pytest.raises(InputError) as exc:
            scenario(**given)
        check_message(case, str(exc.value), None)
    else:  # a workload from the planner's form: its flat fields against the rules, as planner.js checks them
        assert kind == "workload"
        with pytest.raises(rules.RuleError) as exc:
            rules.check_across("workload", rules.check_fields("workload", decode(case["input"]), known=False))
        check_message(case, str(exc.value), None)


def test_the_table_is_large_and_covers_every_kind_of_input():
    kinds = {c["kind"] for c in CASES}
    assert len(CASES) >= 200 and kinds == {"cli", "plan", "config", "data", "scenario", "workload"}
    # every numeric flag, workload field and config field the issue names is crossed with the seven bad values
    for label in ("negative", "nan", "inf", "huge", "text", "empty"):
        assert any(c["name"] == f"cli --reserve {label}" for c in CASES)
        assert any(c["name"] == f"workload prompt_tokens {label}" for c in CASES)


@pytest.mark.parametrize("case", [c for c in CASES if c["name"].startswith("issue:") and c["kind"] != "data"
                                  and c["kind"] != "scenario"], ids=lambda c: c["name"])
def test_the_issue_s_cases_fail_in_one_line_as_a_process(case: dict[str, Any], tmp_path: Path):
    path = make_file(case, tmp_path) if case["kind"] != "cli" else None
    r = subprocess.run([sys.executable, str(ROOT / "gpu_math.py"), *argv(case, path)], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    check_line(case, r.returncode, r.stdout, r.stderr, path)


def test_a_bad_data_file_stops_the_command_line_in_one_line(tmp_path: Path):
    # a copy of the calculator with 3.35e400 (beyond the largest float, so inf) typed for the H100's bandwidth
    shutil.copy(ROOT / "gpu_math.py", tmp_path)
    shutil.copytree(ROOT / "macros", tmp_path / "macros", ignore=shutil.ignore_patterns("__pycache__", "simulated"))
    gpus = tmp_path / "macros" / "data" / "gpus.toml"
    gpus.write_text(gpus.read_text().replace("bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = 3.35e400", 1))
    r = subprocess.run([sys.executable, "gpu_math.py", "--model", "llama-70b", "--gpu", "h100"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr == ("gpu_math.py: error: macros/data/gpus.toml: [h100] bandwidth_bytes_per_s must be a finite "
                        "number, got inf\n")


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_json_output_has_null_where_a_figure_does_not_exist(capsys: pytest.CaptureFixture):
    # $1e308 per GPU-hour is finite, but the cost per million tokens, 1e308 x 2 GPUs / 3600 / tokens/s x 1e6,
    # is beyond the largest float: it does not exist as a number, so it is null, not Infinity
    assert gpu_math.main(["--model", "llama-70b", "--gpu", "h100", "--price", "1e308", "--json"]) == 0
    out = _strict_json(capsys.readouterr().out)
    assert out["price_per_gpu_hour"] == 1e308 and out["cost_per_million_tokens"] is None
    # and a replica that holds nothing has no decode figures: null
    assert gpu_math.main(["--model", "llama-70b", "--gpu", "h100", "--gpus", "1", "--json"]) == 0
    out = _strict_json(capsys.readouterr().out)
    assert out["fits"] is False and out["decode_step_s"] is None


def test_shown_numbers_read_the_same_in_javascript():
    # Number.prototype.toString's forms between 1e-4 and 1e6, toExponential's outside (as rules.js shows them)
    assert [rules.shown(v) for v in (2000.0, 0.05, 1e-4, 3.35e12, 1350e12, 70_553_706_496, -140e9, 8e-5)] == \
        ["2000", "0.05", "0.0001", "3.35e12", "1.35e15", "7.0553706496e10", "-1.4e11", "8e-5"]
