"""What each fitted value at an edge of its band says (model-vs-measured.md, "The fitted parameters"). A value the
runs push to an edge is a finding, not a measurement: the step's form leaves something out, and the parameter
stands in for it. Every value calibrate lists at an edge needs its sentence here (a test holds it), so a refit
that moves another value to an edge says what it means before the page can show it."""

from __future__ import annotations

from ...engine.calibration import report as v
from ...engine.serving.calibration import BY_NAME, Calibration

FINDINGS = {
    "layer_overhead_s cdna3": "MI300X's fixed cost per layer stays at its ceiling even with its all-reduce's "
                              "latency fitted apart, and its single-GPU MLPerf rows run no all-reduce at all: ROCm's "
                              "graph replay and small kernels cost more per layer than the band's kernel minimums, "
                              "or these engines pay a per-layer cost on ROCm that the step does not name.",
    "gemm_fraction cdna3": "MI300X's GEMMs sit at the floor of their band, which is already what MI300X's MLPerf "
                           "Offline rows deliver over whole steps: its dense rows are met there, and its InferenceMAX "
                           "runs of the MoE models ask for slower still, the layer-cost finding below again.",
    "bw_fraction cdna4": "MI355X's bandwidth share sits at its ceiling while its attention's arithmetic sits at its "
                         "floor: the step splits an MLA decode between reading the latent and its math otherwise than "
                         "AITER's kernels do, and the two values trade the difference (the next finding).",
    "attn_fraction cdna4": "On MI355X the fit puts the attention's arithmetic at the floor of its band: the runs are "
                           "DeepSeek's MLA, whose absorbed decode is compute-heavy, and the step's split of an MLA "
                           "step between reading the latent KV and the attention's math is not what these kernels "
                           "do.",
    "eager_layer_overhead_s all": "Steps no CUDA graph captures (prefill and mixed steps) are dearer than launch "
                                  "costs explain: prefill's work outside the GEMMs and attention lands here, and the "
                                  "runs trade it against vLLM's time per request (the identification's pairs).",
    "prompt_tokens llama-3.1-8b": "Llama 3.1 8B's mean prompt sits at the floor its dataset allows: the fit "
                                  "asks for less prefill than CNN/DailyMail's articles hold, most likely because the "
                                  "steps no graph captures are charged too much (the eager-layer finding above), "
                                  "which an 8B model's short steps feel most.",
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
