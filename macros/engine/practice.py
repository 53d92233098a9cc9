"""The practice problems (docs/practice/problems.md): inputs drawn from data/practice/problems.toml's
pools, each answered by the calculator's own scenario or planner, so the answer is what
`gpu_math.py ... --json` prints. No text here: macros/site/practice.py writes the questions.

Each kind has its own generator, random.Random("<seed>:<kind>") (a string seed is hashed the same way
on every run), so adding problems of one kind leaves the others as they were. A problem's id is its
kind and its place among that kind's problems ("max-batch-3"), or "plan-<design>[-<variant>]" for a
worked design's workload: it names the question, not its inputs, so a change to the spec data changes
the answer of a problem but not which problem it is.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .lookup import InputError
from .planner import Plan, PlanError, plan, require
from .scenario import Scenario, scenario
from .specs import DATA_DIR, SpecError, catalog, display_path, read_toml
from .workload_file import Workload, load, parse

PATH = DATA_DIR / "practice" / "problems.toml"
DESIGNS_DIR = DATA_DIR / "designs"
MAX_DRAWS = 2000  # a kind whose pools cannot give a usable draw in this many tries is a data error
LAYOUTS = ("tp", "dp-attention")


@dataclass(frozen=True)
class Problem:
    id: str
    kind: str
    inputs: dict[str, Any]  # gpu_math.py's options; a planner problem's are a file (and variant) or a workload table
    answer: Any  # SI units: a count, seconds, tokens/s, USD, a bool or a word
    unit: str | None
    json_key: str  # what in gpu_math.py's --json the answer is
    result: Scenario | Plan = field(repr=False)
    other: Scenario | None = field(default=None, repr=False)  # a layout problem: the other layout
    workload: Workload | None = field(default=None, repr=False)


# kind -> (the --json expression, its unit, how to read it from a scenario)
SCENARIO_KINDS: dict[str, tuple[str, str | None, Callable[[Scenario], Any]]] = {
    "fit": ("fits", None, lambda s: s.fits),
    "max-batch": ("max_batch", "sequences", lambda s: s.max_batch),
    "decode-floor": ("decode_step_s", "s", lambda s: s.decode_step_s),
    "per-user": ("1 / planned_step_s", "tokens/s", lambda s: 1 / s.planned_step_s),
    "cost": ("cost_per_million_tokens", "USD", lambda s: s.cost_per_million_tokens),
    "binding": ("bound", None, lambda s: s.bound),
    "layout": ("max_batch", "sequences", lambda s: s.max_batch),
}
KINDS = (*SCENARIO_KINDS, "planner")


@functools.cache
def settings(path: Path = PATH) -> dict[str, Any]:
    """problems.toml, with every pool's keys checked against the spec data."""
    raw = read_toml(path)
    where = display_path(path)
    cat = catalog()
    for section in ("pools", "planner"):
        for name, pool in raw.get(section, {}).items():
            if not isinstance(pool, list) or not pool:
                raise SpecError(f"{where}: [{section}] {name} must be a non-empty list")
            known = cat.models if "models" in name else cat.gpus if name.endswith("gpus") else None
            unknown = [k for k in pool if known is not None and k not in known]
            if unknown:
                raise SpecError(f"{where}: [{section}] {name}: unknown key {unknown[0]!r}")
    unknown_kinds = set(raw.get("counts", {})) - set(KINDS)
    if unknown_kinds:
        raise SpecError(f"{where}: [counts] unknown kind {sorted(unknown_kinds)[0]!r} (kinds: {', '.join(KINDS)})")
    return raw


def _options(model: str, gpu: str, gpus: int, seq_len: int, weights: str, kv: str, batch: int | None = None,
             layout: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = dict(model=model, gpu=gpu, gpus=gpus, seq_len=seq_len, weights=weights, kv=kv)
    if batch is not None:
        out["batch"] = batch
    if layout is not None:
        out["layout"] = layout
    return out


def _run(options: dict[str, Any]) -> Scenario | None:
    """The calculator on these options; None where it refuses them (a context past the model's
    limit, a batch past the max batch)."""
    try:
        return scenario(**options)
    except InputError:
        return None


def _draw(kind: str, n: int, rng: random.Random, pools: dict[str, Any]) -> tuple[dict[str, Any], Scenario]:
    """One usable draw for problem n (from 0) of a scenario kind."""
    cat = catalog()
    priced = [g for g in pools["gpus"] if g in cat.prices]
    for _ in range(MAX_DRAWS):
        model = rng.choice(pools["layout_models" if kind == "layout" else "models"])
        gpu = rng.choice({"layout": pools["layout_gpus"], "cost": priced}.get(kind, pools["gpus"]))
        gpus = rng.choice(pools["layout_gpu_counts" if kind == "layout" else "gpu_counts"])
        seq_len = rng.choice(pools["binding_contexts" if kind == "binding" else "contexts"])
        weights = rng.choice(pools["weights"])
        weights = cat.models[model].native_weights if weights == "native" else weights
        kv = rng.choice(pools["kv"])
        batch = None
        if kind in ("decode-floor", "per-user", "binding"):
            batch = rng.choice(pools["binding_batches" if kind == "binding" else "batches"])
        layout = LAYOUTS[n % 2] if kind == "layout" else None
        options = _options(model, gpu, gpus, seq_len, weights, kv, batch, layout)
        s = _run(options)
        if s is None:
            continue
        if kind == "fit" and s.fits != (n % 2 == 0):  # alternate: yes, no, yes, ...
            continue
        if kind != "fit" and not s.fits:
            continue
        if kind == "binding" and (s.bound == "compute") != (n % 2 == 1):  # alternate: memory, compute, ...
            continue
        return options, s
    raise SpecError(f"{display_path(PATH)}: no usable draw for a {kind!r} problem in {MAX_DRAWS} tries: widen [pools]")


def _scenario_problems(kind: str, count: int, seed: Any, pools: dict[str, Any]) -> list[Problem]:
    rng = random.Random(f"{seed}:{kind}")
    key, unit, read = SCENARIO_KINDS[kind]
    out = []
    for n in range(count):
        options, s = _draw(kind, n, rng, pools)
        other = None
        if kind == "layout":
            other = _run({**options, "layout": LAYOUTS[(n + 1) % 2]})
        out.append(Problem(f"{kind}-{n + 1}", kind, options, read(s), unit, key, s, other))
    return out


def design_files() -> list[Path]:
    """The worked designs' workload files (every designs/*.toml that names a model), by name."""
    return sorted(p for p in DESIGNS_DIR.glob("*.toml") if "model" in read_toml(p))


def _planner_problem(id_: str, inputs: dict[str, Any], w: Workload, where: str) -> Problem:
    p = require(plan(w), where)  # an infeasible workload is refused in one line naming its file and variant
    return Problem(id_, "planner", inputs, p.gpus, "GPUs", "gpus", p, workload=w)


def _design_problem(id_: str, inputs: dict[str, Any], w: Workload) -> list[Problem]:
    """A worked design (or one of its variants) as a problem, or none when no shape serves it on this data:
    a problem needs an answer, and the design's own page says why it has none."""
    p = plan(w)
    return [Problem(id_, "planner", inputs, p.gpus, "GPUs", "gpus", p, workload=w)] if isinstance(p, Plan) else []


def _generated_workload(n: int, rng: random.Random, pools: dict[str, Any]) -> tuple[dict[str, Any], Workload]:
    pick = lambda name: rng.choice(pools[name])  # noqa: E731
    table = {
        "name": f"Practice workload {n + 1}", "model": pick("models"), "gpu": pick("gpus"),
        "traffic": {name: pick(name) for name in ("peak_requests_per_s", "prompt_tokens", "output_tokens",
                                                  "prefix_hit_rate")},
        "slo": {"ttft_s": pick("ttft_s"), "tpot_s": pick("tpot_s")},
    }
    return table, parse(table, f"{display_path(PATH)}: [planner] workload {n + 1}")


def _planner_problems(count: int, seed: Any, pools: dict[str, Any]) -> list[Problem]:
    out = []
    for path in design_files():
        workload, variants = load(path)
        rel = path.relative_to(DATA_DIR.parent.parent).as_posix()
        out += _design_problem(f"plan-{path.stem}", {"file": rel}, workload)
        for name, variant in variants.items():
            out += _design_problem(f"plan-{path.stem}-{name}", {"file": rel, "variant": name}, variant)
    rng = random.Random(f"{seed}:planner")
    for n in range(count):
        for _ in range(MAX_DRAWS):
            table, w = _generated_workload(n, rng, pools)
            try:
                out.append(_planner_problem(f"plan-{n + 1}", {"workload": table}, w, display_path(PATH)))
                break
            except PlanError:  # no replica shape meets these targets: draw again
                continue
        else:
            raise SpecError(f"{display_path(PATH)}: no feasible workload in {MAX_DRAWS} draws: widen [planner]")
    return out


@functools.cache
def problems() -> tuple[Problem, ...]:
    """Every practice problem, kind by kind in KINDS order."""
    raw = settings()
    counts, seed = raw.get("counts", {}), raw["seed"]
    out: list[Problem] = []
    for kind in SCENARIO_KINDS:
        out += _scenario_problems(kind, counts.get(kind, 0), seed, raw["pools"])
    out += _planner_problems(counts.get("planner", 0), seed, raw["planner"])
    return tuple(out)
