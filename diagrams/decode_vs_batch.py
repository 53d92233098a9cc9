"""Decode step time and throughput against batch for the 70B preset on the anchor group of
H100s and the same number of H200s: the weight read is paid once per step and shared by the
batch; the KV read grows with it, until the KV budget runs out at the max batch."""

from __future__ import annotations

from pathlib import Path

from macros.engine import formulas as f
from macros.engine.model.scenario import DEFAULT_DTYPE, dtype_bytes, get_model, scenario, sensible_gpus
from macros.engine.workloads import workloads
from macros.site.build.drawings import shared
from macros.site.pages._shared import worked_batch
from macros.text import fmt

WORKLOADS = workloads()

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
GPUS_COMPARED = ("h100", "h200")  # same compute, more bandwidth and memory: the evidence pair


def _group() -> int:
    return sensible_gpus(WORKLOADS["model"], GPUS_COMPARED[0])


def ALT(variant: str | None = None) -> str:
    s = scenario(WORKLOADS["model"], GPUS_COMPARED[0], gpus=_group())
    one = scenario(WORKLOADS["model"], GPUS_COMPARED[0], gpus=_group(), batch=1)
    return (f"Two panels for {s.model_spec.name} on {s.gpus} × {s.gpu_spec.name} and {s.gpus} × H200. Left: the "
            f"decode step floor rises from {fmt.ms(one.decode_step_s)} at batch 1 to {fmt.ms(s.decode_step_s)} at the "
            f"max batch of {s.max_batch}; the weight read is a constant part, the KV read grows with the batch. "
            f"Right: aggregate throughput climbs almost in proportion to the batch, to "
            f"{fmt.tokens_per_s(s.decode_tokens_per_s)}.")


def render(out: Path, variant: str | None = None) -> None:
    import numpy as np

    plt = st.pyplot()
    model, n = WORKLOADS["model"], _group()
    m = get_model(model)
    fig, (left, right) = st.subplots(plt, 3.9, panels=2, narrow_height=3.2)
    colours = (st.DECODE_C, st.PREFILL_C)
    top = most_rate = 0.0
    for gpu, colour in zip(GPUS_COMPARED, colours):
        most = scenario(model, gpu, gpus=n)
        g = most.gpu_spec
        b = np.arange(1, most.max_batch + 1)
        weights = f.weight_bytes(m.params, dtype_bytes(DEFAULT_DTYPE))
        moved = f.decode_step_bytes(weights, b, most.kv_bytes_per_seq)
        step = f.step_floor_s(moved, f.decode_step_flops(m.active, b), n, g.bandwidth_bytes_per_s, g.bf16_flops)
        label = f"{n} × {g.name}"
        left.plot(b, step * 1e3, color=colour, lw=2.2, label=label)
        left.plot(b, f.memory_time_s(weights, n, g.bandwidth_bytes_per_s) * 1e3 + 0 * b, color=colour, lw=1,
                  ls="--", label=f"{label}: weight read alone")
        left.plot([b[-1]], [step[-1] * 1e3], marker="o", color=colour, ms=6)
        # The first group's label sits above its end point (to its right the second group's line
        # passes), the second's above and left of it (it ends at the edge); white behind each, where
        # the dotted batch line passes.
        first = gpu == GPUS_COMPARED[0]
        note = {"textcoords": "offset points", "fontsize": st.pt(8.5), "color": st.INK,
                "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 1}}
        left.annotate(f"max batch {most.max_batch}: {fmt.ms(most.decode_step_s)}", (b[-1], step[-1] * 1e3),
                      xytext=(0, 9) if first else (-8, 6), ha="center" if first else "right", **note)
        top = max(top, step[-1] * 1e3)
        right.plot(b, f.tokens_per_s(b, step), color=colour, lw=2.2, label=label)
        right.annotate(fmt.tokens_per_s(most.decode_tokens_per_s), (b[-1], most.decode_tokens_per_s),
                       xytext=(8, -4) if first else (-6, 6), ha="left" if first else "right", **note)
        most_rate = max(most_rate, most.decode_tokens_per_s)
    for ax in (left, right):
        ax.axvline(worked_batch(), color=st.EDGE, lw=0.8, ls=":")
        ax.set_xlabel("batch (concurrent sequences)")
        ax.set_xlim(0, None)
        ax.set_ylim(0, None)
        ax.grid(True, color="#e4e7eb", lw=0.6)
    # Headroom above the highest end point, for its label, inside the axes (not over the title).
    left.set_ylim(0, top * 1.15)
    right.set_ylim(0, most_rate * 1.15)
    left.set_ylabel("decode step floor (ms)")
    left.set_title(f"Step time, {fmt.tokens(most.seq_len)} per sequence", fontsize=st.pt(10.5))
    right.set_ylabel("aggregate tokens/s (floor)")
    right.set_title(f"Throughput; dotted line: batch {WORKLOADS['batch']}", fontsize=st.pt(10.5))
    fig.suptitle(f"{m.name}, BF16: decode against batch", fontsize=st.pt(11))
    fig.tight_layout()
    # One legend for both panels, below them: inside the left panel it covered the dashed lines.
    # Column by column: each group's solid line, then its dashed one.
    fig.legend(*left.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=st.either(2, 1),
               fontsize=st.pt(8.5), frameon=False)
    st.save_svg(fig, out)
