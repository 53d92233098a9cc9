"""Model against measurement (docs/model-vs-measured.md): the fitted serving model's cross-validated
predictions and the roofline floor beside the measured runs (engine/calibration/report.py), the issue's targets
and whether each is met, residuals by GPU, TP size and concurrency, the fitted parameters, the runs left
out and the worst misses. Every verdict is worded from the figures, so a recalibration rewrites it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace

from ...engine.calibration import report as v
from ...engine.calibration.measured import STALL_THROUGHPUT_SHARE, STALL_TTFT_OVER_MEDIAN, Run
from ...engine.model.scenario import DEFAULT_EFFICIENCY, get_gpu, get_model
from ...engine.serving.calibration import PARAMETERS, Calibration, Parameter, calibration, fitted_slots, scopes
from ...engine.serving.families import families
from ...engine.serving.names import BENCHMARKS
from ...engine.serving.profiles import engines
from ...text import fmt
from ..assumptions import Assumption, assume
from ..markdown import listed, table
from ._edge_findings import findings
from ._identification import identification

METRIC_WORDS = {"median_tpot_s": "median TPOT", "median_ttft_s": "median TTFT",
                "output_tokens_per_s_per_gpu": "output tokens/s per GPU", "p99_tpot_s": "p99 TPOT"}
WIDE_FACTOR = 1.25  # up to this, a tolerance reads as ±(factor - 1); past it, as "a factor of"
WORST_PER_METRIC = 4  # the worst runs named for each of the three drawn metrics


def tolerance_words(factor: float) -> str:
    """'±15%' for a tolerance a reader thinks of as a percentage, 'a factor of 1.5' for a wider one."""
    return f"±{fmt.pct(factor - 1)}" if factor <= WIDE_FACTOR else f"a factor of {fmt.num(factor)}"


def target_words(t: v.AccuracyTarget) -> str:
    """'median TPOT within ±15%', or 'median absolute log error of median TPOT'."""
    if t.share is None:
        return f"median absolute log error of {METRIC_WORDS[t.metric]}"
    return f"{METRIC_WORDS[t.metric]} within {tolerance_words(t.factor)}"


def _needed(t: v.AccuracyTarget) -> str:
    return f"≥ {fmt.pct(t.share)} of runs" if t.share is not None else f"≤ {fmt.num(t.factor)}"


def _score(t: v.AccuracyTarget, value: float) -> str:
    return fmt.pct(value) if t.share is not None else fmt.num(value, 2)


def _value(metric: str, x: float) -> str:
    return fmt.tokens_per_s(x) if metric == "output_tokens_per_s_per_gpu" else fmt.seconds(x)


def series_words(r: Run) -> str:
    """'B200, DeepSeek-V3, SGLang, NVFP4, TP8 (EP8, attention DP), 1,024 → 8,192 tokens'."""
    extras = [f"EP{r.ep}"] * (r.ep > 1) + ["attention DP"] * (r.layout == "dp-attention")
    parallel = f"TP{r.tp}" + (f" ({', '.join(extras)})" if extras else "")
    return (f"{get_gpu(r.gpu).name}, {get_model(r.model).name}, {engines()[r.engine]['name']}, {r.weights.upper()}, "
            f"{parallel}, {fmt.count(r.isl)} → {fmt.count(r.osl)} tokens")


def targets(rows: Sequence[v.Checked]) -> list[SimpleNamespace]:
    """Each target with its cross-validated and in-sample figures, the floor ÷ η's, and whether it is met."""
    cv, fit, planned = v.summary(rows), v.summary(rows, "fit"), v.planned_summary(rows)
    return [SimpleNamespace(key=t.key, words=target_words(t), needed=_needed(t), cv=cv[t.key], fit=fit[t.key],
                            planned=planned[t.key], met=t.met(cv[t.key]), target=t) for t in v.TARGETS]


def targets_table(ts: Sequence[SimpleNamespace]) -> str:
    rows = [[t.words, t.needed, _score(t.target, t.cv), "yes" if t.met else "**no**", _score(t.target, t.fit),
             _score(t.target, t.planned)] for t in ts]
    return table(["target", "needed", "cross-validated", "met", "in-sample", f"floor ÷ {fmt.pct(DEFAULT_EFFICIENCY)}"],
                 rows, "llrlrr")


def verdict(ts: Sequence[SimpleNamespace]) -> str:
    """'meets all 5 targets' or 'meets 3 of the 5 targets; it misses output tokens/s ... (89.5%, ≥ 90% needed)'."""
    missed = [t for t in ts if not t.met]
    if not missed:
        return f"meets all {len(ts)} targets"
    words = "; ".join(f"{t.words} ({_score(t.target, t.cv)} against {t.needed})" for t in missed)
    return f"meets {len(ts) - len(missed)} of the {len(ts)} targets; it misses {words}"


def residual_table(rows: Sequence[v.Checked], key: Callable[[v.Checked], object], label: str,
                   name: Callable[[object], str] = str) -> str:
    """One row per group: how the cross-validated model does there, and how far the floor is below."""
    out = []
    for k, group in v.groups(rows, key).items():
        s = v.summary(group)
        low, _, high = s["tpot_ratio_p10_p50_p90"]
        floor = v.median_floor_ratio(group, "median_tpot_s")
        out.append([name(k), fmt.count(s["runs"]), fmt.pct(s["tpot_within_15pct"]),
                    f"{fmt.num(low)}–{fmt.num(high)}", fmt.pct(s["output_per_gpu_within_15pct"]),
                    fmt.pct(s["ttft_within_factor_1_5"]), "—" if floor is None else fmt.times(floor, 2)])
    tpot, output, ttft = (tolerance_words(target(k).factor) for k in
                          ("tpot_within_15pct", "output_per_gpu_within_15pct", "ttft_within_factor_1_5"))
    return table([label, "runs", f"TPOT within {tpot}", "TPOT ratio, p10–p90", f"tokens/s within {output}",
                  f"TTFT within {ttft}", "measured TPOT ÷ floor"], out)


def target(key: str) -> v.AccuracyTarget:
    return next(t for t in v.TARGETS if t.key == key)


def _parameter_value(p: Parameter, x: float, key: str, held: bool = False) -> str:
    text = fmt.num(x) if not p.name.endswith("_s") else "0" if x < 1e-9 else fmt.seconds(x)
    at = "" if held else v.edge(p, x, key)
    return text + (f" (at its {at} bound)" if at else "")


def _band(p: Parameter, key: str = "") -> str:
    """A parameter's prior and plausible band (for scope key `key`, where each key has its own), in words."""
    show = fmt.seconds if p.name.endswith("_s") else fmt.num
    start, low, high = p.band(key)
    return f"{show(start)}, in {show(low) if low else '0'} to {show(high)}"


def _scope_names(shared: str) -> dict[str, str]:
    """A parameter's scope keys by name: the GPU families', the engines', the benchmarks' models', and `shared` for
    the value every one shares."""
    return {**{k: f.name for k, f in families().items()}, **{k: e["name"] for k, e in engines().items()},
            **{k: get_model(k).name for k in BENCHMARKS}, "all": shared}


def parameters_table(cal: Calibration) -> str:
    """Each fitted parameter: what it means, its scope, its prior and plausible band with where they come
    from, and its value per scope key."""
    names = _scope_names("all")
    rows = []
    for p in PARAMETERS:
        values = "<br>".join(f"{names[k]}: {_parameter_value(p, cal.values[(p.name, k)], k, k in p.fixed)}"
                             + (" (held at the prior)" if k in p.fixed else "") for k in scopes(p))
        if p.fixed:
            values += f"<br>Held: {p.why_fixed}."
        scope = "shared" if p.scope == "global" else f"per {p.scope}"
        bands = _band(p) if not p.per_key else "; ".join(f"{names[k]} {_band(p, k)}" for k in scopes(p))
        band_text = f"{bands}: {p.prior}"
        rows.append([f"`{p.name}`", p.meaning, scope, band_text, values])
    return table(["parameter", "meaning", "scope", "prior and band", "fitted values"], rows, "lllll")


def _edge_words(entry: str) -> str:
    """calibrate's "bw_fraction blackwell" as "`bw_fraction` (Blackwell)"."""
    name, key = entry.split(" ", 1)
    return f"`{name}` ({_scope_names('shared').get(key, key)})"


# What each kind of reason a run is left out for (by how its words begin; measured.py and fitting.py write
# them) means for the model. A reason with no entry here shows without an explanation.
LEFT_OUT_MEANS = {
    "disaggregated": "prefill and decode on separate pools of nodes: a different system from the one replica "
                     "the model simulates",
    "the weights leave no KV pool": "as the model counts the engine's memory share, nothing is left for the "
                                    "cache: there is no replica to simulate (the engine itself ran, so the model's "
                                    "count of that memory is the one to question)",
    "speculative decoding": "a draft model proposes tokens the step verifies: a step the model does not price",
    "engine": "an engine without a profile in engines.toml",
    "GPU": "a GPU outside the four families the parameters are fitted per",
}


def left_out(cal: Calibration) -> list[SimpleNamespace]:
    """Each reason runs were left out for, how many, and what it means for the model ("" when unknown)."""
    return [SimpleNamespace(why=t["why"], count=int(t["count"]),
                            means=next((m for start, m in LEFT_OUT_MEANS.items() if t["why"].startswith(start)), ""))
            for t in cal.raw.get("left_out", {}).values()]


def worst_table(rows: Sequence[v.Checked]) -> tuple[str, list[v.Checked]]:
    """The worst cross-validated predictions of each drawn metric, and the runs named."""
    out, named = [], []
    for metric in v.PREDICTED[:3]:
        for c in v.worst(rows, metric, WORST_PER_METRIC):
            named.append(c)
            out.append([series_words(c.run), fmt.count(c.run.concurrency), METRIC_WORDS[metric],
                        _value(metric, c.measured(metric)), _value(metric, c.cv[metric]),
                        fmt.times(c.ratio(metric), 2)])
    return table(["series", "concurrency", "figure", "measured", "predicted", "predicted ÷ measured"], out,
                 "lrlrrr"), named


def _share(n: int, total: int) -> str:
    return "all" if n == total else fmt.count(n)


def worst_pattern(named: Sequence[v.Checked], rows: Sequence[v.Checked]) -> str:
    """What the worst misses have in common, in words: their most common engine and GPU."""
    def most(key: Callable[[v.Checked], str]) -> tuple[str, int]:
        counts = {k: sum(1 for c in named if key(c) == k) for k in {key(c) for c in named}}
        top = max(sorted(counts), key=lambda k: counts[k])
        return top, counts[top]

    engine, n_engine = most(lambda c: c.run.engine)
    gpu, n_gpu = most(lambda c: c.run.gpu)
    series = {c.run.series for c in named}
    upper = sum(1 for c in named if c.run.concurrency >= _median_concurrency(c.run.series, rows))
    return (f"of these {len(named)}, {_share(n_engine, len(named))} run on {engines()[engine]['name']} and "
            f"{_share(n_gpu, len(named))} on the {get_gpu(gpu).name}; they come from {len(series)} series, and "
            f"{_share(upper, len(named))} sit at or above the middle concurrency of their series")


def _median_concurrency(series: str, rows: Sequence[v.Checked]) -> float:
    """The middle of a series' concurrencies (the mean of the two middle ones for an even count)."""
    cs = sorted(c.run.concurrency for c in rows if c.run.series == series)
    return (cs[(len(cs) - 1) // 2] + cs[len(cs) // 2]) / 2


def weakest_gpu(rows: Sequence[v.Checked]) -> SimpleNamespace:
    """The GPU whose median TPOT the model predicts worst (fewest within its tolerance, then the larger log
    error)."""
    scored = {gpu: v.summary(group) for gpu, group in v.groups(rows, lambda c: c.run.gpu).items()}
    gpu = min(scored, key=lambda g: (scored[g]["tpot_within_15pct"], -scored[g]["tpot_median_abs_log_error"]))
    return SimpleNamespace(name=get_gpu(gpu).name, runs=scored[gpu]["runs"], share=scored[gpu]["tpot_within_15pct"],
                           error=scored[gpu]["tpot_median_abs_log_error"])


def fixed_cost_example(rows: Sequence[v.Checked]) -> SimpleNamespace:
    """The run at the smallest concurrency that the floor misses by the most: its measured and predicted
    TPOT, its floor, and the fitted fixed cost of its step."""
    low = min(c.run.concurrency for c in rows)
    c = max((c for c in rows if c.run.concurrency == low and c.floor.tpot_s is not None),
            key=lambda c: c.floor_ratio("median_tpot_s"))
    return SimpleNamespace(series=series_words(c.run), concurrency=c.run.concurrency, measured=c.run.median_tpot_s,
                           predicted=c.cv["median_tpot_s"], floor=c.floor.tpot_s, fixed=v.fixed_step_s(c.run),
                           ratio=c.floor_ratio("median_tpot_s"))


def _ends(rows: Sequence[v.Checked], key: Callable[[v.Checked], int]) -> tuple[int, int, float | None, float | None]:
    """The smallest and largest value of `key` and the median measured TPOT ÷ floor of the runs at each."""
    by = v.groups(rows, key)
    low, high = min(by), max(by)
    return low, high, v.median_floor_ratio(by[low], "median_tpot_s"), v.median_floor_ratio(by[high], "median_tpot_s")


def _gap(low: float | None, high: float | None) -> tuple[str, str]:
    return tuple("—" if x is None else fmt.times(x, 2) for x in (low, high))


def _grows_with_tp(rows: Sequence[v.Checked]) -> Assumption:
    """The teaching claim: the wider the tensor-parallel group, the further its runs from their floor (the
    median measured TPOT ÷ floor rises with every step up in TP size)."""
    by_tp = v.groups(rows, lambda c: c.run.tp)
    gaps = {tp: v.median_floor_ratio(group, "median_tpot_s") for tp, group in by_tp.items()}
    known = [g for g in gaps.values() if g is not None]
    rises = len(known) == len(gaps) and all(a < b for a, b in zip(known, known[1:]))
    evidence = "median measured TPOT ÷ floor " + ", ".join(
        f"{'—' if g is None else fmt.times(g, 2)} at TP{tp}" for tp, g in gaps.items())
    return assume(rises, evidence, "say which tensor-parallel sizes the floor misses by more")


def floor_gaps(rows: Sequence[v.Checked]) -> dict[str, object]:
    """What the floor leaves out: measured ÷ floor overall, at the ends of concurrency and of TP size, an
    example of the fixed costs, and the teaching claims resting on them."""
    low_c, high_c, floor_low, floor_high = _ends(rows, lambda c: c.run.concurrency)
    tp_low, tp_high, floor_tp_low, floor_tp_high = _ends(rows, lambda c: c.run.tp)
    by_c = _gap(floor_low, floor_high)
    known = None not in (floor_low, floor_high)
    e = fixed_cost_example(rows)
    eta = DEFAULT_EFFICIENCY
    ttft = v.median_floor_ratio(rows, "median_ttft_s")  # > 2: the prefill is less than half of what was measured
    return dict(
        low_c=low_c, high_c=high_c, floor_low=floor_low, floor_high=floor_high,
        tp_low=tp_low, tp_high=tp_high, floor_tp_low=floor_tp_low, floor_tp_high=floor_tp_high, example=e,
        tpot_floor=v.median_floor_ratio(rows, "median_tpot_s"), ttft_floor=ttft,
        output_floor=v.median_floor_ratio(rows, "output_tokens_per_s_per_gpu"),
        floor_shrinks=assume(known and floor_low > floor_high,
                             f"median measured TPOT ÷ floor {by_c[0]} at concurrency {low_c}, {by_c[1]} at {high_c}",
                             "say the floor is no further from the measurement at small batch than at large"),
        eta_between=assume(known and floor_low > 1 / eta > floor_high,
                           f"floor ÷ {fmt.num(eta)} is {fmt.times(1 / eta, 2)} the floor; the runs take {by_c[0]} "
                           f"at concurrency {low_c}, {by_c[1]} at {high_c}",
                           "say which side of the runs the one efficiency falls on at each end"),
        floor_grows_with_tp=_grows_with_tp(rows),
        ttft_mostly_waiting=assume(ttft is not None and ttft > 2, f"median measured TTFT ÷ its prefill floor "
                                   f"{'—' if ttft is None else fmt.times(ttft, 2)}",
                                   "say how much of the time to first token the prefill floor accounts for"),
        fixed_exceeds_floor=assume(e.fixed > e.floor, f"fitted fixed cost {fmt.ms(e.fixed)}, floor {fmt.ms(e.floor)}",
                                   "say the fixed cost is a part of the step, not more than its whole floor"),
    )


def stalled_runs(runs: Sequence[Run]) -> SimpleNamespace:
    """The runs whose throughput counts a wait their medians do not see (measured.Run.stalled): their latencies are
    fitted and scored, their throughput is not. How many, the range of their p99 TTFT and of their throughput over
    what their medians give, and the setups they come from."""
    stalled = [r for r in runs if r.stalled]
    shares = [r.output_tokens_per_s_per_gpu / r.little_output_per_gpu for r in stalled] or [0.0]
    waits = [r.p99_ttft_s for r in stalled] or [0.0]
    return SimpleNamespace(
        count=len(stalled), ttft_over_median=STALL_TTFT_OVER_MEDIAN, throughput_share=STALL_THROUGHPUT_SHARE,
        p99_ttft_s=(min(waits), max(waits)), share=(min(shares), max(shares)),
        setups=listed(sorted({f"{get_model(r.model).name} on {get_gpu(r.gpu).name} under "
                              f"{engines()[r.engine]['name']}" for r in stalled})) if stalled else "")


def model(cal: Calibration | None = None, rows: Sequence[v.Checked] | None = None) -> SimpleNamespace:
    cal = cal or calibration()
    rows = list(rows if rows is not None else v.checked())
    data = cal.raw.get("data", {})
    ts = targets(rows)
    worst, named = worst_table(rows)
    dropped = left_out(cal)
    return SimpleNamespace(
        # the data and how it was cross-validated
        runs=len(rows) + sum(d.count for d in dropped), fitted=len(rows),
        series=len({c.run.series for c in rows}),
        gpus=", ".join(get_gpu(g).name for g in sorted({c.run.gpu for c in rows})),
        date=data.get("date", ""), cross_validation=data.get("cross_validation", ""),
        series_definition=data.get("series_definition", ""),
        # the targets
        targets=ts, targets_table=targets_table(ts), verdict=verdict(ts), met=sum(t.met for t in ts),
        tpot_tolerance=tolerance_words(target("tpot_within_15pct").factor),
        cv=v.summary(rows), planned=v.planned_summary(rows), eta=DEFAULT_EFFICIENCY, weakest=weakest_gpu(rows),
        # residuals by group
        gpu_table=residual_table(rows, lambda c: c.run.gpu, "GPU", lambda k: get_gpu(str(k)).name),
        tp_table=residual_table(rows, lambda c: c.run.tp, "TP size", lambda k: f"TP{k}"),
        concurrency_table=residual_table(rows, lambda c: c.run.concurrency, "concurrency", lambda k: fmt.count(k)),
        # what the floor leaves out
        **floor_gaps(rows),
        # the fit, what was left out, the worst misses
        parameters_table=parameters_table(cal), parameter_count=len(fitted_slots()),
        held_count=len(cal.values) - len(fitted_slots()), ident=identification(cal),
        at_edge=[SimpleNamespace(words=_edge_words(e), edge=side, finding=says) for e, side, says in findings(cal)],
        left_out=dropped,
        left_out_table=table(["why", "runs", "what it means for the model"],
                             [[d.why, fmt.count(d.count), d.means] for d in dropped], "lrl"),
        worst_table=worst, worst_pattern=worst_pattern(named, rows), worst_per_metric=WORST_PER_METRIC,
        # runs whose throughput counts a wait their medians do not see: latencies scored, throughput not
        stalled=stalled_runs([c.run for c in rows]),
    )
