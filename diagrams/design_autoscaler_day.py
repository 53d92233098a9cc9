"""The autoscaler design's day, minute by minute (five-minute bins), under the three policies scaling on
queue depth: offered load, the capacity the serving replicas have within the SLO, what admission control
sheds (left axis, requests/s), and the replicas serving and warm in the pool (right axis). From the page
model macros/site/pages/design_autoscaler_day.py."""

from __future__ import annotations

from pathlib import Path

from macros.engine.autoscale.fluid import POLICIES
from macros.site.build.drawings import shared
from macros.site.pages import design_autoscaler_day as day
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
DESIGNS = (day.SLUG,)  # the workload file drawn: part of the drawing's cache key
PREPARE = (day.model,)  # the simulated day, shared with the page and forecast_band
CLAIMS = ("instance-acquisition", "nic-bandwidth")  # the cold start's allocation; the reservation's page model
OFFERED_C, CAPACITY_C, SHED_C, REPLICAS_C, WARM_C = "#1f2933", "#2b6cb0", "#d64545", "#7b8794", "#2f9e6f"


def ALT(variant: str | None = None) -> str:
    q = day.model()
    runs = "; ".join(f"{day.NAMES[p]}: {fmt.count(q.policies[p].run.slo_violation_minutes)} minutes over the SLO, "
                     f"{fmt.count(q.policies[p].run.gpu_hours)} GPU-hours" for p in POLICIES)
    return (f"Three stacked charts of one day of the {q.w.name} workload, one per scaling policy on queue depth: "
            f"offered requests per second with its bursts and the afternoon's longer prompts, the capacity the "
            f"serving replicas have within the SLO, the requests shed, and the replicas serving and warm. {runs}.")


def render(out: Path, variant: str | None = None) -> None:
    q = day.model()
    plt = st.pyplot()
    fig, axes = plt.subplots(len(POLICIES), 1, figsize=(st.inches(), st.either(6.6, 8.4)), sharex=True)
    for ax, policy in zip(axes, POLICIES):
        s = q.series[policy]
        ax.plot(s.hours, s.offered, color=OFFERED_C, lw=1.0, label="offered (requests/s)")
        ax.plot(s.hours, s.capacity, color=CAPACITY_C, lw=1.0, label="capacity within the SLO")
        ax.fill_between(s.hours, 0, s.shed, color=SHED_C, lw=0, alpha=0.8, label="shed (requests/s)")
        ax.set_ylim(0, None)
        ax.set_ylabel("requests/s")
        right = ax.twinx()
        right.plot(s.hours, s.replicas, color=REPLICAS_C, lw=0.9, ls="--", label="replicas serving")
        if policy == "warm-pool":
            right.plot(s.hours, s.warm, color=WARM_C, lw=0.9, ls=":", label="warm pool")
        right.set_ylim(0, None)
        right.set_ylabel("replicas", color=REPLICAS_C)
        right.spines["right"].set_visible(True)
        r = q.policies[policy].run
        ax.set_title(f"{day.NAMES[policy]}: {fmt.count(r.slo_violation_minutes)} minutes over the SLO, "
                     f"{fmt.count(r.gpu_hours)} GPU-hours", fontsize=st.pt(10.5), loc="left")
        ax.grid(True, color="#e4e7eb", lw=0.6)
    axes[-1].set_xlim(0, 24)
    axes[-1].set_xticks(range(0, 25, st.either(3, 6)))
    axes[-1].set_xlabel("hour of the day")
    handles, labels = [], []
    for a in (axes[-1], axes[-1].figure.axes[-1]):
        h, lab = a.get_legend_handles_labels()
        handles += h
        labels += lab
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=st.either(3, 2),
               fontsize=st.pt(9), frameon=False)
    fig.tight_layout()
    st.save_svg(fig, out)
