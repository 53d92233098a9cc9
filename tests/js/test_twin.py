"""The JavaScript engine (docs/assets/javascripts/calculator/) against the Python engine: the shared vectors
(tests/vectors/twin.json: 500 random scenarios over every preset model and GPU, random custom geometries and
GPUs, both layouts, every format; every design workload and its variants) are what the Python computes now,
and Node holds the JavaScript to them (tests/js/twin.test.mjs); the whole plan (the simulated answer, the shape
search, disaggregated pools, speculative decoding) on every design workload and variant; the Node command line
against gpu_math.py, key for key, on presets, every fixture config.json and with no Python on the PATH."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, gpu_math, made_once

from macros.engine.export import catalog_json, workload_json
from macros.engine.fleet import answer as answer_module
from macros.engine.fleet import planner_simulated
from macros.engine.fleet.answer import answer
from macros.engine.fleet.fleet_options import JSON_KEYS as FLEET_KEYS
from macros.engine.fleet.planner import JSON_KEYS as PLAN_KEYS
from macros.engine.fleet.planner import plan
from macros.engine.fleet.planner_simulated import JSON_KEYS as SIMULATED_KEYS
from macros.engine.fleet.workload_file import load_workload_file
from macros.engine.serving.cache import cached_run, plain_dict

sys.path.insert(0, str(ROOT / "tools"))
import twin_vectors  # noqa: E402

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")
VECTORS = ROOT / "tests" / "vectors" / "twin.json"
DESIGNS = sorted(p for p in (ROOT / "macros" / "data" / "designs").glob("*.toml") if p.name != "defects.toml")


def test_the_vectors_exercise_the_engine_not_only_its_errors():
    vectors = json.loads(VECTORS.read_text())
    scenarios = [c["output"] for c in vectors["scenarios"]]
    fits = vectors["scenario_keys"].index("fits")
    fitted = sum(1 for out in scenarios if isinstance(out, list) and out[fits])
    errors = sum(1 for out in scenarios if isinstance(out, dict))
    assert len(scenarios) == twin_vectors.CASES
    assert fitted > twin_vectors.CASES // 2 and 0 < errors < twin_vectors.CASES // 4, (fitted, errors)
    keys = vectors["plan_keys"]
    plans = [dict(zip(keys, c["output"])) for c in vectors["plans"] if isinstance(c["output"], list)]
    widened = sum(p["widened_because"] is not None for p in plans)
    infeasible = sum(not p["feasible"] for p in plans)
    assert widened >= 3 and infeasible >= 2, (widened, infeasible)  # the workloads reach both answers


def _run_js(cases: list[dict], runs: list[tuple[dict, dict]] | None = None) -> list[dict]:
    """Node's plan --json for each case; with `runs` ([request, statistics] pairs), read from them, not simulated."""
    given = {"catalog": catalog_json(), "cases": cases} | ({} if runs is None else {"runs": runs})
    out = subprocess.run([NODE, str(ROOT / "tests" / "js" / "run_cases.mjs")], input=json.dumps(given),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def _agree(py: dict, js: dict, keys: tuple[str, ...], where: str) -> None:
    for key in keys:
        a, b = py[key], js[key]
        if isinstance(a, dict):  # percentile_targets, answer_shapes
            assert isinstance(b, dict) and list(a) == list(b), f"{where}: {key}: Python {a!r}, JavaScript {b!r}"
            _agree(a, b, tuple(a), f"{where}: {key}")
        elif isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
            assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300), f"{where}: {key}: Python {a!r}, JavaScript {b!r}"
        else:
            assert a == b, f"{where}: {key}: Python {a!r}, JavaScript {b!r}"


def _cli(program: list[str], args: list[str]) -> dict:
    out = subprocess.run(program + args + ["--json"], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


def _python(args: list[str]) -> dict:
    """gpu_math.py's --json for `args`, its main() run in this process (conftest.gpu_math)."""
    out = gpu_math(*args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


CLI_ARGS = [
    ["--model", "llama-70b", "--gpu", "h100", "--gpus", "4"],
    ["--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--layout", "dp-attention", "--seq-len", "8192"],
    ["--model", "gpt-oss-120b", "--gpu", "b200", "--batch", "32", "--kv", "fp8", "--price", "4", "--efficiency", "0.5"],
    ["plan", "macros/data/designs/code-completion.toml"],
    ["plan", "macros/data/designs/code-completion.toml", "--variant", "no-affinity"],
]
CONFIGS = sorted((ROOT / "tests" / "engine" / "fixtures" / "configs").glob("*.json"))


def _config_args(config) -> list[str]:
    return ["--config", str(config.relative_to(ROOT)), "--gpu", "h200", "--gpus", "8"]


@pytest.fixture(scope="module")
def node_cli(tmp_path_factory) -> dict[tuple[str, ...], dict]:
    """Node's --json for every command line below, all in one process through the command line's own main()
    (tests/js/run_main.mjs): a Node start per case was most of these tests' time. Made once for every worker
    (this file's tests are spread over them). The command line as a user runs it, a process of its own, is held
    to the same output below (and without Python on the PATH)."""
    cases = [[*args, "--json"] for args in (*CLI_ARGS, *map(_config_args, CONFIGS))]

    def make(folder):
        out = subprocess.run([NODE, "tests/js/run_main.mjs"], input=json.dumps(cases), cwd=ROOT, capture_output=True,
                             text=True, env={"PATH": "/usr/bin:/bin"}, timeout=300, check=True)
        (folder / "results.json").write_text(out.stdout)

    results = json.loads((made_once(tmp_path_factory, "node-cli", make) / "results.json").read_text())
    assert all(r["code"] == 0 for r in results), [r["stderr"] for r in results if r["code"]]
    return {tuple(c[:-1]): json.loads(r["stdout"]) for c, r in zip(cases, results, strict=True)}


def _plan_cases() -> dict[str, tuple[list, dict[str, int]]]:
    """Every design workload and variant, and copies of two designs with disaggregated pools and with speculative
    decoding, which no design file asks for: in two parts, each run by whichever worker takes it, with the least
    each part must reach (the two parts' together: both pools sized, three speculative steps, twenty simulated
    counts and twenty runners-up)."""
    workloads = []
    for path in DESIGNS:
        base, variants = load_workload_file(path)
        workloads += [base, *variants.values()]
    moe = next(w for w in workloads if w.model == "deepseek-v3")
    dense = next(w for w in workloads if w.model == "llama-3.1-70b")
    pools = [dataclasses.replace(w, mode="disaggregated", name=f"{w.name} (disaggregated)") for w in (dense, moe)]
    drafts = [dataclasses.replace(w, draft_tokens=3, acceptance=a, name=f"{w.name} (speculative {a})")
              for w, a in ((dense, 0.7), (moe, 0.6), (dense, 1.0))]
    return {
        "half the designs, disaggregated": (workloads[0::2] + pools,
                                            {"disaggregated": 1, "speculative": 0, "simulated": 10, "runner_up": 10}),
        "the other half, speculative": (workloads[1::2] + drafts,
                                        {"disaggregated": 0, "speculative": 3, "simulated": 10, "runner_up": 10}),
    }


def _python_plans(workloads: list, monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict], list[tuple[dict, dict]]]:
    """Python's plan --json for each workload, and every run its searches read, as [request, statistics]."""
    runs = []

    def recorded(q):
        stats = cached_run(q)
        runs.append((plain_dict(q), stats))  # what json reads of asdict(q), without its deep copy
        return stats

    monkeypatch.setattr(planner_simulated, "cached_run", recorded)
    return [answer(plan(w)).json for w in workloads], runs


@pytest.mark.parametrize("part", list(_plan_cases()))
def test_the_javascript_plan_makes_python_s_runs_and_decides_as_python_does(part: str, monkeypatch):
    """Every key plan --json prints, on every design workload and variant, with each run's statistics read from
    the run Python's plan made: the searches (which counts, shapes, seeds and lengths they simulate, and what they
    conclude), the shape search, the pools and speculative decoding. That the JavaScript simulator gives Python's
    statistics for each of those runs is the slow test below (and, on fewer runs, tests/vectors/serving.json)."""
    workloads, least = _plan_cases()[part]
    plans, runs = _python_plans(workloads, monkeypatch)
    results = _run_js([{"plan_all": workload_json(w)} for w in workloads], runs)
    _check_plans(workloads, plans, results, least)


@pytest.mark.slow
@pytest.mark.parametrize("part", list(_plan_cases()))
def test_the_whole_javascript_plan_agrees_on_every_design_workload_and_variant(part: str):
    """Every key plan --json prints, with every run simulated by the JavaScript simulator (about 1,400 runs a
    part): the simulated answer (deterministic for its seeds), the shape search, and, on copies of some designs,
    disaggregated pools and speculative decoding."""
    workloads, least = _plan_cases()[part]
    results = _run_js([{"plan_all": workload_json(w)} for w in workloads])
    _check_plans(workloads, [answer(plan(w)).json for w in workloads], results, least)


def _check_plans(workloads: list, plans: list[dict], results: list[dict], least: dict[str, int]) -> None:
    seen = dict.fromkeys(least, 0)
    for w, py, js in zip(workloads, plans, results, strict=True):
        assert list(js) == list(py), w.name
        _agree(py, js, tuple(py), w.name)
        seen["disaggregated"] += py["disaggregated_gpus"] is not None
        seen["speculative"] += py["speculative_speedup"] is not None
        seen["simulated"] += py["answer_from"] == "simulation" and py["feasible"]
        seen["runner_up"] += py["shape_search_runner_up"] is not None
    # The cases reach every part of the plan: both pools sized, speculative steps, simulated counts, runners-up.
    assert all(seen[k] >= least[k] for k in least), (seen, least)


def test_the_two_parts_cover_every_design_workload_once():
    every = []
    for path in DESIGNS:
        base, variants = load_workload_file(path)
        every += [base, *variants.values()]
    parts = [w for workloads, _ in _plan_cases().values() for w in workloads]
    designs = [w for w in parts if w in every]  # the copies with pools or drafts are no design's own workload
    assert sorted(map(repr, designs)) == sorted(map(repr, every)) and len(parts) == len(every) + 5


@pytest.mark.parametrize("args", [
    *CLI_ARGS,
    # The largest design's plans: seconds each in Node, which simulates every run its search makes.
    pytest.param(["plan", "macros/data/designs/consumer-chat.toml"], marks=pytest.mark.slow),
    pytest.param(["plan", "macros/data/designs/consumer-chat.toml", "--variant", "fp8"], marks=pytest.mark.slow),
])
def test_the_node_command_line_prints_what_gpu_math_prints(args, request):
    py = _python(args)
    js = (_cli([NODE, "tools/gpu_math.mjs"], args) if args not in CLI_ARGS
          else request.getfixturevalue("node_cli")[tuple(args)])
    if args[0] == "plan":  # the answer's keys, the napkin's, the simulation's and the fleet options', in that order
        assert list(py) == list(answer_module.keys(PLAN_KEYS, SIMULATED_KEYS, FLEET_KEYS)) == list(js)
    assert set(js) == set(py)
    _agree(py, js, tuple(py), " ".join(args))


def test_the_node_command_line_fails_in_one_line():
    out = subprocess.run([NODE, "tools/gpu_math.mjs", "--model", "llama-7000b", "--gpu", "h100"], cwd=ROOT,
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "unknown model 'llama-7000b'" in out.stderr


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_node_reads_every_config_json_as_gpu_math_does(config, node_cli):
    # hf_config.js against hf_config.py: the model each fixture describes (its parameter count from the
    # geometry, tensor by tensor), and so every figure of the scenario on it.
    args = _config_args(config)
    py, js = _python(args), node_cli[tuple(args)]
    assert set(js) == set(py)
    _agree(py, js, tuple(py), config.name)


def test_the_node_command_line_runs_without_python(tmp_path, node_cli):
    # A PATH that holds Node and nothing else: the catalog, a workload file and a config.json are read in Node.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "node").symlink_to(NODE)
    env = {"PATH": str(tmp_path / "bin")}
    for args in (["--model", "llama-70b", "--gpu", "h100", "--gpus", "4"],
                 ["plan", "macros/data/designs/code-completion.toml"],
                 ["--config", "tests/engine/fixtures/configs/deepseek-v3.json", "--gpu", "h200"]):
        out = subprocess.run(["node", "tools/gpu_math.mjs", *args, "--json"], cwd=ROOT, capture_output=True, text=True,
                             env=env, timeout=60)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["gpu"] in ("h100", "h200")
        if args[0] != "--config":  # what a user's process prints is what main() printed in the batch
            assert json.loads(out.stdout) == node_cli[tuple(args)]
