"""Chapter 11's two curves (macros/site/pages/long_context.py).

"reload": reloading a cached prefix from each tier below HBM as a share of recomputing it, by prefix length, for the
anchor (every tier faster than recomputing) and for a small model on a fast GPU (a Gen4 drive slower than
recomputing until attention's quadratic term catches up). "context": one sequence's KV cache against context
length for full-attention GQA, a local/global hybrid, MLA and an attention/Mamba hybrid, solid to each model's
trained context and dashed past it."""

from __future__ import annotations

from pathlib import Path

from macros.engine.lookup import get_gpu
from macros.engine.model.scenario import anchor
from macros.engine.problems.kv_tiers import tiers
from macros.site.build.drawings import shared
from macros.site.pages import long_context as lc
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone: the reload panels stack
CLAIMS = ("nic-bandwidth",)  # the network tier's bandwidth
PREFIXES = (16, 131_072)  # the reload panels' range of prefix lengths, in tokens
CONTEXT = (1024, lc.MILLION)  # the context panel's range


def VARIANTS() -> list[str]:
    return ["reload", "context"]


def _cases() -> list:
    s = anchor()
    return [lc.reload_case(s.model, s.gpu, s.gpus), lc.reload_case(*lc.SMALL)]


def ALT(variant: str | None = None) -> str:
    if variant == "context":
        rows = "; ".join(f"{c.name} ({c.kind}): {fmt.bytes_(c.kv(CONTEXT[1]))} at {fmt.tokens(CONTEXT[1])}"
                         for c in lc.architecture_curves())
        return (f"KV cache per sequence against context length, log-log, from {fmt.tokens(CONTEXT[0])} to "
                f"{fmt.tokens(CONTEXT[1])}: {rows}. Full attention grows fastest; the hybrid's curve bends down to its "
                "global layers' slope; MLA sits below; the Mamba hybrid lowest.")
    parts = []
    for case in _cases():
        at = lc.at_prefix(case, PREFIXES[1])
        tiers_text = ", ".join(f"{t.name} {fmt.seconds(at.reload_s[k])}" for k, t in tiers().items())
        parts.append(f"{case.model.name} on {case.gpus} × {case.gpu.name}: recomputing {fmt.tokens(PREFIXES[1])} "
                     f"takes {fmt.seconds(at.recompute_s)}; reloading them takes {tiers_text}; break-even bandwidth "
                     f"{fmt.bandwidth(case.break_even)} ({case.losers})")
    return ("Reload time as a share of recompute time by prefix length, log-log, below 1 where reloading is faster. "
            + ". ".join(parts) + ".")


def _reload(out: Path) -> None:
    import numpy as np

    plt = st.pyplot()
    fig, axes = st.subplots(plt, 3.6, panels=2, narrow_height=3.2)
    palette = plt.get_cmap("tab10").colors
    tokens = np.geomspace(*PREFIXES, 160)
    for ax, case in zip(axes, _cases()):
        at = lc.at_prefix(case, tokens)
        # The ratio, not the two times: on a log scale two near-parallel lines hide where they cross.
        ax.axhline(1, color=st.INK, lw=2.2, label="recompute (the ratio 1)")
        for i, (key, t) in enumerate(tiers().items()):
            ax.loglog(tokens, at.reload_s[key] / at.recompute_s, color=palette[i], lw=1.6, label=f"reload: {t.name}")
            row = case.by_tier[key]
            if not row.reload_wins_linear and PREFIXES[0] < row.crossover < PREFIXES[1]:
                ax.plot([row.crossover], [1], marker="o", ms=6, mfc="none", mew=1.4, color=palette[i])
                ax.annotate(f"{fmt.count(row.crossover)} tokens", (row.crossover, 1), xytext=(-6, 8),
                            textcoords="offset points", ha="right", fontsize=st.pt(8.5), color=st.MUTED)
        ax.set_xlabel("prefix length (tokens)")
        ax.set_ylabel("reload time / recompute time\n(below 1: reloading is faster)")
        ax.set_ylim(None, 3)
        ax.set_title(f"{case.model.name}, {case.gpus} × {case.gpu.name}", fontsize=st.pt(10.5))
        ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=st.either(2, 1), fontsize=st.pt(9), frameon=False)
    fig.tight_layout()
    st.save_svg(fig, out)


def _context(out: Path) -> None:
    import numpy as np

    plt = st.pyplot()
    fig, ax = st.subplots(plt, 3.8, narrow_height=3.6)
    palette = plt.get_cmap("tab10").colors
    for i, c in enumerate(lc.architecture_curves()):
        inside = np.geomspace(CONTEXT[0], c.max_context, 80)
        beyond = np.geomspace(c.max_context, CONTEXT[1], 40)
        ax.loglog(inside, c.kv(inside) / 1e9, color=palette[i], lw=1.8, label=f"{c.name} ({c.kind})")
        ax.loglog(beyond, c.kv(beyond) / 1e9, color=palette[i], lw=1.4, ls="--")
    gpu = get_gpu(lc.LONG_GPU)
    ax.axhline(gpu.memory_bytes / 1e9, color=st.EDGE, lw=0.9, ls=":")
    ax.annotate(f"one {gpu.name}: {fmt.bytes_(gpu.memory_bytes)}", (CONTEXT[0], gpu.memory_bytes / 1e9),
                xytext=(2, 4), textcoords="offset points", fontsize=st.pt(8.5), color=st.MUTED)
    ax.set_xlabel("tokens of context per sequence")
    ax.set_ylabel("KV cache per sequence (GB, BF16)")
    ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    ax.legend(loc="lower right", fontsize=st.pt(9), frameon=False)
    fig.tight_layout()
    st.save_svg(fig, out)


def render(out: Path, variant: str | None = None) -> None:
    (_context if variant == "context" else _reload)(out)
