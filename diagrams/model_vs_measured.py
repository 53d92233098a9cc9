"""Predicted against measured on log axes, one variant per figure (median TPOT, median TTFT, output tokens/s
per GPU): each fitted run's cross-validated prediction (filled, by GPU) and its roofline floor (hollow, grey),
against the diagonal where prediction equals measurement and the band of the issue's target. What the floor
leaves out is the gap between the grey points and the diagonal (engine/calibration/report.py; the band's
words come from the page model, so the drawing and the page say the same)."""

from __future__ import annotations

import math
from pathlib import Path

from macros.engine.calibration import report as v
from macros.engine.model.scenario import get_gpu
from macros.site.build.drawings import shared
from macros.site.pages import model_vs_measured as page
from macros.text import fmt

PREPARE = (v.checked,)  # the fitted runs with their floors, shared with floor_gap and the page

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
# variant -> (the metric, its axis label, its unit's scale, the target whose tolerance is the band)
PANELS = {
    "tpot": ("median_tpot_s", "median TPOT (ms)", 1e3, "tpot_within_15pct"),
    "ttft": ("median_ttft_s", "median TTFT (ms)", 1e3, "ttft_within_factor_1_5"),
    "output": ("output_tokens_per_s_per_gpu", "output tokens/s per GPU", 1.0, "output_per_gpu_within_15pct"),
}
FLOOR_C = "#9aa5b1"


def VARIANTS() -> list[str]:
    return list(PANELS)


def _panel(variant: str | None) -> tuple[str, str, float, float]:
    metric, label, scale, key = PANELS[variant or "tpot"]
    return metric, label, scale, page.target(key).factor


def ALT(variant: str | None = None) -> str:
    metric, label, _, factor = _panel(variant)
    rows, stalled = _scored(metric)
    inside = sum(1 for c in rows if 1 / factor <= c.ratio(metric) <= factor)
    floor = v.median_floor_ratio(rows, metric)
    below = "" if floor is None else (f" The floor's points sit a median {fmt.times(floor, 2)} faster than the "
                                      "measurement, on the fast side of the diagonal.")
    crosses = "" if not stalled else (f" Crosses mark {len(stalled)} runs that stalled, drawn at the throughput they "
                                      "reported and not scored.")
    return (f"Scatter on log axes of {label} for {len(rows)} measured runs: measured across, predicted up, one "
            f"colour per GPU, with the diagonal where they agree and a band of {page.tolerance_words(factor)} "
            "around it. "
            f"{inside} of the {len(rows)} cross-validated predictions fall inside the band.{below}{crosses}")


def _scored(metric: str) -> tuple[list[v.Checked], list[v.Checked]]:
    """(the runs scored on `metric`, the runs that stalled: a throughput no steady-state model has, not scored)."""
    rows = v.checked()
    return ([c for c in rows if math.isfinite(c.measured(metric))],
            [c for c in rows if not math.isfinite(c.measured(metric))])


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    from matplotlib import ticker

    metric, label, scale, factor = _panel(variant)
    rows, stalled = _scored(metric)
    size = (st.inches(), 4.3) if not st.NARROW else (st.inches(), 4.0)
    fig, ax = plt.subplots(figsize=size)
    floors = [(c.measured(metric) * scale, f * scale) for c in rows if (f := c.floor.get(metric)) is not None]
    ax.scatter([m for m, _ in floors], [f for _, f in floors], s=14, facecolors="none", edgecolors=FLOOR_C, lw=0.8,
               label="roofline floor of the same run", zorder=2)
    palette = plt.get_cmap("tab10").colors
    for i, (gpu, group) in enumerate(v.groups(rows, lambda c: c.run.gpu).items()):
        ax.scatter([c.measured(metric) * scale for c in group], [c.cv[metric] * scale for c in group], s=12,
                   color=palette[i], alpha=0.85, lw=0, label=f"model, {get_gpu(str(gpu)).name}", zorder=3)
    reported = [(c.run.output_tokens_per_s_per_gpu * scale, c.cv[metric] * scale) for c in stalled]
    if reported:
        ax.scatter([m for m, _ in reported], [p for _, p in reported], s=16, marker="x", color=FLOOR_C, lw=0.9,
                   label="stalled run, as reported (not scored)", zorder=3)
    values = ([x for c in rows for x in (c.measured(metric) * scale, c.cv[metric] * scale)] + [f for _, f in floors]
              + [x for pair in reported for x in pair])
    low, high = min(values) / 1.3, max(values) * 1.3
    line = [low, high]
    ax.plot(line, line, color=st.INK, lw=1, zorder=1, label="prediction = measurement")
    ax.fill_between(line, [x / factor for x in line], [x * factor for x in line], color="#e4e7eb", lw=0, zorder=0,
                    label=f"target band, {page.tolerance_words(factor)}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_aspect("equal")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: fmt.num(x)))
        axis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel(f"measured {label}")
    ax.set_ylabel(f"predicted {label}")
    st.finish_log_chart(fig, ax, out)
