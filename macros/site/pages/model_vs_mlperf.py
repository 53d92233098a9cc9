"""The serving model against MLPerf Inference's dense Llama results (the "Model against measurement" page's
second source): the scores calibrate wrote, each simulated row predicted against measured, the spread
between submitters of the same setup that bounds any model, and the datasets' mean prompts as fitted."""

from __future__ import annotations

import math
from collections import defaultdict
from types import SimpleNamespace

import numpy as np

from ...engine.calibration.fitting import within
from ...engine.calibration.mlperf import LENGTHS, SERVER_TOLERANCE, TOLERANCE, Lengths, mlperf_runs
from ...engine.calibration.report import edge
from ...engine.lookup import get_gpu, get_model
from ...engine.serving.calibration import BY_NAME, PROMPT_TOKENS, Calibration, calibration
from ...engine.serving.profiles import engines
from ...text import fmt
from ..markdown import table

TARGET_SHARE = 0.8  # the target for MLPerf Offline: within TOLERANCE on 80 % of rows


def _rows(cal: Calibration) -> list[SimpleNamespace]:
    """Each simulated Offline row: the run, the cross-validated and in-sample predictions, the ratio."""
    by_id = {r.id: r for r in mlperf_runs()}
    out = []
    for t in cal.raw.get("mlperf_run", []):
        r = by_id.get(t["id"])
        if r is None:
            continue
        out.append(SimpleNamespace(run=r, cv=float(t["cv"]), fit=float(t["fit"]),
                                   ratio=float(t["cv"]) / r.output_tokens_per_s_per_gpu))
    return out


def _lengths(model: str, lengths: Lengths, cal: Calibration) -> SimpleNamespace:
    """A benchmark's mean prompt (its prior, band and fitted value, or held at the prior) and output."""
    p = BY_NAME[PROMPT_TOKENS]
    prior, low, high = p.band(model)
    held = model in p.fixed
    return SimpleNamespace(model=get_model(model).name, prior=prior, low=low, high=high,
                           fitted=cal.values[(PROMPT_TOKENS, model)], held=held,
                           edge="" if held else edge(p, cal.values[(PROMPT_TOKENS, model)], model),
                           why_held=p.why_fixed if held else "", output_words=_output_words(model, lengths))


def _output_words(model: str, lengths: Lengths) -> str:
    """The output tokens per sample the benchmark's simulated rows carry: their own runs' (calibration/mlperf.py),
    as a range, or the reference's where no row has its own."""
    own = sorted({r.osl for r in mlperf_runs() if r.model == model and not r.excluded})
    if not own:
        return f"{fmt.count(lengths.output_tokens)} output tokens per sample ({lengths.source})"
    value = fmt.count(own[0]) if len(own) == 1 else f"{fmt.count(own[0])} to {fmt.count(own[-1])}"
    return f"{value} output tokens per sample (each row's own run)"


def submitter_spread() -> list[SimpleNamespace]:
    """Setups (GPU, engine, model, precision, TP) measured by more than one Offline submission: the largest
    over the smallest tokens/s per GPU. Every Offline row counts, simulable or not."""
    groups: dict[tuple, list] = defaultdict(list)
    for r in mlperf_runs():
        if r.offline and r.tp:
            groups[(r.gpu, r.engine, r.model, r.weights, r.tp)].append(r)
    return [SimpleNamespace(gpu=k[0], engine=k[1], model=k[2], runs=len(rs),
                            spread=max(r.output_tokens_per_s_per_gpu for r in rs)
                            / min(r.output_tokens_per_s_per_gpu for r in rs))
            for k, rs in sorted(groups.items()) if len(rs) > 1]


def _within(rows: list[SimpleNamespace]) -> float:
    """Share of rows whose cross-validated prediction is within TOLERANCE of the measurement."""
    if not rows:
        return math.nan
    return within(np.array([x.cv for x in rows]), np.array([x.run.output_tokens_per_s_per_gpu for x in rows]),
                  TOLERANCE)


def server_rows(cal: Calibration) -> list[SimpleNamespace]:
    """Each Server or Interactive row: the model's highest rate per replica inside the row's p99 bounds, by a fit
    that never saw the row's system, against the submitter's rate per replica (0: the model misses the bounds even
    unloaded)."""
    by_id = {r.id: r for r in mlperf_runs()}
    return [SimpleNamespace(run=by_id[t["id"]], model_rate=float(t["model_rate_per_replica"]),
                            measured_rate=float(t["measured_rate_per_replica"]),
                            ratio=float(t["model_rate_per_replica"]) / float(t["measured_rate_per_replica"]))
            for t in cal.raw.get("mlperf_server", []) if t["id"] in by_id]


def model(cal: Calibration | None = None) -> SimpleNamespace:
    cal = cal or calibration()
    rows = _rows(cal)
    engine_names = {k: e["name"] for k, e in engines().items()}
    spread = submitter_spread()
    by_gpu: dict[str, list] = defaultdict(list)
    for x in rows:
        by_gpu[x.run.gpu].append(x)
    gpu_rows = [[get_gpu(g).name, fmt.count(len(xs)), fmt.pct(_within(xs)),
                 fmt.times(sorted(x.ratio for x in xs)[len(xs) // 2], 2)] for g, xs in sorted(by_gpu.items())]
    row_table = [[f"{x.run.submitter} {x.run.id.split('/')[0]}",
                  f"{get_model(x.run.model).name}, {get_gpu(x.run.gpu).name} TP{x.run.tp}, "
                  f"{engine_names.get(x.run.engine, x.run.engine)}",
                  fmt.count(x.run.output_tokens_per_s_per_gpu), fmt.count(x.cv), fmt.times(x.ratio, 2)]
                 for x in sorted(rows, key=lambda x: -abs(math.log(x.ratio)))]
    servers = server_rows(cal)
    server_table = [[f"{x.run.submitter} {x.run.id.split('/')[0]}",
                     f"{get_model(x.run.model).name}, {get_gpu(x.run.gpu).name} TP{x.run.tp}", x.run.scenario,
                     fmt.num(x.measured_rate), fmt.num(x.model_rate) if x.model_rate else "misses unloaded",
                     fmt.times(x.ratio, 2) if x.model_rate else "-"]
                    for x in sorted(servers, key=lambda x: -abs(math.log(x.ratio)) if x.ratio > 0 else -99)]
    all_rows = mlperf_runs()
    offline = [r for r in all_rows if r.offline]
    return SimpleNamespace(
        rows=rows, simulated=len(rows), offline=len(offline), total=len(all_rows),
        within=_within(rows), tolerance_share=TOLERANCE - 1, target_share=TARGET_SHARE,
        met=bool(rows) and _within(rows) >= TARGET_SHARE,
        gpu_table=table(["GPU", "rows", f"within {fmt.pct(TOLERANCE - 1)}", "median predicted / measured"],
                        gpu_rows, "lrrr"),
        row_table=table(["submitter", "setup", "measured (tokens/s per GPU)", "predicted", "ratio"], row_table,
                        "llrrr"),
        spread_table=table(["GPU", "engine", "model", "submissions", "largest / smallest"],
                           [[get_gpu(s.gpu).name, engine_names.get(s.engine, s.engine), get_model(s.model).name,
                             fmt.count(s.runs), fmt.times(s.spread, 2)] for s in spread], "lllrr"),
        widest_spread=max((s.spread for s in spread), default=math.nan),
        sensitivity=[SimpleNamespace(scale=float(t["input_scale"]), median_ratio=float(t["median_ratio"]),
                                     within=float(t["within_20pct"]))
                     for t in cal.raw.get("mlperf", {}).get("input_sensitivity", [])],
        lengths=[_lengths(k, v, cal) for k, v in LENGTHS.items()],
        left_out=sorted({r.excluded for r in offline if r.excluded}),
        servers=len(servers), server_target_share=0.7, server_search_tolerance=SERVER_TOLERANCE,
        server_within=float(cal.raw.get("mlperf", {}).get("server", {}).get("highest_rate_within_20pct", math.nan)),
        server_in_sample=float(cal.raw.get("mlperf", {}).get("server", {}).get("in_sample_within_20pct", math.nan)),
        server_table=table(["submitter", "setup", "scenario", "submitter's rate (requests/s per replica)",
                            "model's highest, cross-validated", "ratio"], server_table, "lllrrr"),
    )
