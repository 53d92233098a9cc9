"""What each fitted value at an edge of its band says (model-vs-measured.md, "The fitted parameters"). A value the
runs push to an edge is a finding, not a measurement: the step's form leaves something out, and the parameter
stands in for it. Every value calibrate lists at an edge needs its sentence here (a test holds it), so a refit
that moves another value to an edge says what it means before the page can show it."""

from __future__ import annotations

from ...engine.calibration import report as v
from ...engine.serving.calibration import BY_NAME, Calibration

FINDINGS = {
    "bw_fraction blackwell": "Blackwell's bandwidth share sits at its ceiling, the share a copy kernel reads of "
                             "B200's datasheet (the measurement the band cites). NVIDIA's Llama 2 70B rows on B200, "
                             "decode-heavy, still come out slower than measured in every scenario, while its Llama "
                             "3.1 8B rows, prefill-heavy, come out faster: on Blackwell (FP4 weights, FP8 KV) the "
                             "step prices one of the two kinds of step wrong, and the ceiling holds the value between "
                             "them.",
    "layer_overhead_s cdna3": "MI300X's fixed cost per layer stays at its ceiling, and so does its all-reduce's hop "
                              "latency (the finding above), although its single-GPU MLPerf rows run no all-reduce at "
                              "all: ROCm's graph replay and small kernels cost more per layer than the band's kernel "
                              "minimums, or these engines pay a per-layer cost on ROCm that the step does not name.",
    "link_latency_s cdna3": "MI300X's hop latency sits at its ceiling and trades with its fixed cost per layer "
                            "(correlated near -1): its only runs with an all-reduce are SGLang's DeepSeek over eight "
                            "GPUs, which price the two together, and together they say a DeepSeek layer on MI300X "
                            "costs more than RCCL's hops and the kernels' minimums explain.",
    "attn_fraction cdna4": "On MI355X the fit puts the attention's arithmetic at the floor of its band: most runs are "
                           "DeepSeek's MLA, whose absorbed decode is compute-heavy, and the step's split of an MLA "
                           "step between reading the latent KV and the attention's math is not what these kernels "
                           "do.",
    "eager_layer_overhead_s all": "Steps no CUDA graph captures (prefill and mixed steps) are dearer than launch "
                                  "costs explain: prefill's work outside the GEMMs and attention lands here, and the "
                                  "runs trade it against vLLM's time per request (the identification's pairs).",
    "kernel_fraction atom": "ATOM runs only on MI355X, so its kernels' factor trades with CDNA 4's fractions "
                            "(correlated near -1): at its floor it says ATOM's MI355X runs are slower than CDNA 4's "
                            "GEMMs and attention predict, with the attention's arithmetic at its own floor (above).",
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
