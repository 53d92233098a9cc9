"""`node tools/gpu_math.mjs simulate` against `gpu_math.py simulate` (ARCHITECTURE.md): on random configurations
(models dense, MoE, MLA and windowed; GPUs of every family; every engine; closed loop, Poisson, gamma and trace
arrivals; fixed and range-ratio lengths; tp and dp-attention with EP) the two print the same --json keys with
values equal to 1e-9 relative, or refuse with the same line; and bad flags give both exit code 2 and one line."""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT

import gpu_math

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")

MODELS = ("llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "gemma-2-27b", "mixtral-8x7b", "qwen3-235b-a22b",
          "deepseek-v3", "gpt-oss-120b")
GPUS = ("h100", "h100-pcie", "h200", "b200", "b300", "gb200", "mi300x", "mi325x", "mi355x")
RUN = ["--model", "gpt-oss-120b", "--gpu", "b200", "--gpus", "2", "--input-tokens", "1024", "--output-tokens", "256"]


def random_argv(rng: random.Random, trace: Path) -> list[str]:
    gpus = rng.choice([1, 2, 4, 8])
    layout = rng.choice(["tp", "tp", "dp-attention"])
    argv = ["--model", rng.choice(MODELS), "--gpu", rng.choice(GPUS), "--gpus", str(gpus), "--layout", layout,
            "--engine", rng.choice(["vllm", "sglang", "trt", "atom"]), "--input-tokens", str(rng.randint(64, 4096)),
            "--output-tokens", str(rng.randint(1, 400)), "--requests", str(rng.randint(20, 60)),
            "--seed", str(rng.choice([0, rng.randrange(2 ** 64)])), "--json"]
    if layout == "dp-attention":
        argv += ["--ep", str(rng.choice([1, gpus]))]
    if rng.random() < 0.25:
        argv += ["--weights", rng.choice(["fp8", "bf16", "nvfp4", "mxfp4"])]
    if rng.random() < 0.3:
        argv += ["--kv", rng.choice(["bf16", "fp8"])]
    if rng.random() < 0.3:
        argv += ["--range-ratio", "0.8"]
    if rng.random() < 0.4:
        argv += ["--prefix-hit-rate", rng.choice(["0.29", "0.5", "0.9"])]
    load = rng.choice(["concurrency", "rate", "rate", "trace"])
    if load == "concurrency":
        argv += ["--concurrency", str(rng.randint(1, 48))]
    elif load == "rate":
        argv += ["--rate", f"{rng.uniform(0.5, 30):.3f}"] + rng.choice([[], ["--burstiness", "0.5"],
                                                                          ["--burstiness", "2.5"]])
    else:
        argv += ["--trace", str(trace)]
    if rng.random() < 0.5:  # the engine as a benchmark launched it; an offline run of every request at once
        if load != "trace":
            argv = argv[:argv.index("--" + load)] + ["--offline", str(rng.randint(10, 60))]
        argv += ["--max-batch", str(rng.randint(1, 64)), "--token-budget", str(rng.choice([512, 2048, 8192])),
                 "--chunked-prefill", rng.choice(["on", "off"]), "--kv-memory-fraction", "0.8",
                 "--graph-max-batch", str(rng.randint(1, 64))]
    return argv


def python(argv: list[str]) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = gpu_math.main(["simulate", *argv])
        except SystemExit as exc:  # argparse's errors
            code = exc.code
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def node(argvs: list[list[str]]) -> list[dict]:
    r = subprocess.run([NODE, str(ROOT / "tests" / "js" / "run_simulate.mjs")], input=json.dumps(argvs), cwd=ROOT,
                       capture_output=True, text=True, timeout=600, check=True,
                       env={"PATH": "/usr/bin:/bin"})
    return json.loads(r.stdout)


def agree(py: object, js: object, where: str) -> float:
    """The worst relative difference of two --json values, after checking they agree to 1e-9."""
    if isinstance(py, dict):
        assert isinstance(js, dict) and list(js) == list(py), f"{where}: keys {list(py)} and {js}"
        return max((agree(py[k], js[k], f"{where}.{k}") for k in py), default=0.0)
    if isinstance(py, float) and not isinstance(js, bool) and isinstance(js, (int, float)):
        assert math.isclose(py, js, rel_tol=1e-9, abs_tol=0.0), f"{where}: Python {py!r}, JavaScript {js!r}"
        return abs(py - js) / abs(py) if py else 0.0
    assert py == js, f"{where}: Python {py!r}, JavaScript {js!r}"
    return 0.0


def error_line(text: str) -> str:
    """The message after the program's name: gpu_math.py and gpu_math.mjs name themselves."""
    assert text.count("\n") <= 1 and "Traceback" not in text, text
    return text.strip().split(": error: ", 1)[1]


def test_node_and_python_simulate_agree_on_random_configurations(tmp_path: Path):
    trace = tmp_path / "trace.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,500,20\n0.05,1200,8\n0.05,90,64\n0.4,2500,30\n"
                     "0.41,700,1\n1.2,64,120\n")
    rng = random.Random(21)
    argvs = [random_argv(rng, trace) for _ in range(20)]
    ran, worst = 0, 0.0
    for argv, js in zip(argvs, node(argvs), strict=True):
        py = python(argv)
        assert js["code"] == py["code"], f"{argv}: exit {py['code']} in Python, {js['code']} in Node: {js['err']}"
        if py["code"] == 0:
            ran += 1
            worst = max(worst, agree(json.loads(py["out"]), json.loads(js["out"]), " ".join(argv)))
        else:  # the configuration cannot run (a model too big for the replica): the same words
            assert error_line(js["err"]) == error_line(py["err"])
    assert ran >= 12, f"only {ran} of 20 random configurations ran: the test is not exercising the simulator"
    print(f"worst relative disagreement over {ran} runs: {worst:.3g}")


BAD = [
    ["--concurrency", "0"],
    ["--concurrency", "4", "--engine", "tgi"],
    ["--concurrency", "4", "--rate", "2"],
    ["--rate", "2", "--burstiness", "-1"],
    ["--rate", "nan"],
    ["--concurrency", "4", "--burstiness", "2"],
    ["--concurrency", "4", "--ep", "3"],
    ["--concurrency", "4", "--layout", "pp"],
    ["--concurrency", "4", "--seed", "18446744073709551616"],
    ["--concurrency", "4", "--range-ratio", "1.5"],
    ["--concurrency", "4", "--prefix-hit-rate", "1.2"],
    ["--concurrency", "4", "--prefix-hit-rate", "nan"],
    ["--trace", "/nonexistent/trace.csv"],
    ["--concurrency", "4", "--weights", "int3"],
    ["--offline", "0"],
    ["--offline", "8", "--concurrency", "4"],
    ["--concurrency", "4", "--kv-memory-fraction", "1.5"],
    ["--concurrency", "4", "--chunked-prefill", "yes"],
    ["--concurrency", "4", "--max-batch", "2.5"],
]


def test_bad_flags_give_both_the_same_line_and_exit_2(tmp_path: Path):
    bad_trace = tmp_path / "bad.csv"
    bad_trace.write_text("0,500,20\n0.5,eight hundred,30\n")
    early = tmp_path / "early.csv"
    early.write_text("1.5,500,20\n0.5,800,30\n")
    cases = [RUN + args for args in BAD] + [RUN + ["--trace", str(bad_trace)], RUN + ["--trace", str(early)],
                                             RUN[2:] + ["--concurrency", "2"], RUN[:2] + ["--concurrency", "2"]]
    cases.append(["--model", "deepseek-v3", "--gpu", "h100", "--gpus", "1", "--input-tokens", "100",
                  "--output-tokens", "10", "--concurrency", "2", "--engine", "sglang"])
    cases.append(["--model", "llama-3.1-8b", "--gpu", "a100", "--gpus", "1", "--input-tokens", "100",
                  "--output-tokens", "10", "--concurrency", "2"])
    for argv, js in zip(cases, node(cases), strict=True):
        py = python(argv)
        assert py["code"] == js["code"] == 2, f"{argv}: {py} {js}"
        assert error_line(js["err"]) == error_line(py["err"]), argv
        assert js["out"] == ""


def test_the_node_command_line_prints_valid_json_as_a_process():
    r = subprocess.run([NODE, str(ROOT / "tools" / "gpu_math.mjs"), "simulate", *RUN, "--concurrency", "4",
                        "--requests", "20", "--seed", "18446744073709551615", "--json"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    # The seed is printed whole (past 2^53 a JSON number read as a double would lose its last digits), and the
    # run reports its 20 requests less the first wave of 4.
    assert out["seed"] == 2 ** 64 - 1 and (out["requests"], out["warmup_requests"]) == (16, 4)
