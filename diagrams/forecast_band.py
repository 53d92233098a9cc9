"""Chapter 6.3: the forecast with its error band and the warm pool it implies, on the autoscaler design's day
under the warm-pool policy (five-minute bins, from macros/site/pages/autoscaling.py's forecast_band). Top: the
offered requests/s, the forecast, and the band up to the forecast's error on a backtest day. Bottom: the
replicas serving and the warm pool held on top of them."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import autoscaling, design_autoscaler_day
from macros.site.pages.design_autoscaler_day import SLUG
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
DESIGNS = (SLUG,)  # the workload file drawn: part of the drawing's cache key
PREPARE = (design_autoscaler_day.model,)  # the simulated day, shared with the design page
CLAIMS = ("instance-acquisition", "nic-bandwidth")  # the day's cold start; the reservation's page model
WARM_C = "#2f9e6f"


def ALT(variant: str | None = None) -> str:
    b = autoscaling.forecast_band()
    return (f"One day of the {b.name} workload under the warm-pool policy. Top: offered requests per second with its "
            f"bursts, the forecast (the diurnal curve, peaking at {fmt.num(b.peak_forecast_per_s)} requests/s) and a "
            f"band {fmt.pct(b.error)} above it, the forecast's error at the {b.percentile}th percentile of a "
            f"backtest day's minutes. Bottom: replicas serving and the warm pool on top; at the forecast's peak it "
            f"calls for {b.forecast_replicas} replicas, and the pool holds {b.warm_replicas} more, loaded and idle.")


def render(out: Path, variant: str | None = None) -> None:
    b = autoscaling.forecast_band()
    s = b.series
    plt = st.pyplot()
    fig, (rate, reps) = plt.subplots(2, 1, figsize=(st.inches(), st.either(5.0, 6.0)), sharex=True)
    rate.fill_between(s.hours, b.forecast_binned, b.band_upper, color=st.DECODE_C, alpha=0.18, lw=0,
                      label=f"forecast + {fmt.pct(b.error)} (error band)")
    rate.plot(s.hours, s.offered, color=st.INK, lw=0.8, label="offered")
    rate.plot(s.hours, b.forecast_binned, color=st.DECODE_C, lw=1.8, label="forecast")
    rate.set_ylabel("requests/s")
    rate.set_ylim(0, max(max(b.band_upper), max(s.offered)) * st.either(1.25, 1.55))  # room for the legend
    rate.legend(fontsize=st.pt(8.5), frameon=False, loc="upper left", ncol=st.either(3, 1))
    top = [r + w for r, w in zip(s.replicas, s.warm)]
    reps.fill_between(s.hours, s.replicas, top, color=WARM_C, alpha=0.35, lw=0, label="warm pool")
    reps.plot(s.hours, s.replicas, color=st.MUTED, lw=1.4, label="replicas serving")
    reps.annotate(f"forecast's peak:\n{b.forecast_replicas} replicas\n+ a pool of {b.warm_replicas}",
                  (b.peak_hour, b.forecast_replicas), xytext=(0.03, 0.45), textcoords="axes fraction", ha="left",
                  fontsize=st.pt(8.5), color=st.INK, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
                  arrowprops={"arrowstyle": "->", "color": st.EDGE, "lw": 0.8})
    reps.set_ylabel("replicas")
    reps.set_ylim(0, max(top) * st.either(1.25, 1.4))  # room for the legend
    reps.set_xlabel("hour of the day")
    reps.set_xlim(0, 24)
    reps.set_xticks(range(0, 25, st.either(3, 6)))
    reps.legend(fontsize=st.pt(8.5), frameon=False, loc="upper left", ncol=st.either(2, 1))
    for ax in (rate, reps):
        ax.grid(True, color="#e4e7eb", lw=0.6)
    fig.tight_layout()
    st.save_svg(fig, out)
