"""KV cache against context. Left: KV bytes per sequence for several models, each up to its
max context (a sliding window flattens its curve, MLA lowers it). Right: how many sequences of
that length the 70B preset's KV budget holds on the anchor group: twice the context, half the batch."""

from __future__ import annotations

from pathlib import Path

from macros.engine.model.scenario import get_model, model_kv_bytes_per_seq, scenario, sensible_gpus
from macros.engine.specs import catalog
from macros.engine.workloads import workloads
from macros.site.build.drawings import shared
from macros.text import fmt

WORKLOADS = workloads()

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)
# One model per kind of attention the data has, largest cache first; missing keys are skipped.
MODELS = ("llama-3.1-405b", "llama-70b", "gemma-2-27b", "llama-3.1-8b", "mistral-7b", "qwen3-235b-a22b",
          "deepseek-v3", "gpt-oss-120b")
GPU = "h100"


def _models() -> list[str]:
    return [k for k in MODELS if k in catalog().models]


def ALT(variant: str | None = None) -> str:
    s = scenario(WORKLOADS["model"], GPU, gpus=sensible_gpus(WORKLOADS["model"], GPU))
    names = ", ".join(get_model(k).name for k in _models())
    return (f"Left: KV cache per sequence against context, log-log, for {names}; a sliding window flattens "
            f"a curve and MLA sits lowest. Right: sequences of {s.model_spec.name} that fit in the "
            f"{fmt.bytes_(s.kv_budget_bytes)} budget of {s.gpus} × {s.gpu_spec.name}: {s.max_batch} at "
            f"{fmt.tokens(s.seq_len)}, halving with every doubling of the context.")


def render(out: Path, variant: str | None = None) -> None:
    import numpy as np

    plt = st.pyplot()
    fig, (left, right) = st.subplots(plt, 4.2, panels=2, narrow_height=3.4, ratios=[1.35, 1])
    palette = plt.get_cmap("tab10").colors
    for i, key in enumerate(_models()):
        m = get_model(key)
        s = np.unique(np.geomspace(512, m.max_context, 200).round().astype(int))
        left.loglog(s, model_kv_bytes_per_seq(m, s) / 1e9, color=palette[i % len(palette)], lw=1.8,
                    ls="-" if i < 5 else "--",
                    label=f"{m.name} ({m.attention}{' + window' if m.sliding_window_layers else ''})")
    gpu = catalog().gpus[GPU]
    left.axhline(gpu.memory_bytes / 1e9, color=st.EDGE, lw=0.9, ls=":")
    left.annotate(f"one {gpu.name}: {fmt.bytes_(gpu.memory_bytes)}", (600, gpu.memory_bytes / 1e9),
                  xytext=(0, 4), textcoords="offset points", fontsize=st.pt(8.5), color=st.MUTED)
    left.set_xlabel("tokens of context per sequence")
    left.set_ylabel("KV cache per sequence (GB, BF16)")
    left.set_title("KV cache per sequence", fontsize=st.pt(10.5))
    left.grid(True, which="major", color="#e4e7eb", lw=0.6)
    left.set_ylim(None, gpu.memory_bytes / 1e9 * 4)
    # Below both panels, so no curve is hidden behind it.
    fig.legend(*left.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=st.either(2, 1),
               fontsize=st.pt(9), frameon=False)

    model, n = WORKLOADS["model"], sensible_gpus(WORKLOADS["model"], GPU)
    m = get_model(model)
    contexts = [c for c in (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072) if c <= m.max_context]
    fits = [scenario(model, GPU, gpus=n, seq_len=c).max_batch for c in contexts]
    right.bar(range(len(contexts)), fits, color=st.DECODE_C, width=0.7)
    for i, b in enumerate(fits):
        right.annotate(str(b), (i, b), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=st.pt(8.5))
    # Slanted, so that eight labels at a legible size keep apart under narrow bars.
    right.set_xticks(range(len(contexts)), [f"{c // 1024}k" for c in contexts], rotation=45)
    right.set_xlabel("tokens of context per sequence\n(k = 1,024)")
    right.set_ylabel("max concurrent sequences")
    right.set_ylim(0, max(fits) * 1.12)
    budget = scenario(model, GPU, gpus=n).kv_budget_bytes
    right.set_title(f"{m.name}:\n{n} × {gpu.name}, {fmt.bytes_(budget)} for KV", fontsize=st.pt(10.5))
    right.grid(True, axis="y", color="#e4e7eb", lw=0.6)
    fig.tight_layout()
    st.save_svg(fig, out)
