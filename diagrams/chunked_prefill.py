"""Chunked prefill: one long prefill step against chunks riding along with the decodes.

Step times are the roofline floor on the anchor group (formulas.step_floor_s): a step reads the
weights and every decoding sequence's KV once, and does 2 * N_a FLOPs per token it processes,
decode tokens and prompt tokens alike. Attention FLOPs and the re-read of earlier chunks' KV are
ignored, as on the batching page.
"""

from __future__ import annotations

from pathlib import Path

from macros.engine import formulas as f
from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
STEPS_AROUND = 2  # decode-only steps drawn before and after the prompt

Step = tuple[str, int, float]  # (kind: "decode" | "chunk" | "prefill", prompt tokens, seconds)


def _step_s(prompt_tokens: int) -> float:
    """Floor of one step: DECODE_BATCH decodes plus `prompt_tokens` of prefill."""
    s = st.anchor()
    b = st.DECODE_BATCH
    moved = f.decode_step_bytes(s.weight_bytes, b, s.kv_bytes_per_seq)
    flops = f.decode_step_flops(s.active_params, b + prompt_tokens)
    return f.step_floor_s(moved, flops, s.gpus, s.gpu_bandwidth_bytes_per_s, s.gpu_peak_flops)


def timelines() -> tuple[list[Step], list[Step]]:
    """The two schedules: the whole prefill in one step, and the prompt in chunks."""
    prompt, chunk = st.PROMPT_TOKENS, st.CHUNK_TOKENS
    n = int(f.blocks_needed(prompt, chunk))
    sizes = [chunk] * (n - 1) + [prompt - chunk * (n - 1)]
    decode: list[Step] = [("decode", 0, _step_s(0))] * STEPS_AROUND
    whole = decode + [("prefill", prompt, _step_s(prompt))] + decode
    chunked = decode + [("chunk", c, _step_s(c)) for c in sizes] + decode
    return whole, chunked


def _figures() -> dict:
    whole, chunked = timelines()
    prompt_steps = lambda steps: [t for kind, _, t in steps if kind != "decode"]  # noqa: E731
    return {
        "whole": whole, "chunked": chunked, "decode": fmt.ms(whole[0][2]),
        "stall": fmt.ms(max(t for _, _, t in whole)), "worst": fmt.ms(max(t for _, _, t in chunked)),
        "ttft_whole": fmt.ms(sum(prompt_steps(whole))), "ttft_chunked": fmt.ms(sum(prompt_steps(chunked))),
        "chunks": len(prompt_steps(chunked)), "group": st.group(st.anchor()),
        "prompt": fmt.count(st.PROMPT_TOKENS), "chunk": fmt.count(st.CHUNK_TOKENS), "batch": st.DECODE_BATCH,
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        f"Two timelines on {x['group']} with {x['batch']} sequences decoding, each step's length its roofline "
        f"floor. A decode-only step takes {x['decode']}. Without chunking, a {x['prompt']}-token prompt is "
        f"prefilled in one step of {x['stall']}, so every decoding sequence waits that long for its next token; "
        f"the prompt's first token comes after {x['ttft_whole']}. With chunked prefill the prompt is split "
        f"into {x['chunks']} chunks of up to {x['chunk']} tokens, each riding in a step with the decodes: no "
        f"step is longer than {x['worst']}, so the decodes keep streaming, and the prompt's first token comes "
        f"after {x['ttft_chunked']}, slightly later."
    )


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    x = _figures()
    fig, ax = st.subplots(plt, 3.6)
    lanes = ((0, "chunked\nprefill", x["chunked"], x["ttft_chunked"]),
             (1.6, "one prefill\nstep", x["whole"], x["ttft_whole"]))
    h = 0.8  # lane height; a prompt step splits it: decodes below, prompt tokens above
    bar = {"edgecolors": "white", "linewidth": 1.5}
    small = {"ha": "center", "va": "center", "color": "white", "fontsize": st.pt(10)}
    for y, _, steps, ttft in lanes:
        t, chunk_no, prompt_start = 0.0, 0, None
        for kind, _tokens, seconds in steps:
            ms = seconds * 1e3
            if kind == "decode":
                ax.broken_barh([(t, ms)], (y, h), facecolors=st.DECODE_C, **bar)
                ax.text(t + ms / 2, y + h / 2, f"×{x['batch']}", **small)
            else:
                prompt_start = t if prompt_start is None else prompt_start
                chunk_no += 1
                ax.broken_barh([(t, ms)], (y, h / 2), facecolors=st.DECODE_C, **bar)
                ax.broken_barh([(t, ms)], (y + h / 2, h / 2), facecolors=st.PREFILL_C, **bar)
                ax.text(t + ms / 2, y + h / 4, f"×{x['batch']}", **small)
                label = (f"{chunk_no}/{x['chunks']}" if kind == "chunk" else f"{x['prompt']}-token prompt")
                ax.text(t + ms / 2, y + 3 * h / 4, label, **small)
            t += ms
            ax.plot([t, t], [y + h, y + h + 0.12], color=st.INK, linewidth=1.2)  # the decodes' tokens out
            if kind != "decode" and (kind == "prefill" or chunk_no == x["chunks"]):
                # The prompt's time to first token: from its first prompt step to the end of its last.
                ax.annotate("", xy=(prompt_start, y + h + 0.3), xytext=(t, y + h + 0.3),
                            arrowprops={"arrowstyle": "|-|", "color": st.PREFILL_C, "lw": 1.2,
                                        "mutation_scale": 3})
                ax.text((prompt_start + t) / 2, y + h + 0.36, f"prompt's first token after {ttft}",
                        color=st.PREFILL_C, fontsize=st.pt(10), ha="center", va="bottom")
    ax.set_yticks([y + h / 2 for y, *_ in lanes], [name for _, name, *_ in lanes])
    ax.set_ylim(-0.1, 3.05)
    ax.set_xlim(0, None)
    ax.set_xlabel("time (ms), each step at its roofline floor\n"
                  "a tick on top: one token out for every decoding sequence", fontsize=st.pt(10))
    ax.tick_params(axis="y", length=0)
    ax.set_title(f"{x['group']}, {x['batch']} sequences decoding; a {x['prompt']}-token prompt arrives\n"
                 f"longest step: {x['stall']} in one piece, {x['worst']} in {x['chunk']}-token chunks",
                 loc="left", fontsize=st.pt(11))
    st.save_svg(fig, out)
