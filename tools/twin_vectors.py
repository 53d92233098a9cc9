"""Writes tests/vectors/twin.json: the Python engine's answers, which the JavaScript twin
(docs/assets/javascripts/calculator/) must reproduce. pytest (tests/js/test_twin.py) fails when this file and
what the Python now computes drift apart; Node (tests/js/twin.test.mjs, through tests/js/test_vectors_node.py)
checks the JavaScript against it: every figure to 1e-9 relative, every refusal in the same words.

    python3 tools/twin_vectors.py      # rewrite the vectors after a change to the engine or its data

Two parts, one case a line, each case's figures in the order of the part's keys (scenario_keys, plan_keys):
- scenarios: scenario() on CASES inputs drawn from a fixed seed: every preset model and GPU pair first (up
  to half), then random custom geometries (dense or MoE, GQA or MLA, with or without windows) and custom
  GPUs, both layouts, every format, a chosen or given GPU count and batch; each with the --json figures or
  the error;
- plans: plan() on every design workload and its variants, with the shape left to the planner, on another
  GPU, pinned shapes the planner must widen and targets no shape meets; each with the napkin's --json keys.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from macros.engine.export import GPU_FIELDS, MODEL_FIELDS, workload_json  # noqa: E402
from macros.engine.fleet.planner import JSON_KEYS as PLAN_KEYS  # noqa: E402
from macros.engine.fleet.planner import plan  # noqa: E402
from macros.engine.fleet.workload_file import Workload, load_workload_file  # noqa: E402
from macros.engine.lookup import InputError  # noqa: E402
from macros.engine.model.scenario import JSON_KEYS, scenario  # noqa: E402
from macros.engine.specs import Gpu, Model, catalog  # noqa: E402

OUT = ROOT / "tests" / "vectors" / "twin.json"
SEED = 20261201
CASES = 500
DESIGNS = sorted(p for p in (ROOT / "macros" / "data" / "designs").glob("*.toml") if p.name != "defects.toml")


def custom_model(rng: random.Random, n: int) -> Model:
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


def custom_gpu(rng: random.Random) -> Gpu:
    bf16 = rng.uniform(100e12, 3000e12)
    return Gpu(key="custom", name="Custom GPU", memory="", memory_bytes=rng.choice([24e9, 48e9, 80e9, 141e9, 288e9]),
               bandwidth_bytes_per_s=rng.uniform(0.3e12, 9e12), bf16_flops=bf16, interconnect="",
               interconnect_bytes_per_s=rng.uniform(25e9, 900e9), checked="2026-12-01",
               fp8_flops=bf16 * 2 if rng.random() < 0.6 else None, fp4_flops=bf16 * 4 if rng.random() < 0.3 else None)


def scenario_inputs() -> list[dict]:
    """scenario()'s keyword arguments for CASES scenarios: every preset pair first (up to half), then random."""
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
            model = custom_model(rng, n) if rng.random() < 0.5 else rng.choice(models)
            gpu = custom_gpu(rng) if rng.random() < 0.3 else rng.choice(gpus)
        m = model if isinstance(model, Model) else cat.models[model]
        kwargs = dict(model=model, gpu=gpu, gpus=rng.choice([None, 1, 2, 4, 8, 16, 3, 6]),
                      seq_len=rng.randint(1, min(m.max_context, 200_000)),
                      batch=rng.choice([None, None, 1, rng.randint(1, 512)]),
                      weights=rng.choice([None, *formats]), kv=rng.choice(["bf16", "fp8"]),
                      reserve_bytes=rng.choice([0, 4e9, 10e9]), efficiency=rng.uniform(0.1, 1.0),
                      price=rng.choice([None, rng.uniform(0.5, 10)]), layout=rng.choice(["tp", "dp-attention"]))
        out.append(kwargs)
    return out


def as_js(kwargs: dict) -> dict:
    d = dict(kwargs)
    for key, fields in (("model", MODEL_FIELDS), ("gpu", GPU_FIELDS)):
        if not isinstance(d[key], str):
            d[key] = {"key": d[key].key, **{f: getattr(d[key], f) for f in fields}}
    return d


def workloads() -> list[Workload]:
    workloads = []
    for path in DESIGNS:
        base, variants = load_workload_file(path)
        workloads += [base, *variants.values()]
    # The same workloads with the replica shape left to the planner, and on another GPU.
    workloads += [dataclasses.replace(w, gpus_per_replica=None) for w in workloads[:6]]
    workloads += [dataclasses.replace(w, gpu="h200", gpus_per_replica=None) for w in workloads[:6]]
    # Pinned shapes the planner must widen (too small for the weights, too slow for the target), and
    # targets no shape meets: pinned (the search stops at a node) and not (it stops at 64 GPUs).
    chat = load_workload_file(ROOT / "macros" / "data" / "designs" / "consumer-chat.toml")[0]
    # (a mean set here is a stated one, as a file that writes it: the JSON the twin reads carries it)
    means = {"stated_means": ("ttft", "tpot")}
    workloads += [dataclasses.replace(chat, gpus_per_replica=1), dataclasses.replace(chat, gpus_per_replica=2),
                  dataclasses.replace(chat, gpus_per_replica=4, tpot_s=0.025, **means),
                  dataclasses.replace(chat, gpus_per_replica=4, tpot_s=0.001, **means),
                  dataclasses.replace(chat, gpus_per_replica=None, tpot_s=0.0005, **means),
                  dataclasses.replace(chat, gpus_per_replica=3, ttft_s=0.05, **means)]
    return workloads


def _answer(run: Any, keys: tuple[str, ...]) -> list[Any] | dict[str, str]:
    """The figures in the order of `keys` (the file names them once), or {"error": the message}."""
    try:
        out = run().as_json()
    except InputError as exc:
        return {"error": str(exc)}
    return [out[key] for key in keys]


def cases() -> dict[str, Any]:
    return {
        "scenario_keys": list(JSON_KEYS),
        "plan_keys": list(PLAN_KEYS),
        "scenarios": [{"input": as_js(kwargs), "output": _answer(lambda k=kwargs: scenario(**k), JSON_KEYS)}
                      for kwargs in scenario_inputs()],
        "plans": [{"input": workload_json(w), "output": _answer(lambda w=w: plan(w), PLAN_KEYS)}
                  for w in workloads()],
    }


def text() -> str:
    """One case a line, so a change to the engine shows as the cases it changed."""
    def dumps(value: Any) -> str:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))

    parts = [f' "{name}": ' + (dumps(value) if name.endswith("_keys") else "[\n" + ",\n".join(map(dumps, value))
                               + "\n ]") for name, value in cases().items()]
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    OUT.write_text(text())
    print(f"{OUT.relative_to(ROOT)}: written")
