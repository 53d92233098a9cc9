"""Images against the prompt and the time to first token, chapter 9's worked request
(macros/site/pages/multimodal.py): Qwen2.5-VL-72B on the anchor's group, a short text and 0 to 8 screenshots of
1,920 x 1,080 pixels. Left: the prompt's tokens, text and image; right: the TTFT floor, the encoder (each GPU
encoding whole images) and the language model's prefill (attention included) stacked, with the design round's TTFT
target dotted. Floors, not latencies."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import multimodal
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py): the panels stack


def ALT(variant: str | None = None) -> str:
    m = multimodal.ttft_rows()
    rows = "; ".join(f"{r.images} image{'' if r.images == 1 else 's'}: {fmt.count(r.tokens)} tokens, TTFT floor "
                     f"{fmt.ms(r.ttft_s)} (encoder {fmt.ms(r.encoder_s)})" for r in m.rows)
    return (f"Prompt tokens and the TTFT floor of {m.s.model_spec.name} on {m.s.gpus} × {m.s.gpu_spec.name}, a "
            f"{fmt.count(m.text_tokens)}-token text with images of {fmt.count(m.image_width)} × "
            f"{fmt.count(m.image_height)} pixels, {fmt.count(m.img.tokens)} tokens each: "
            f"{rows}. The target is {fmt.ms(m.target)}.")


def render(out: Path, variant: str | None = None) -> None:
    m = multimodal.ttft_rows()
    plt = st.pyplot()
    from matplotlib import ticker

    fig, (left, right) = st.subplots(plt, 3.6, panels=2, narrow_height=3.0)
    palette = plt.get_cmap("tab10").colors
    xs = list(range(len(m.rows)))
    labels = [str(r.images) for r in m.rows]
    text = [m.text_tokens / 1e3] * len(m.rows)
    image = [r.image_tokens / 1e3 for r in m.rows]
    left.bar(xs, text, color=palette[7], width=0.65, label="text")
    left.bar(xs, image, bottom=text, color=palette[0], width=0.65, label="image")
    for x, r in zip(xs, m.rows):
        left.annotate(fmt.count(r.tokens), (x, r.tokens / 1e3), xytext=(0, 3), textcoords="offset points",
                      ha="center", fontsize=st.pt(8.5))
    left.set_ylabel("prompt tokens (thousands)")
    left.set_ylim(0, max(r.tokens for r in m.rows) / 1e3 * 1.15)
    left.set_title("the prompt", fontsize=st.pt(10.5))
    encoder = [r.encoder_s * 1e3 for r in m.rows]
    prefill = [r.prefill_s * 1e3 for r in m.rows]
    right.bar(xs, encoder, color=palette[1], width=0.65, label="encoder")
    right.bar(xs, prefill, bottom=encoder, color=palette[2], width=0.65, label="prefill")
    for x, r in zip(xs, m.rows):
        right.annotate(fmt.ms(r.ttft_s), (x, r.ttft_s * 1e3), xytext=(0, 3), textcoords="offset points",
                       ha="center", fontsize=st.pt(8.5))
    right.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    right.axhline(m.target * 1e3, color=st.EDGE, lw=0.9, ls=":")
    right.annotate(f"target {fmt.ms(m.target)}", (0, m.target * 1e3), xycoords=("axes fraction", "data"),
                   xytext=(4, 3), textcoords="offset points", ha="left", fontsize=st.pt(8.5), color=st.MUTED)
    right.set_ylabel("TTFT floor (ms)")
    right.set_ylim(0, max(max(r.ttft_s for r in m.rows), m.target) * 1e3 * 1.15)
    right.set_title("the time to first token", fontsize=st.pt(10.5))
    for ax in (left, right):
        ax.set_xticks(xs, labels)
        ax.set_xlabel(f"images of {fmt.count(m.image_width)} × {fmt.count(m.image_height)} pixels")
        ax.grid(True, axis="y", color="#e4e7eb", lw=0.6)
        ax.legend(loc="upper left", fontsize=st.pt(9), frameon=False)
    fig.tight_layout()
    st.save_svg(fig, out)
