"""The cost of a tighter latency target: the planner's fleet for the worked workload against its TPOT
target, one line per GPU (left: GPUs, right: dollars a day), with the workload's own target marked.
Each point is a whole plan (ARCHITECTURE.md) on the replica shape, up to one node, that needs the fewest GPUs."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from macros.engine.fleet.planner import NODE_GPUS, Infeasible, cheapest
from macros.engine.fleet.workload_file import design
from macros.engine.model.scenario import get_gpu
from macros.engine.workloads import workloads
from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
TARGETS_MS = (15, 20, 25, 30, 35, 40, 50, 60, 70, 80, 100, 120, 150, 200)
TICKS_MS = (15, 20, 30, 50, 100, 200)
DESIGNS = (workloads()["planner_design"],)  # the workload file drawn: part of the drawing's cache key


@functools.cache  # the workload file is read once, not once per point of the chart
def _inputs() -> tuple[object, tuple[str, ...]]:
    w = workloads()
    return design(w["planner_design"])[0], w["planner_gpus"]


def fleet(gpu: str, tpot_s: float) -> tuple[int, float | None] | None:
    """(GPUs, dollars a day) for the worked workload on `gpu` at TPOT target `tpot_s`; None when no
    replica shape meets it."""
    w, _ = _inputs()
    p = cheapest(dataclasses.replace(w, gpu=gpu, tpot_s=tpot_s, price_per_gpu_hour=None), NODE_GPUS)
    if isinstance(p, Infeasible):
        return None
    return p.gpus, p.cost_per_day


def ALT(variant: str | None = None) -> str:
    w, gpus = _inputs()
    at = []
    for gpu in gpus:
        point = fleet(gpu, w.tpot_s)
        at.append(f"{get_gpu(gpu).name} {'cannot meet it' if point is None else fmt.count(point[0]) + ' GPUs'}")
    return (f"Fleet size for the {w.name} workload against its time-per-output-token target, from "
            f"{TARGETS_MS[0]} ms to {TARGETS_MS[-1]} ms, one line per GPU: the tighter the target, the smaller the "
            f"batch each replica may run and the more GPUs it takes (each point on the replica of at most "
            f"{NODE_GPUS} GPUs that needs the fewest). At {fmt.ms(w.tpot_s)}: {', '.join(at)}.")


def render(out: Path, variant: str | None = None) -> None:
    w, gpus = _inputs()
    plt = st.pyplot()
    from matplotlib import ticker

    fig, (left, right) = st.subplots(plt, 3.9, panels=2, narrow_height=3.2)
    palette = plt.get_cmap("tab10").colors
    for i, gpu in enumerate(gpus):
        points = [(t, fleet(gpu, t / 1e3)) for t in TARGETS_MS]
        xs = [t for t, p in points if p is not None]
        left.plot(xs, [p[0] for _, p in points if p is not None], marker="o", ms=3, lw=1.6,
                  color=palette[i], label=get_gpu(gpu).name)
        priced = [(t, p[1]) for t, p in points if p is not None and p[1] is not None]
        if priced:
            right.plot([t for t, _ in priced], [c / 1e3 for _, c in priced], marker="o", ms=3, lw=1.6,
                       color=palette[i], label=get_gpu(gpu).name)
    for ax, label in ((left, "GPUs at peak"), (right, "cost at peak (thousand USD a day)")):
        ax.axvline(w.tpot_s * 1e3, color=st.EDGE, lw=0.9, ls=":")
        ax.annotate(f"target {fmt.ms(w.tpot_s)}", (w.tpot_s * 1e3, 1), xycoords=("data", "axes fraction"),
                    xytext=(4, -12), textcoords="offset points", fontsize=st.pt(8.5), color=st.MUTED)
        ax.set_xscale("log")
        ax.set_xticks(TICKS_MS, [str(t) for t in TICKS_MS])
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_ylim(0, None)
        ax.set_xlabel("TPOT target (ms per output token)")
        ax.set_ylabel(label)
        ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    left.set_title("GPUs needed", fontsize=st.pt(10.5))
    right.set_title("what it costs (dated typical prices)", fontsize=st.pt(10.5))
    fig.legend(*left.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=st.either(len(gpus), 2), fontsize=st.pt(9), frameon=False)
    fig.tight_layout()
    st.save_svg(fig, out)
