"""Latency against load from the serving simulator: the anchor replica (data/workloads.toml's load_*
inputs, the worked prompt) under an open-loop Poisson stream at each rate of engine/serving/sweep.py.
Left: p50 and p99 TTFT and TPOT against the replica's output tokens/s, with the consumer-chat design's TPOT
target and the knee. Right: the same runs as per-user speed (1 / TPOT, median and slowest 1%) against the
replica's output tokens/s, each point labelled with its mean batch (live sequences, by Little's law)."""

from __future__ import annotations

from pathlib import Path

from macros.engine.fleet.workload_file import design
from macros.engine.lookup import get_gpu, get_model
from macros.engine.serving.sweep import KNEE_FACTOR
from macros.site.build.drawings import shared
from macros.site.pages._sweep import LoadFigures, anchor_sweep, load_figures, replica_tokens_per_s
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py): the panels stack
DESIGNS = ("consumer-chat",)  # its TPOT target is the dotted line: part of this drawing's cache key
PREPARE = (anchor_sweep,)  # the simulated sweep, shared with utilisation_knee and the pages


def figures() -> LoadFigures:
    return load_figures(design(DESIGNS[0])[0].tpot_s)


def _replica(x: LoadFigures) -> str:
    start = x.sweep.start
    return f"{get_model(start['model']).name} on {start['gpus']} × {get_gpu(start['gpu']).name}"


def ALT(variant: str | None = None) -> str:
    x = figures()
    start, light, heavy = x.sweep.start, x.light, x.heavy
    text = (f"Simulated latency against load for {_replica(x)}, {fmt.count(start['input_tokens'])}-token prompts and "
            f"{fmt.count(start['output_tokens'])}-token replies arriving as a Poisson stream. At the lightest rate "
            f"(mean batch {fmt.num(light.mean_batch, 2)}) TTFT is {fmt.ms(light.ttft_p50_s)} at p50 and "
            f"{fmt.ms(light.ttft_p99_s)} at p99, TPOT {fmt.ms(light.tpot_p50_s)} and {fmt.ms(light.tpot_p99_s)}. "
            f"At the heaviest (mean batch {fmt.num(heavy.mean_batch, 2)}) TTFT is {fmt.seconds(heavy.ttft_p50_s)} "
            f"and {fmt.seconds(heavy.ttft_p99_s)}, TPOT {fmt.ms(heavy.tpot_p50_s)} and {fmt.ms(heavy.tpot_p99_s)}.")
    if x.within_tpot is not None:
        text += (f" p99 TPOT stays within the {fmt.ms(x.tpot_target_s)} target up to "
                 f"{fmt.tokens_per_s(replica_tokens_per_s(x.within_tpot, x.gpus))} (mean batch "
                 f"{fmt.num(x.within_tpot.mean_batch, 2)}).")
    if x.knee is not None:
        text += (f" The knee, the last rate before p99 TTFT passes {fmt.num(KNEE_FACTOR)} times its lightest "
                 f"value, is at {fmt.pct(x.knee.utilisation)} of capacity.")
    return text


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    x = figures()
    points = x.sweep.points
    load = [replica_tokens_per_s(p, x.gpus) for p in points]
    fig, (lat, speed) = st.subplots(plt, 3.6, panels=2, narrow_height=3.3)
    note = {"textcoords": "offset points", "fontsize": st.pt(8.5), "color": st.INK,
            "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 1}}
    ms = 1e3
    for values, colour, style, label in (
            ([p.ttft_p50_s * ms for p in points], st.PREFILL_C, "-", "TTFT p50"),
            ([p.ttft_p99_s * ms for p in points], st.PREFILL_C, "--", "TTFT p99"),
            ([p.tpot_p50_s * ms for p in points], st.DECODE_C, "-", "TPOT p50"),
            ([p.tpot_p99_s * ms for p in points], st.DECODE_C, "--", "TPOT p99")):
        lat.plot(load, values, color=colour, ls=style, lw=1.8, marker="o", ms=3.5, label=label)
    lat.set_yscale("log")
    lat.yaxis.set_major_formatter(lambda v, _: fmt.ms(v / ms, 2))
    lat.axhline(x.tpot_target_s * ms, color=st.EDGE, lw=0.9, ls=":")
    lat.annotate("TPOT target", (0, x.tpot_target_s * ms), xytext=(3, 4), ha="left", **note)
    if x.knee is not None:
        knee_load = replica_tokens_per_s(x.knee, x.gpus)
        lat.axvline(knee_load, color=st.EDGE, lw=0.9, ls="-.")
        lat.annotate("knee", (knee_load, x.knee.ttft_p99_s * ms), xytext=(-4, 8), ha="right", **note)
    lat.set_ylabel("latency (log scale)")
    lat.set_title("TTFT and TPOT against load", fontsize=st.pt(10.5))
    lat.legend(fontsize=st.pt(8.5), frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    speed.plot(load, [1 / p.tpot_p50_s for p in points], color=st.DECODE_C, lw=1.8, marker="o", ms=3.5,
               label="median user")
    speed.plot(load, [1 / p.tpot_p99_s for p in points], color=st.DECODE_C, lw=1.8, ls="--", marker="o", ms=3.5,
               label="slowest 1% (p99 TPOT)")
    speed.axhline(1 / x.tpot_target_s, color=st.EDGE, lw=0.9, ls=":")
    marked = {id(p): p for p in (x.light, x.knee, x.within_tpot, x.heavy) if p is not None}
    for p in marked.values():
        at = (replica_tokens_per_s(p, x.gpus), 1 / p.tpot_p50_s)
        last = p is x.heavy  # at the right edge: its label goes to the left
        speed.annotate(f"batch {fmt.num(p.mean_batch, 2)}", at, xytext=(-2, 40) if last else (4, 5),
                       ha="right" if last else "left", arrowprops={"arrowstyle": "-", "color": st.EDGE, "lw": 0.7}
                       if last else None, **note)
    speed.set_ylim(0, 1.15 / points[0].tpot_p50_s)
    speed.set_ylabel("tokens/s per user")
    speed.set_title("per-user speed against load", fontsize=st.pt(10.5))
    speed.annotate("TPOT target", (0, 1 / x.tpot_target_s), xytext=(3, 4), ha="left", **note)
    speed.legend(fontsize=st.pt(8.5), frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
    for ax in (lat, speed):
        ax.set_xlabel("replica output tokens/s")
        ax.set_xlim(0, load[-1] * 1.08)
        ax.xaxis.set_major_formatter(lambda v, _: fmt.count(v))
        ax.grid(True, color="#e4e7eb", lw=0.6)
    fig.tight_layout()
    st.save_svg(fig, out)
