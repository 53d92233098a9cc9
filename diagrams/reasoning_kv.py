"""Chapter 8's two charts (macros/site/pages/reasoning.py computes every figure).

"kv": left, the KV cache one request holds as it decodes, the reasoning request against a chat turn of the same
prompt, with the reasoning request's time-average (its prompt plus half its output); right, the GPU-seconds one
reasoning query costs against its thinking tokens, on the replica full of such queries, beside what it would cost
if the batch did not shrink as the thinking grows, with the thinking budgets marked.

"mask": the decode step's floor on the structured-output replica against the batch, and the CPU time the
batch's token masks take at each grammar engine's mean mask time, on one thread and on vLLM's largest pool;
where a CPU line crosses the floor, the masks are the critical path.
"""

from __future__ import annotations

from pathlib import Path

from macros.engine.model.geometry import model_kv_bytes_per_seq
from macros.engine.problems.reasoning import topic
from macros.site.build.drawings import shared
from macros.site.pages import _reasoning as rs
from macros.site.pages import reasoning as page
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py): the panels stack
THINKING_GRID = (250, 500, 1000, 2000, 3000, 4000, 6000, 8000, 11000, 15000, 20000, 26000, 32000)


def VARIANTS() -> list[str]:
    return ["kv", "mask"]


def _thinking_curve(q) -> list[tuple[int, float]]:
    """(thinking tokens, GPU-seconds a query) on the example's replica, within the model's context."""
    t = topic()
    ex, r = t.example, t.reasoning_request
    out = []
    for thinking in THINKING_GRID:
        if r.prompt_tokens + thinking + r.answer_tokens > q.e.model.max_context:
            continue
        e = rs.request_economics(ex.model, ex.gpu, ex.gpus, ex.weights, r.prompt_tokens,
                                 thinking + r.answer_tokens, ex.engine)
        out.append((thinking, e.gpu_s))
    return out


def ALT(variant: str | None = None) -> str:
    if variant == "mask":
        so = page.structured_section(topic())
        rows = "; ".join(f"{row.engine} at {fmt.seconds(row.times.mean)} a mask: "
                         + ", ".join(f"{n} thread{'s' if n > 1 else ''} {row.words[n]}" for n in so.threads)
                         for row in so.rows)
        return (f"The decode step floor of {so.model.name} on {so.r.s.gpus} × {so.gpu.name} at "
                f"{fmt.tokens(so.context)} of context, rising from {fmt.ms(so.r.weight_s)} with the batch, against "
                f"the CPU time of the batch's token masks, log-log, up to the {fmt.count(so.r.max_batch)} sequences "
                f"that fit. The masks overtake the floor: {rows}.")
    q = page.reasoning_section(topic())
    e, c = q.e, q.chat
    return (f"Left: the KV cache one request of {e.model.name} holds as it decodes. The reasoning request grows from "
            f"{fmt.bytes_(model_kv_bytes_per_seq(e.model, e.prompt))} to {fmt.bytes_(e.kv_end)} over "
            f"{fmt.tokens(e.output)}, averaging {fmt.bytes_(e.kv_mean)}; a chat turn ends at {fmt.bytes_(c.kv_end)}. "
            f"Right: GPU-seconds a reasoning query costs on {e.gpus} × {e.gpu.name} against its thinking tokens, "
            f"log-log: {fmt.num(q.cut.e.gpu_s)} at {fmt.tokens(q.cut.thinking)} and {fmt.num(e.gpu_s)} at "
            f"{fmt.tokens(q.thinking)}, rising faster than the line a fixed batch would give, because the batch "
            f"shrinks as each query's cache grows.")


def _kv_panels(plt, out: Path) -> None:
    import numpy as np

    q = page.reasoning_section(topic())
    e, c = q.e, q.chat
    fig, (left, right) = st.subplots(plt, 3.9, panels=2, narrow_height=3.3)
    for req, colour, label in ((e, st.DECODE_C, "reasoning"), (c, st.PREFILL_C, "chat")):
        steps = np.linspace(0, req.output, 200)
        left.plot(steps, model_kv_bytes_per_seq(req.model, req.prompt + steps) / 1e9, color=colour, lw=2,
                  label=f"{label}: {fmt.count(req.prompt)} + {fmt.count(req.output)} tokens")
    left.annotate(f"chat ends: {fmt.bytes_(c.kv_end)}", (c.output, c.kv_end / 1e9), xytext=(10, -4),
                  textcoords="offset points", fontsize=st.pt(8.5), color=st.PREFILL_C, va="top")
    left.axhline(e.kv_mean / 1e9, color=st.EDGE, lw=0.9, ls=":")
    left.annotate(f"time-average {fmt.bytes_(e.kv_mean)}", (e.output * 0.03, e.kv_mean / 1e9), xytext=(0, 4),
                  textcoords="offset points", fontsize=st.pt(8.5), color=st.MUTED)
    left.set_xlabel("tokens decoded")
    left.set_ylabel("KV cache held (GB)")
    left.set_title("one request's KV over its life", fontsize=st.pt(10.5))
    left.set_ylim(0, e.kv_end / 1e9 * 1.15)
    left.legend(loc="upper left", fontsize=st.pt(8.5), frameon=False)
    left.grid(True, color="#e4e7eb", lw=0.6)

    curve = _thinking_curve(q)
    xs = np.array([x for x, _ in curve])
    right.loglog(xs, [y for _, y in curve], color=st.DECODE_C, lw=2, marker="o", ms=3, label="batch shrinks (KV-bound)")
    fixed = e.gpus * (xs + q.answer) * e.step_s / e.batch  # the example's batch held fixed: linear in the output
    right.loglog(xs, fixed, color=st.EDGE, lw=1, ls="--", label=f"if the batch stayed {fmt.count(e.batch)}")
    for row in q.rows:
        right.plot([row.thinking], [row.e.gpu_s], marker="o", ms=7, mfc="none", mew=1.3, color=st.EDGE, ls="none")
    # below and right of the worked point, clear of the legend and of both curves
    right.annotate(f"{fmt.num(e.gpu_s)} GPU-s", (q.thinking, e.gpu_s), xytext=(8, -6), textcoords="offset points",
                   ha="left", va="top", fontsize=st.pt(8.5), color=st.MUTED)
    right.set_xlabel("thinking tokens per query")
    right.set_ylabel("GPU-seconds per query")
    right.set_title(f"{e.gpus} × {e.gpu.name}, full of such queries", fontsize=st.pt(10.5))
    right.legend(loc="upper left", fontsize=st.pt(8.5), frameon=False)
    right.grid(True, which="major", color="#e4e7eb", lw=0.6)
    fig.tight_layout()
    st.save_svg(fig, out)


def _mask_panel(plt, out: Path) -> None:
    import numpy as np

    so = page.structured_section(topic())
    r = so.r
    fig, ax = st.subplots(plt, 3.8, narrow_height=3.6)
    b = np.unique(np.geomspace(1, r.max_batch, 120).round())
    ax.loglog(b, (r.weight_s + b * r.kv_s) * 1e3, color=st.INK, lw=2.4, label="decode step floor (GPU)")
    palette = {"llguidance": st.DECODE_C, "xgrammar": st.PREFILL_C}
    for row in so.rows:
        for n, style in zip(so.threads, ("-", "--")):
            x = getattr(row, f"n{n}")
            ax.loglog(b, b * x.per_sequence * 1e3, color=palette[row.engine], lw=1.5, ls=style,
                      label=f"{row.engine} masks, {n} thread{'s' if n > 1 else ''}")
            if x.within:
                at = x.crossover
                ax.plot([at], [(r.weight_s + at * r.kv_s) * 1e3], marker="o", ms=6, color=palette[row.engine])
    ax.set_xlabel(f"batch (sequences of {fmt.tokens(so.context)})")
    ax.set_ylabel("time per step (ms)")
    ax.set_title(f"{so.model.name}, {r.s.gpus} × {so.gpu.name}: masks against the floor", fontsize=st.pt(10.5))
    ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    st.finish_log_chart(fig, ax, out)


def render(out: Path, variant: str | None = None) -> None:
    plt = st.pyplot()
    if variant == "mask":
        _mask_panel(plt, out)
    else:
        _kv_panels(plt, out)
