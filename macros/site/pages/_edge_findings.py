"""What each fitted value at an edge of its band says (model-vs-measured.md, "The fitted parameters"). A value the
runs push to an edge is a finding, not a measurement: the step's form leaves something out, and the parameter
stands in for it. Every value calibrate lists at an edge needs its sentence here (a test holds it), so a refit
that moves another value to an edge says what it means before the page can show it."""

from __future__ import annotations

from ...engine.calibration import report as v
from ...engine.serving.calibration import BY_NAME, Calibration

FINDINGS = {
    "bw_fraction cdna3": "MI300X's memory-bound steps are slower than its lowest plausible bandwidth share: ROCm's "
                         "decode attention and small-batch GEMMs reach less than a copy kernel, and the step "
                         "charges their shortfall to the bandwidth.",
    "layer_overhead_s cdna3": "MI300X's InferenceMAX runs all use eight GPUs, where a layer's fixed cost and a hop's "
                              "latency move together, and its MLPerf rows run on one GPU (no hop) at batches large "
                              "enough to hide a layer's cost: the hop is held at its prior and the layer's cost, at "
                              "its ceiling, carries RCCL's all-reduce latency too.",
    "attn_fraction cdna4": "On MI355X the fit puts the attention's arithmetic at the floor of its band: the runs are "
                           "DeepSeek's MLA, whose absorbed decode is compute-heavy, and the step's split of an MLA "
                           "step between reading the latent KV and the attention's math is not what these kernels "
                           "do.",
    "gemm_fraction cdna3": "MI300X's GEMMs at the floor of their band join its bandwidth at its floor and its layer "
                           "cost at its ceiling: every term of MI300X's step is slower than its kernels' published "
                           "figures, so the shortfall belongs to the platform as these engines ran it, not to one "
                           "term, and ten runs and a few MLPerf rows cannot say which.",
    "grouped_gemm_ratio all": "DeepSeek's MoE steps are slower than grouped GEMMs explain. The likely missing "
                              "pieces: the busiest expert (or rank) sets a step's time, and routing and token "
                              "permutation run kernels of their own; the step has neither, so the grouped GEMMs' "
                              "efficiency takes the blame.",
    "eager_layer_overhead_s all": "Steps no CUDA graph captures (prefill and mixed steps) are dearer than launch "
                                  "costs explain: prefill's work outside the GEMMs and attention lands here, and the "
                                  "runs trade it against vLLM's time per request (the identification's pairs).",
    "kernel_fraction atom": "ATOM runs only on MI355X, so its kernels' factor trades with CDNA 4's fractions "
                            "(correlated near -1): its floor says MI355X's DeepSeek runs are slower than the "
                            "family's GEMMs and attention predict, the MoE finding above again.",
}


def findings(cal: Calibration) -> list[tuple[str, str, str]]:
    """Each value at an edge: its "name key", which edge, and what it says; KeyError names one without a
    sentence (the build fails rather than show a bare edge)."""
    out = []
    for entry in cal.raw.get("edges", {}).get("at_edge", []):
        name, key = entry.split(" ", 1)
        if entry not in FINDINGS:
            raise KeyError(f"calibration.toml: {entry} sits at an edge of its band and "
                           "macros/site/pages/_edge_findings.py does not say what that means")
        out.append((entry, v.edge(BY_NAME[name], cal.values[(name, key)], key), FINDINGS[entry]))
    return out
