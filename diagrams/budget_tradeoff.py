"""The token budget as a trade-off, from the serving simulator: the consumer-chat design's answer (its replicas and
shape) run at each budget the planner tries. Left: the p95 gap between tokens, which a larger budget lengthens
(a step that carries a long prefill chunk stalls every stream in it); right: the p95 time to first token, which a
smaller budget lengthens (a prompt in small chunks waits many steps). Dotted: the design's targets; the ringed
point is the budget the answer runs (macros/site/pages/_budget.py)."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages._budget import budgets
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py): the panels stack
DESIGNS = ("consumer-chat",)  # the workload file drawn: part of the drawing's cache key


def ALT(variant: str | None = None) -> str:
    x = budgets()
    points = "; ".join(f"{fmt.count(r.budget)} tokens: gap {fmt.ms(r.itl_p95_s)}, TTFT {fmt.seconds(r.ttft_p95_s)}"
                       for r in x.rows)
    return (f"The token budget per step against the two tails it trades, simulated for the consumer-chat design's "
            f"answer ({fmt.count(x.answer.replicas)} replicas of {x.answer.gpus_per_replica} GPUs at the peak), p95 "
            f"of each: {points}. Targets: gap {fmt.ms(x.itl_target_s)}, TTFT {fmt.seconds(x.ttft_target_s)}; "
            f"{x.words}.")


def render(out: Path, variant: str | None = None) -> None:
    x = budgets()
    plt = st.pyplot()
    from matplotlib import ticker

    fig, (left, right) = st.subplots(plt, 3.6, panels=2, narrow_height=3.0)
    colour = plt.get_cmap("tab10").colors[0]
    xs = [r.budget for r in x.rows]
    for ax, key, target, title, label in (
            (left, "itl_p95_s", x.itl_target_s, "the gap between tokens", "p95 gap between tokens (ms)"),
            (right, "ttft_p95_s", x.ttft_target_s, "the time to first token", "p95 TTFT (ms)")):
        ys = [getattr(r, key) * 1e3 for r in x.rows]
        ax.plot(xs, ys, marker="o", ms=3.5, lw=1.6, color=colour)
        ax.plot([x.chosen.budget], [getattr(x.chosen, key) * 1e3], marker="o", ms=9, mfc="none", mew=1.4,
                color=st.EDGE, ls="none")
        if target is not None:
            ax.axhline(target * 1e3, color=st.EDGE, lw=0.9, ls=":")
            # at the left, where the curve is far from the line on both panels (short gaps, long TTFTs)
            ax.annotate(f"target {fmt.ms(target)}", (0, target * 1e3), xycoords=("axes fraction", "data"),
                        xytext=(4, 3), textcoords="offset points", ha="left", fontsize=st.pt(8.5), color=st.MUTED)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [fmt.count(b) for b in xs])
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("token budget per step")
        ax.set_ylabel(label)
        ax.set_title(title, fontsize=st.pt(10.5))
        ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    right.set_yscale("log")
    right.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    left.set_ylim(0, None)
    fig.tight_layout()
    st.save_svg(fig, out)
