"""Chapter 5.4: one decode step of a small batch across tensor-parallel group sizes, from the fitted step model
(engine/serving/step.py's named terms, stacked), with the measured median TPOT of the same setup beside each
group size the InferenceMAX runs measured (macros/site/pages/_tp_scaling.py)."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import _tp_scaling as tp
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
LABELS = {"dense": "dense weights and GEMMs", "experts": "experts", "attention": "attention and KV",
          "communication": "all-reduces", "fixed": "fixed per step, layer, sequence"}
COLOURS = {"dense": st.DECODE_C, "experts": "#7fb3e0", "attention": st.SHARED_C, "communication": st.PREFILL_C,
           "fixed": st.IDLE_C}


def ALT(variant: str | None = None) -> str:
    splits, n = tp.tp_scaling(), tp.names()
    parts = []
    for s in splits:
        c = s.classes_s
        text = (f"TP {s.gpus}: {fmt.ms(s.estimate.step_s)} modelled (fixed {fmt.ms(c['fixed'])}, all-reduces "
                f"{fmt.ms(c['communication'])})")
        if s.measured is not None:
            text += f", {fmt.ms(s.measured.median_tpot_s)} measured"
        parts.append(text)
    return (f"Stacked bars: one decode step of {n['model']} on {n['gpu']} under {n['engine']}, {tp.CONCURRENCY} "
            f"sequences, by tensor-parallel group size, split into the step model's named terms, with the measured "
            f"median TPOT beside each measured size. " + "; ".join(parts) + ". The fixed cost does not shrink with "
            "the group and the all-reduces grow, so past a few GPUs a small step stops getting faster.")


def render(out: Path, variant: str | None = None) -> None:
    splits, n = tp.tp_scaling(), tp.names()
    plt = st.pyplot()
    fig, ax = st.subplots(plt, 3.6, narrow_height=3.6)
    xs = list(range(len(splits)))
    bottom = [0.0] * len(splits)
    for key, label in LABELS.items():
        heights = [s.classes_s[key] * 1e3 for s in splits]
        ax.bar(xs, heights, bottom=bottom, width=0.55, color=COLOURS[key], label=label)
        bottom = [b + h for b, h in zip(bottom, heights)]
    measured = [(x, s.measured.median_tpot_s * 1e3) for x, s in zip(xs, splits) if s.measured is not None]
    ax.plot([x + 0.36 for x, _ in measured], [y for _, y in measured], "D", color=st.INK, ms=6,
            label="measured median TPOT")
    ax.set_xticks(xs, [f"TP {s.gpus}" for s in splits])
    ax.set_ylabel("ms per decode step")
    ax.set_ylim(0, max(bottom) * 1.15)
    ax.set_title(f"{n['model']} on {n['gpu']}, {n['engine']}, {tp.CONCURRENCY} sequences", fontsize=st.pt(10.5))
    ax.grid(True, axis="y", color="#e4e7eb", lw=0.6)
    ax.set_axisbelow(True)
    fig.tight_layout()
    fig.legend(*ax.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=st.either(3, 1),
               fontsize=st.pt(8.5), frameon=False)
    st.save_svg(fig, out)
