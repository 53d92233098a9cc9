"""The JavaScript engine (docs/assets/javascripts/calculator/) against the Python engine: the same
figures, to 1e-9 relative, on 500 random scenarios (every preset model and GPU, random custom
geometries and GPUs, both layouts, every format) and on every design workload and its variants, the
whole plan included (the simulated answer, the shape search, disaggregated pools, speculative decoding);
and the Node command line against gpu_math.py, key for key."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

from macros.engine.export import GPU_FIELDS, MODEL_FIELDS, catalog_json, workload_json
from macros.engine.fleet_options import JSON_KEYS as FLEET_KEYS
from macros.engine.fleet_options import options
from macros.engine.lookup import InputError
from macros.engine.planner import JSON_KEYS as PLAN_KEYS
from macros.engine.planner import plan
from macros.engine.planner_simulated import JSON_KEYS as SIMULATED_KEYS
from macros.engine.planner_simulated import simulated_plan
from macros.engine.scenario import JSON_KEYS, scenario
from macros.engine.specs import Gpu, Model, catalog
from macros.engine.workload_file import load

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed: run `make js-deps`")
SEED = 20261201
CASES = 500
DESIGNS = sorted(p for p in (ROOT / "macros" / "data" / "designs").glob("*.toml") if p.name != "defects.toml")


def _custom_model(rng: random.Random, n: int) -> Model:
    """A random but self-consistent geometry: dense or MoE, GQA or MLA, with or without windows."""
    layers = rng.choice([16, 24, 32, 48, 61, 80])
    heads = rng.choice([16, 32, 64, 128])
    head_dim = rng.choice([64, 128])
    hidden = heads * head_dim
    params = rng.uniform(1e9, 500e9)
    fields = dict(key=f"custom-{n}", name=f"Custom {n}", params=params, layers=layers, query_heads=heads,
                  kv_heads=rng.choice([h for h in (1, 2, 4, 8, heads) if h <= heads]), head_dim=head_dim,
                  max_context=rng.choice([8192, 32768, 131072]), source="test", checked="2026-12-01",
                  hidden_size=hidden)
    if rng.random() < 0.4:  # MoE: E experts, k per token; N_a large enough that a = N_a - k*e >= 0
        experts = rng.choice([8, 64, 128, 256])
        k = rng.choice([k for k in (1, 2, 8) if k < experts])
        share = k / experts
        fields.update(experts=experts, experts_per_token=k,
                      active_params=params * rng.uniform(share + 0.01, min(0.9, share + 0.3)))
    if rng.random() < 0.3:  # MLA
        fields.update(kv_lora_rank=rng.choice([256, 512]), qk_rope_head_dim=64, qk_nope_head_dim=head_dim,
                      v_head_dim=head_dim, q_lora_rank=rng.choice([768, 1536]))
    if rng.random() < 0.3:  # sliding windows on some layers
        fields.update(sliding_window=rng.choice([512, 4096]), sliding_window_layers=rng.randrange(1, layers))
    return Model(**fields)


def _custom_gpu(rng: random.Random) -> Gpu:
    bf16 = rng.uniform(100e12, 3000e12)
    return Gpu(key="custom", name="Custom GPU", memory="", memory_bytes=rng.choice([24e9, 48e9, 80e9, 141e9, 288e9]),
               bandwidth_bytes_per_s=rng.uniform(0.3e12, 9e12), bf16_flops=bf16, interconnect="",
               interconnect_bytes_per_s=rng.uniform(25e9, 900e9), checked="2026-12-01",
               fp8_flops=bf16 * 2 if rng.random() < 0.6 else None, fp4_flops=bf16 * 4 if rng.random() < 0.3 else None)


def _cases() -> list[dict]:
    """(python kwargs, JSON for the JavaScript) for CASES scenarios: every preset pair first, then random."""
    rng = random.Random(SEED)
    cat = catalog()
    models, gpus, formats = list(cat.models), list(cat.gpus), list(cat.precisions)
    pairs = [(m, g) for m in models for g in gpus]
    rng.shuffle(pairs)
    out = []
    for n in range(CASES):
        if n < len(pairs) and n < CASES // 2:
            model, gpu = pairs[n]
        else:
            model = _custom_model(rng, n) if rng.random() < 0.5 else rng.choice(models)
            gpu = _custom_gpu(rng) if rng.random() < 0.3 else rng.choice(gpus)
        m = model if isinstance(model, Model) else cat.models[model]
        kwargs = dict(model=model, gpu=gpu, gpus=rng.choice([None, 1, 2, 4, 8, 16, 3, 6]),
                      seq_len=rng.randint(1, min(m.max_context, 200_000)),
                      batch=rng.choice([None, None, 1, rng.randint(1, 512)]),
                      weights=rng.choice([None, *formats]), kv=rng.choice(["bf16", "fp8"]),
                      reserve_bytes=rng.choice([0, 4e9, 10e9]), efficiency=rng.uniform(0.1, 1.0),
                      price=rng.choice([None, rng.uniform(0.5, 10)]), layout=rng.choice(["tp", "dp-attention"]))
        out.append(kwargs)
    return out


def _as_js(kwargs: dict) -> dict:
    d = dict(kwargs)
    for key, fields in (("model", MODEL_FIELDS), ("gpu", GPU_FIELDS)):
        if not isinstance(d[key], str):
            d[key] = {"key": d[key].key, **{f: getattr(d[key], f) for f in fields}}
    return d


def _run_js(cases: list[dict]) -> list[dict]:
    out = subprocess.run([NODE, str(ROOT / "tests" / "js" / "run_cases.mjs")], input=json.dumps(
        {"catalog": catalog_json(), "cases": cases}), capture_output=True, text=True, check=True, timeout=300)
    return json.loads(out.stdout)


def _agree(py: dict, js: dict, keys: tuple[str, ...], where: str) -> None:
    for key in keys:
        a, b = py[key], js[key]
        if isinstance(a, dict):  # percentile_targets
            assert isinstance(b, dict) and list(a) == list(b), f"{where}: {key}: Python {a!r}, JavaScript {b!r}"
            _agree(a, b, tuple(a), f"{where}: {key}")
        elif isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
            assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300), f"{where}: {key}: Python {a!r}, JavaScript {b!r}"
        else:
            assert a == b, f"{where}: {key}: Python {a!r}, JavaScript {b!r}"


def test_the_javascript_engine_agrees_with_the_python_on_random_scenarios():
    cases = _cases()
    results = _run_js([{"scenario": _as_js(c)} for c in cases])
    fitted = errors = 0
    for n, (kwargs, js) in enumerate(zip(cases, results, strict=True)):
        where = f"case {n} ({_as_js(kwargs)})"
        try:
            py = scenario(**kwargs).as_json()
        except InputError as exc:
            assert js.get("error") == str(exc), f"{where}: Python raised {exc}, JavaScript gave {js.get('error', js)}"
            errors += 1
            continue
        assert "error" not in js, f"{where}: JavaScript raised {js['error']}, Python gave a result"
        _agree(py, js, JSON_KEYS, where)
        fitted += py["fits"]
    # The cases must exercise the engine, not only its error paths: most fit, some do not, some raise.
    assert fitted > CASES // 2 and errors < CASES // 4, (fitted, errors)


def test_the_javascript_planner_agrees_on_every_design_workload_and_variant():
    workloads = []
    for path in DESIGNS:
        base, variants = load(path)
        workloads += [base, *variants.values()]
    # The same workloads with the replica shape left to the planner, and on another GPU.
    workloads += [dataclasses.replace(w, gpus_per_replica=None) for w in workloads[:6]]
    workloads += [dataclasses.replace(w, gpu="h200", gpus_per_replica=None) for w in workloads[:6]]
    # Pinned shapes the planner must widen (too small for the weights, too slow for the target), and
    # targets no shape meets: pinned (the search stops at a node) and not (it stops at 64 GPUs).
    chat = load(ROOT / "macros" / "data" / "designs" / "consumer-chat.toml")[0]
    workloads += [dataclasses.replace(chat, gpus_per_replica=1), dataclasses.replace(chat, gpus_per_replica=2),
                  dataclasses.replace(chat, gpus_per_replica=4, tpot_s=0.025),
                  dataclasses.replace(chat, gpus_per_replica=4, tpot_s=0.001),
                  dataclasses.replace(chat, gpus_per_replica=None, tpot_s=0.0005),
                  dataclasses.replace(chat, gpus_per_replica=3, ttft_s=0.05)]
    results = _run_js([{"plan": workload_json(w)} for w in workloads])
    widened = infeasible = 0
    for w, js in zip(workloads, results, strict=True):
        try:
            py = plan(w).as_json()
        except InputError as exc:
            assert js.get("error") == str(exc), w.name
            continue
        _agree(py, js, PLAN_KEYS, w.name)
        widened += py["widened_because"] is not None
        infeasible += not py["feasible"]
    assert widened >= 3 and infeasible >= 2, (widened, infeasible)  # the cases above reach both answers


def _cli(program: list[str], args: list[str]) -> dict:
    out = subprocess.run(program + args + ["--json"], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable})
    return json.loads(out.stdout)


def test_the_whole_javascript_plan_agrees_on_every_design_workload_and_variant():
    """Every key plan --json prints: the simulated answer (deterministic for its seed), the shape search, and,
    on copies of some designs, disaggregated pools and speculative decoding, which no design file asks for."""
    workloads = []
    for path in DESIGNS:
        base, variants = load(path)
        workloads += [base, *variants.values()]
    moe = next(w for w in workloads if w.model == "deepseek-v3")
    dense = next(w for w in workloads if w.model == "llama-3.1-70b")
    workloads += [dataclasses.replace(w, mode="disaggregated", name=f"{w.name} (disaggregated)") for w in (dense, moe)]
    workloads += [dataclasses.replace(w, draft_tokens=3, acceptance=a, name=f"{w.name} (speculative {a})")
                  for w, a in ((dense, 0.7), (moe, 0.6), (dense, 1.0))]
    results = _run_js([{"plan_all": workload_json(w)} for w in workloads])
    seen = {"disaggregated": 0, "speculative": 0, "simulated": 0, "runner_up": 0}
    for w, js in zip(workloads, results, strict=True):
        p = plan(w)
        py = {**p.as_json(), **simulated_plan(p).as_json(), **options(p).as_json()}
        assert list(js) == list(py), w.name
        _agree(py, js, tuple(py), w.name)
        seen["disaggregated"] += py["disaggregated_gpus"] is not None
        seen["speculative"] += py["speculative_speedup"] is not None
        seen["simulated"] += py["simulated_replicas"] is not None
        seen["runner_up"] += py["runner_up"] is not None
    # The cases reach every part of the plan: both pools sized, speculative steps, simulated counts, runners-up.
    assert seen["disaggregated"] >= 1 and seen["speculative"] >= 3 and seen["simulated"] >= 20, seen
    assert seen["runner_up"] >= 20, seen


@pytest.mark.parametrize("args", [
    ["--model", "llama-70b", "--gpu", "h100", "--gpus", "4"],
    ["--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--layout", "dp-attention", "--seq-len", "8192"],
    ["--model", "gpt-oss-120b", "--gpu", "b200", "--batch", "32", "--kv", "fp8", "--price", "4", "--efficiency", "0.5"],
    ["plan", "macros/data/designs/consumer-chat.toml"],
    ["plan", "macros/data/designs/consumer-chat.toml", "--variant", "fp8"],
])
def test_the_node_command_line_prints_what_gpu_math_prints(args):
    py = _cli([sys.executable, "gpu_math.py"], args)
    js = _cli([NODE, "tools/gpu_math.mjs"], args)
    if args[0] == "plan":  # the napkin's keys, the simulated answer's and the fleet options', in that order
        assert list(py) == [*PLAN_KEYS, *SIMULATED_KEYS, *FLEET_KEYS] == list(js)
    assert set(js) == set(py)
    _agree(py, js, tuple(py), " ".join(args))


def test_the_node_command_line_fails_in_one_line():
    out = subprocess.run([NODE, "tools/gpu_math.mjs", "--model", "llama-7000b", "--gpu", "h100"], cwd=ROOT,
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable})
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "unknown model 'llama-7000b'" in out.stderr
