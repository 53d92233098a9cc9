"""One request on the anchor group, alone: the prompt's prefill as one compute-bound pass that ends with
the first token, then one memory-bound decode step per further token, with TTFT and TPOT marked.

Times are the roofline floors the engine computes for the anchor (scenario.prefill_s and decode_step_s)
at the worked prompt's length, batch 1. Every decode step is drawn at the step for the prompt's length:
the context grows by one token a step, which adds one token's KV (a third of a megabyte) to a read of
about 140 GB, too little to see. Queueing is left out, so TTFT here is the prefill alone.
"""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
TOKENS_DRAWN = 8  # the first token (from the prefill) and seven decode steps: enough to see the rhythm


def _figures() -> dict:
    s = st.anchor(seq_len=st.PROMPT_TOKENS, batch=1)
    ttft, tpot = s.prefill_s, s.decode_step_s
    return {
        "s": s, "ttft_s": ttft, "tpot_s": tpot, "group": st.group(s), "prompt": fmt.count(st.PROMPT_TOKENS),
        "ttft": fmt.ms(ttft), "tpot": fmt.ms(tpot), "steps": TOKENS_DRAWN - 1,
        "total": fmt.ms(ttft + (TOKENS_DRAWN - 1) * tpot), "ratio": fmt.num(ttft / tpot, 2),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        f"A timeline of one request alone on {x['group']}. First the {x['prompt']}-token prompt is prefilled "
        f"in one compute-bound pass of {x['ttft']}, which ends with the first token: that is the time to first "
        f"token (TTFT). Then each further token takes one memory-bound decode step of {x['tpot']}, the time per "
        f"output token (TPOT). The prefill lasts about {x['ratio']} decode steps; the first {TOKENS_DRAWN} "
        f"tokens are out after {x['total']}."
    )


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    x = _figures()
    ttft, tpot = x["ttft_s"] * 1e3, x["tpot_s"] * 1e3
    fig, ax = st.subplots(plt, 2.9, narrow_height=3.6)
    y, h = 0.0, 0.8
    bar = {"edgecolors": "white", "linewidth": 1.5}
    inside = {"ha": "center", "va": "center", "color": "white", "fontsize": st.pt(10)}
    ax.broken_barh([(0, ttft)], (y, h), facecolors=st.PREFILL_C, **bar)
    ax.text(ttft / 2, y + h / 2, st.either(f"prefill: {x['prompt']} prompt tokens\ncompute-bound",
                                             f"prefill:\n{x['prompt']} prompt\ntokens,\ncompute-bound"), **inside)
    ends = [ttft + k * tpot for k in range(x["steps"] + 1)]  # when token 1, 2, ... comes out
    for k in range(x["steps"]):
        ax.broken_barh([(ends[k], tpot)], (y, h), facecolors=st.DECODE_C, **bar)
    ax.text(ttft + x["steps"] * tpot / 2, y - 0.22, st.either("decode: one step per token, memory-bound",
                                                                    "decode: one step per token,\nmemory-bound"),
            ha="center", va="top", color=st.DECODE_C, fontsize=st.pt(10))
    for k, t in enumerate(ends, start=1):  # a tick and the token's number above each token out
        ax.plot([t, t], [y + h, y + h + 0.12], color=st.INK, linewidth=1.2)
        ax.text(t, y + h + 0.16, str(k), ha="center", va="bottom", color=st.INK, fontsize=st.pt(8.5))
    arrow = {"arrowstyle": "|-|", "lw": 1.2, "mutation_scale": 3}
    ax.annotate("", xy=(0, y + h + 0.62), xytext=(ttft, y + h + 0.62),
                arrowprops={**arrow, "color": st.PREFILL_C})
    ax.text(ttft / 2, y + h + 0.68, f"TTFT = {x['ttft']}", color=st.PREFILL_C, fontsize=st.pt(10.5),
            ha="center", va="bottom")
    ax.annotate("", xy=(ends[0], y + h + 0.62), xytext=(ends[1], y + h + 0.62),
                arrowprops={**arrow, "color": st.DECODE_C})
    ax.text(ends[1] + 1.5, y + h + 0.68, f"TPOT = {x['tpot']}", color=st.DECODE_C, fontsize=st.pt(10.5),
            ha="left", va="bottom")
    ax.set_ylim(st.either(-0.55, -0.85), 2.05)
    ax.set_xlim(0, ends[-1] * 1.02)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.set_xlabel(f"time since the request started (ms),{st.either(' ', chr(10))}each step at its roofline floor\n"
                  "a tick on top: a token out (its number above)", fontsize=st.pt(10))
    ax.set_title(f"One request alone on {x['group']}: prefill, then decode\n"
                 f"first {TOKENS_DRAWN} tokens after TTFT + {x['steps']} × TPOT = {x['total']}",
                 loc="left", fontsize=st.pt(11))
    st.save_svg(fig, out)
