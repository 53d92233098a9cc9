"""How many times its roofline floor each measured run's median TPOT took, against concurrency: one thin line per
series (one setup across its concurrencies), coloured by TP size, the median per TP size thick, and the
chapters' one efficiency (floor ÷ η) as a dashed level. Fixed costs per step make small batches and wide
tensor-parallel groups sit far above the floor; the gap narrows as the batch shares them
(engine/calibration/report.py)."""

from __future__ import annotations

from pathlib import Path

from macros.engine.calibration import report as v
from macros.engine.model.scenario import DEFAULT_EFFICIENCY
from macros.site.build.drawings import shared
from macros.text import fmt

PREPARE = (v.checked,)  # the fitted runs with their floors, shared with model_vs_measured

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
METRIC = "median_tpot_s"


def _lines() -> dict[int, list[list[tuple[int, float]]]]:
    """TP size -> one [(concurrency, measured / floor)] per series with a floor at two or more concurrencies."""
    out: dict[int, list[list[tuple[int, float]]]] = {}
    for series in v.groups(v.checked(), lambda c: c.run.series).values():
        points = sorted((c.run.concurrency, r) for c in series if (r := c.floor_ratio(METRIC)) is not None)
        if len(points) > 1:
            out.setdefault(series[0].run.tp, []).append(points)
    return dict(sorted(out.items()))


def _medians(rows: list[v.Checked]) -> list[tuple[int, float]]:
    return [(c, ratio) for c, group in v.groups(rows, lambda c: c.run.concurrency).items()
            if (ratio := v.median_floor_ratio(group, METRIC)) is not None]


def ALT(variant: str | None = None) -> str:
    rows = v.checked()
    by_c = _medians(rows)
    (low_c, low), (high_c, high) = by_c[0], by_c[-1]
    return (f"Measured median time per output token divided by its roofline floor, against concurrency on log axes, "
            f"one line per measured series coloured by tensor-parallel size. The median run takes "
            f"{fmt.times(low, 2)} its floor at concurrency {low_c} and {fmt.times(high, 2)} at {high_c}; a dashed "
            f"level marks {fmt.times(1 / DEFAULT_EFFICIENCY, 2)}, the floor divided by the chapters' efficiency of "
            f"{fmt.pct(DEFAULT_EFFICIENCY)}.")


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    from matplotlib import ticker

    fig, ax = plt.subplots(figsize=(st.inches(), 3.9 if not st.NARROW else 4.2))
    palette = plt.get_cmap("tab10").colors
    rows = v.checked()
    for i, (tp, series) in enumerate(_lines().items()):
        colour = palette[i]
        for points in series:
            ax.plot(*zip(*points, strict=True), color=colour, lw=0.7, alpha=0.35)
        medians = _medians([c for c in rows if c.run.tp == tp])
        ax.plot(*zip(*medians, strict=True), color=colour, lw=2.4, marker="o", ms=4, label=f"TP{tp}, median")
    level = 1 / DEFAULT_EFFICIENCY
    ax.axhline(level, color=st.INK, lw=1.1, ls="--", label=f"floor ÷ {fmt.num(DEFAULT_EFFICIENCY)} (the chapters)")
    ax.axhline(1, color=st.EDGE, lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    concurrencies = sorted({c.run.concurrency for c in rows})
    ax.set_xticks(concurrencies, [fmt.count(c) for c in concurrencies])
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: fmt.times(x)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_ylim(0.8, None)
    ax.set_xlabel("concurrency (requests in flight)")
    ax.set_ylabel("measured TPOT ÷ its floor")
    ax.set_title("How far above its floor each run decoded", fontsize=st.pt(10.5))
    st.finish_log_chart(fig, ax, out)
