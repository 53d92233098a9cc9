"""Chapter 10.4: one MoE layer of DeepSeek-V3 on one GPU against the expert-parallel width, at the chapter's tokens
per GPU: the layer's floor (compute and memory), the weight reads within it, and the napkin's all-to-all
(formulas/moe_comms.py), on H200 nodes whose GPUs reach beyond the node through a 400 Gb/s NIC each (left) and
inside one GB200 NVL72 rack (right). Widening the group shrinks each GPU's weights and so the layer; past one
node the all-to-all moves onto the network and overtakes it (macros/site/pages/moe_at_scale.py)."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import moe_at_scale as page
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py): the panels stack
CLAIMS = ("nic-bandwidth",)  # the network link beyond an NVLink domain
PANELS = ((page.HOPPER, "H200 nodes, a 400 Gb/s NIC per GPU"), (page.RACK, "one GB200 NVL72 rack"))
LINES = (("layer_s", "layer floor", st.DECODE_C, "-"),
         ("weight_read_s", "its weight reads", st.IDLE_C, "--"),
         ("alltoall_s", "all-to-all", st.PREFILL_C, "-"))


def ALT(variant: str | None = None) -> str:
    parts = []
    for gpu, title in PANELS:
        points = "; ".join(f"EP {c.gpus}: layer {fmt.seconds(c.layer_s)}, all-to-all {fmt.seconds(c.alltoall_s)}"
                           for c in page.curve(gpu))
        parts.append(f"{title}: {points}")
    first = page.curve(page.HOPPER)[0]
    return (f"Two line charts of one MoE layer of {first.model.name} on one GPU against the expert-parallel width, "
            f"{page.moe_at_scale_data()['decode_batch']['tokens_per_gpu']} tokens a GPU, every sequence at "
            f"{fmt.count(page.DEFAULT_SEQ_LEN)} tokens: the layer's floor, its weight reads and the all-to-all. "
            + ". ".join(parts) + ". The wider group shrinks each GPU's weights; past one node the all-to-all runs "
            "over the network and overtakes the layer, inside one NVLink rack it stays small.")


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    fig, axes = st.subplots(plt, 3.4, panels=2, narrow_height=3.0)
    top = max(getattr(c, key) for gpu, _ in PANELS for c in page.curve(gpu) for key, *_ in LINES) * 1e6 * 1.12
    for ax, (gpu, title) in zip(axes, PANELS):
        cases = page.curve(gpu)
        xs = [c.gpus for c in cases]
        for key, label, colour, style in LINES:
            ax.plot(xs, [getattr(c, key) * 1e6 for c in cases], marker="o", ms=3.5, lw=1.7, color=colour, ls=style,
                    label=label)
        domain = cases[0].domain
        if domain < max(xs):  # the edge of the NVLink domain: beyond it the NIC carries the traffic
            ax.axvline(domain, color=st.EDGE, lw=0.9, ls=":")
            ax.annotate(f"one node: {domain} GPUs", (domain, top * 0.96), xytext=(4, 0), textcoords="offset points",
                        ha="left", va="top", fontsize=st.pt(8.5), color=st.MUTED)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.set_xlabel("expert-parallel GPUs")
        ax.set_ylabel("µs per layer, one GPU")
        ax.set_ylim(0, top)
        ax.set_title(title, fontsize=st.pt(10.5))
        ax.grid(True, color="#e4e7eb", lw=0.6)
        ax.set_axisbelow(True)
    fig.tight_layout()
    fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=st.either(3, 1), fontsize=st.pt(8.5), frameon=False)
    st.save_svg(fig, out)
