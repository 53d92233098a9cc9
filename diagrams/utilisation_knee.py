"""The utilisation knee from the serving simulator (chapter 6.4): the anchor sweep of engine/serving/sweep.py
(the Load explorer's replica and lengths, Poisson arrivals). Left: p50 and p99 TTFT against utilisation
(requests served over the replica's capacity), with the knee's limit (KNEE_FACTOR times the lightest rate's
p99) and the knee marked. Right: requests served against requests offered: throughput follows the arrivals
until the capacity, then stops, while the queue keeps growing."""

from __future__ import annotations

from pathlib import Path

from macros.engine.lookup import get_gpu, get_model
from macros.site.build.drawings import shared
from macros.site.pages._sweep import anchor_sweep, knee_figures
from macros.text import fmt

PREPARE = (anchor_sweep,)  # the simulated sweep, shared with latency_load and the pages

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py): the panels stack


def ALT(variant: str | None = None) -> str:
    k = knee_figures()
    start = k.sweep.start
    text = (f"Simulated time to first token against utilisation for {get_model(start['model']).name} on "
            f"{start['gpus']} × {get_gpu(start['gpu']).name}: at the lightest rate p99 TTFT is "
            f"{fmt.ms(k.light.ttft_p99_s)}, so the knee's limit is {fmt.num(k.factor)} times that, "
            f"{fmt.ms(k.limit_s)}.")
    if k.knee is not None:
        text += (f" The knee is at {fmt.pct(k.knee.utilisation)} utilisation (p99 TTFT {fmt.ms(k.knee.ttft_p99_s)}, "
                 f"p50 {fmt.ms(k.knee.ttft_p50_s)}).")
    text += (f" At the heaviest rate, {fmt.num(k.heavy.rate_per_s)} requests/s offered, the replica serves "
             f"{fmt.num(k.heavy.requests_per_s)} and p99 TTFT is {fmt.seconds(k.heavy.ttft_p99_s)}.")
    return text


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    k = knee_figures()
    points = k.sweep.points
    rho = [p.utilisation for p in points]
    fig, (ttft, served) = st.subplots(plt, 3.4, panels=2, narrow_height=3.2)
    note = {"textcoords": "offset points", "fontsize": st.pt(8.5), "color": st.INK,
            "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 1}}
    ttft.plot(rho, [p.ttft_p50_s for p in points], color=st.PREFILL_C, lw=1.8, marker="o", ms=3.5, label="TTFT p50")
    ttft.plot(rho, [p.ttft_p99_s for p in points], color=st.PREFILL_C, lw=1.8, ls="--", marker="o", ms=3.5,
              label="TTFT p99")
    ttft.axhline(k.limit_s, color=st.EDGE, lw=0.9, ls=":")
    ttft.annotate(f"{fmt.num(k.factor)} × the lightest p99", (0, k.limit_s), xytext=(3, 4), ha="left", **note)
    if k.knee is not None:
        ttft.plot([k.knee.utilisation], [k.knee.ttft_p99_s], marker="o", ms=8, mfc="white", color=st.INK)
        ttft.annotate(f"knee: {fmt.pct(k.knee.utilisation)}", (k.knee.utilisation, k.knee.ttft_p99_s),
                      xytext=(8, -3), ha="left", va="center", **note)
    ttft.yaxis.set_major_formatter(lambda v, _: "0" if v == 0 else fmt.seconds(v, 2))
    ttft.set_xlabel("utilisation (served / capacity)")
    ttft.set_ylabel("time to first token")
    ttft.set_title("TTFT against utilisation", fontsize=st.pt(10.5))
    ttft.legend(fontsize=st.pt(8.5), frameon=False, loc="upper left")
    offered = [p.rate_per_s for p in points]
    served.plot(offered, offered, color=st.EDGE, lw=0.9, ls=":", label="served = offered")
    served.plot(offered, [p.requests_per_s for p in points], color=st.DECODE_C, lw=1.8, marker="o", ms=3.5,
                label="served")
    served.axvline(k.sweep.capacity_per_s, color=st.EDGE, lw=0.9, ls="-.")
    served.annotate("capacity", (k.sweep.capacity_per_s, 0), xytext=(-3, 6), ha="right", **note)
    served.set_xlabel("requests/s offered")
    served.set_ylabel("requests/s served")
    served.set_title("throughput against arrivals", fontsize=st.pt(10.5))
    served.legend(fontsize=st.pt(8.5), frameon=False, loc="upper left")
    for ax in (ttft, served):
        ax.set_xlim(0, None)
        ax.set_ylim(0, None)
        ax.grid(True, color="#e4e7eb", lw=0.6)
    fig.tight_layout()
    st.save_svg(fig, out)
