"""The latency-throughput curve: per-user tokens/s against aggregate tokens/s as the batch grows from 1
to the max batch, for the 70B preset on the anchor group of H100s and the same number of H200s. Each
point is the engine's scenario at that batch (every sequence at the default context: the worst case);
the floor is solid, the planned curve (floor x efficiency on both axes) dashed. Marked: batch 1, the
example batch, the max batch, and where the planned curve meets the consumer-chat design's TPOT target."""

from __future__ import annotations

from pathlib import Path

from macros.engine.fleet.workload_file import design
from macros.engine.model.scenario import Scenario, scenario
from macros.engine.workloads import workloads
from macros.site.build.drawings import shared
from macros.site.pages._shared import worked_batch
from macros.text import fmt

WORKLOADS = workloads()
st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
GPUS_COMPARED = ("h100", "h200")  # the same compute, more bandwidth and memory
DESIGNS = ("consumer-chat",)  # its TPOT target is the dotted line: part of this drawing's cache key


def _tpot_s() -> float:
    return design(DESIGNS[0])[0].tpot_s


def curve(gpu: str) -> list[Scenario]:
    """The engine's scenario at every batch from 1 to the max batch."""
    model, gpus = WORKLOADS["model"], WORKLOADS["gpus"]
    most = scenario(model, gpu, gpus=gpus).max_batch
    return [scenario(model, gpu, gpus=gpus, batch=b) for b in range(1, most + 1)]


def marked(points: list[Scenario]) -> list[Scenario]:
    """Batch 1, the example batch (the one the chapters work at) and the max batch."""
    return [points[0], points[min(worked_batch(), len(points)) - 1], points[-1]]


def at_target(points: list[Scenario], tpot_s: float) -> Scenario:
    """The largest batch whose planned step meets the TPOT target."""
    return [s for s in points if s.planned_step_s <= tpot_s][-1]


def ALT(variant: str | None = None) -> str:
    tpot = _tpot_s()
    parts = []
    for gpu in GPUS_COMPARED:
        points = curve(gpu)
        one, mid, most = marked(points)
        target = at_target(points, tpot)
        parts.append(
            f"{most.gpus} × {most.gpu_spec.name}: at batch 1 one user gets "
            f"{fmt.tokens_per_s(one.decode_tokens_per_s_per_user)}; at batch {mid.batch} each gets "
            f"{fmt.tokens_per_s(mid.decode_tokens_per_s_per_user)} and the replica "
            f"{fmt.tokens_per_s(mid.decode_tokens_per_s)}; at the max batch of {most.batch} each gets "
            f"{fmt.tokens_per_s(most.decode_tokens_per_s_per_user)} and the replica "
            f"{fmt.tokens_per_s(most.decode_tokens_per_s)}; planned at {fmt.pct(most.efficiency)}, a "
            f"{fmt.ms(tpot)} TPOT target holds up to batch {target.batch}")
    s = curve(GPUS_COMPARED[0])[0]
    return (f"Per-user against aggregate decode tokens/s for {s.model_spec.name}, BF16, "
            f"{fmt.tokens(s.seq_len)} per sequence, as the batch grows. " + ". ".join(parts) + ".")


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    tpot = _tpot_s()
    fig, ax = st.subplots(plt, 4.6)
    note = {"textcoords": "offset points", "fontsize": st.pt(8.5), "color": st.INK,
            "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 1}}
    top = right = 0.0
    for gpu, colour in zip(GPUS_COMPARED, (st.DECODE_C, st.PREFILL_C)):
        points = curve(gpu)
        eta = points[0].efficiency
        agg = [s.decode_tokens_per_s for s in points]
        user = [s.decode_tokens_per_s_per_user for s in points]
        label = f"{points[0].gpus} × {points[0].gpu_spec.name}"
        ax.plot(agg, user, color=colour, lw=2.2, label=f"{label}: floor")
        ax.plot([a * eta for a in agg], [u * eta for u in user], color=colour, lw=1.3, ls="--",
                label=f"{label}: planned (× {fmt.pct(eta)})")
        for s, offset in zip(marked(points), ((6, 4), (6, 5), (-2, -15))):
            ax.plot([s.decode_tokens_per_s], [s.decode_tokens_per_s_per_user], marker="o", color=colour, ms=6)
            text = f"batch {s.batch}" if s.batch > 1 else "batch 1"
            ax.annotate(text, (s.decode_tokens_per_s, s.decode_tokens_per_s_per_user), xytext=offset,
                        ha="right" if offset[0] < 0 else "left", **note)
        target = at_target(points, tpot)
        ax.plot([target.planned_tokens_per_s], [1 / target.planned_step_s], marker="o", mfc="white",
                color=colour, ms=6)
        ax.annotate(f"batch {target.batch}", (target.planned_tokens_per_s, 1 / target.planned_step_s),
                    xytext=(4, -13), ha="left", **note)
        top, right = max(top, user[0]), max(right, agg[-1])
    ax.axhline(1 / tpot, color=st.EDGE, lw=0.9, ls=":")
    ax.annotate(f"TPOT target {fmt.ms(tpot)}: {fmt.tokens_per_s(1 / tpot)} per user", (right, 1 / tpot),
                xytext=(0, -13), ha="right", **note)
    ax.set_xlim(0, right * 1.06)
    ax.set_ylim(0, top * 1.12)
    ax.xaxis.set_major_formatter(lambda x, _: fmt.count(x))
    ax.set_xlabel("aggregate tokens/s (the replica's throughput)")
    ax.set_ylabel("tokens/s per user (1 / step)")
    ax.grid(True, color="#e4e7eb", lw=0.6)
    s = curve(GPUS_COMPARED[0])[0]
    ax.set_title(f"{s.model_spec.name}, BF16, {fmt.tokens(s.seq_len)} per sequence: each point a batch size",
                 fontsize=st.pt(10.5))
    fig.tight_layout()
    fig.legend(*ax.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=st.either(2, 1),
               fontsize=st.pt(8.5), frameon=False)
    st.save_svg(fig, out)
