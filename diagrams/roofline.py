"""The roofline of one GPU (one variant per GPU in the data): attainable FLOP/s against
arithmetic intensity, log-log, with decode for the 70B preset at batch 1, the worked batch and
the max batch on the smallest group that holds the worked batch, and the worked prefill."""

from __future__ import annotations

from pathlib import Path

from macros.engine import formulas as f
from macros.engine.model.scenario import (
    DEFAULT_DTYPE,
    Scenario,
    dtype_bytes,
    get_gpu,
    get_model,
    scenario,
    sensible_gpus,
)
from macros.engine.specs import catalog
from macros.engine.workloads import workloads
from macros.site.build.drawings import shared
from macros.site.pages._shared import worked_batch
from macros.text import fmt

WORKLOADS = workloads()

st = shared("_style")

FORMAT = "svg"


def VARIANTS() -> list[str]:
    return list(catalog().gpus)


def ALT(variant: str | None) -> str:
    g = get_gpu(variant)
    balance = f.machine_balance(g.bf16_flops, g.bandwidth_bytes_per_s)
    return (f"Roofline of the {g.name}, log-log: attainable FLOP/s rise along the bandwidth slope of "
            f"{fmt.bandwidth(g.bandwidth_bytes_per_s)} until the dense BF16 ceiling of {fmt.flops_rate(g.bf16_flops)} "
            f"at {fmt.num(balance)} FLOP per byte. Decode of {get_model(WORKLOADS['model']).name} sits on the slope at "
            f"batch 1, {WORKLOADS['batch']} and the max batch; a {fmt.count(WORKLOADS['prompt_tokens'])}-token prefill "
            "sits at or near the ceiling.")


def _points(gpu: str) -> tuple[list[tuple[str, float, float]], Scenario]:
    """(label, intensity, attained FLOP/s per GPU) for the decode and prefill points, and the
    max-batch scenario (which names the group)."""
    model = WORKLOADS["model"]
    n = sensible_gpus(model, gpu)
    most = scenario(model, gpu, gpus=n)
    batch = min(worked_batch(), most.max_batch)  # the chapters' batch, or what this group holds
    points = []
    for b, label in ((1, "decode, batch 1"), (batch, f"decode, batch {batch}"),
                     (most.max_batch, f"decode, max batch {most.max_batch}")):
        s = scenario(model, gpu, gpus=n, batch=b)
        points.append((label, s.decode_intensity,
                       f.attainable_flops(s.decode_intensity, s.gpu_peak_flops, s.gpu_bandwidth_bytes_per_s)))
    g, m = get_gpu(gpu), get_model(model)
    tokens = WORKLOADS["prompt_tokens"]
    # A prefill does its FLOPs over one read of the weights.
    intensity = f.intensity(f.prefill_flops(m.active, tokens), f.weight_bytes(m.params, dtype_bytes(DEFAULT_DTYPE)))
    points.append((f"prefill, {fmt.count(tokens)} tokens", intensity,
                   f.attainable_flops(intensity, g.bf16_flops, g.bandwidth_bytes_per_s)))
    return points, most


def render(out: Path, variant: str | None = None) -> None:
    with st.narrow_only():  # one form, a phone's, for every width: it fits a laptop's column as drawn
        _render(out, variant)


def _render(out: Path, variant: str | None) -> None:
    import numpy as np

    plt = st.pyplot()
    g = get_gpu(variant)
    points, most = _points(variant)
    x = np.logspace(-1, 5, 400)
    fig, ax = st.subplots(plt, 4.4)
    ax.loglog(x, f.attainable_flops(x, g.bf16_flops, g.bandwidth_bytes_per_s) / 1e12, color=st.DECODE_C, lw=2.2,
              label=f"BF16 dense: {fmt.flops_rate(g.bf16_flops)}, {fmt.bandwidth(g.bandwidth_bytes_per_s)}")
    if g.has_fp8:
        ax.loglog(x, f.attainable_flops(x, g.fp8_flops, g.bandwidth_bytes_per_s) / 1e12, color=st.MUTED, lw=1.2,
                  ls="--", label=f"FP8 dense: {fmt.flops_rate(g.fp8_flops)}")
    ridge = f.machine_balance(g.bf16_flops, g.bandwidth_bytes_per_s)
    top = (g.fp8_flops or g.bf16_flops) / 1e12
    ax.axvline(ridge, color=st.EDGE, lw=0.8, ls=":")
    ax.annotate(f"ridge {fmt.num(ridge)} FLOP/B", (ridge, g.bf16_flops / 1e12), xytext=(6, -14),
                textcoords="offset points", fontsize=st.pt(9), color=st.MUTED)
    ax.text(ridge / 3, top * 1.5, "memory-bound", ha="right", fontsize=st.pt(9), color=st.MUTED)
    ax.text(ridge * 3, top * 1.5, "compute-bound", ha="left", fontsize=st.pt(9), color=st.MUTED)
    markers = ("o", "s", "D", "^")
    colours = (st.DECODE_C, st.DECODE_C, st.DECODE_C, st.PREFILL_C)
    for (label, i, p), mk, c in zip(points, markers, colours):
        ax.plot([i], [p / 1e12], marker=mk, ms=8, color=c, mec="white", mew=1.2, ls="none",
                label=f"{label}: {fmt.num(i)} FLOP/B")
    ax.set_xlabel("arithmetic intensity (FLOP per byte)")
    ax.set_ylabel("attainable TFLOP/s per GPU")
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(x[0] * g.bandwidth_bytes_per_s / 1e12, top * 2.5)
    model = get_model(WORKLOADS["model"]).name
    gpus = f"{most.gpus} GPU" + ("s" if most.gpus > 1 else "")  # "on 1 GPU", not "on 1 GPUs"
    ax.set_title(f"{g.name}: {model},\nBF16, on {gpus}, {fmt.tokens(most.seq_len)} of context", fontsize=st.pt(10.5))
    ax.grid(True, which="major", color="#e4e7eb", lw=0.6)
    # Below the chart: inside, at this width, it would cover the points.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=st.pt(8.5), frameon=True, framealpha=0.95,
              edgecolor="#d9dee4")
    st.save_svg(fig, out)
