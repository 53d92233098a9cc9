"""Chapter 5.4's tensor-parallel scaling: the fitted step model's decode step and its named terms across TP
group sizes, for a measured setup (so a measured point sits beside each modelled one), and the widest split
worth its GPUs by the rule below. SI units; the page and the drawing format them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ...engine.calibration.measured import RANGE_RATIO, Run, meta, runs
from ...engine.lookup import get_gpu, get_model
from ...engine.serving.estimate import DecodeEstimate, decode_estimate
from ...engine.serving.profiles import engines, profile
from ...engine.specs import catalog

# The setup: GPT-OSS-120B (MXFP4) on B200 under vLLM at 4 requests in flight, 1,024-token prompts and replies:
# the InferenceMAX runs measured it at TP 1, 2 and 4, and at 4 sequences a step is small, which is the point.
MODEL, GPU, ENGINE = "gpt-oss-120b", "b200", "vllm"
CONCURRENCY, ISL, OSL = 4, 1024, 1024
SPLITS = (1, 2, 4, 8)  # powers of two up to one HGX node
# Doubling the group doubles the GPUs a replica holds; for latency it is worth it while it cuts the step by at
# least this share. Below that, the GPUs serve more as a second replica.
MIN_GAIN = 0.05


@dataclass(frozen=True)
class Split:
    gpus: int
    estimate: DecodeEstimate
    measured: Run | None  # the InferenceMAX run of this setup at this TP, if there is one

    @property
    def classes_s(self) -> dict[str, float]:
        """The step's named classes (each the larger of its memory and compute time), in seconds."""
        t = self.estimate.terms
        return {"dense": float(t.dense_s), "experts": float(t.moe_class_s), "attention": float(t.attention_class_s),
                "communication": float(t.communication_s), "fixed": float(t.fixed_s)}


def mean_context() -> float:
    """A decoding sequence's mean context in the benchmark: lengths drawn from RANGE_RATIO x to 1 x nominal
    (mean (1 + r) / 2 of it), at the middle of its reply on average."""
    scale = (1 + RANGE_RATIO) / 2
    return scale * ISL + scale * OSL / 2


def widest_useful(splits: list[Split]) -> Split:
    """The widest split reached by doublings that each cut the step by at least MIN_GAIN (splits narrowest
    first, each twice the one before)."""
    best = splits[0]
    for wider in splits[1:]:
        if wider.estimate.step_s > (1 - MIN_GAIN) * best.estimate.step_s:
            break
        best = wider
    return best


@cache
def tp_scaling() -> tuple[Split, ...]:
    weights = get_model(MODEL).native_weights
    kv = profile(ENGINE, GPU, MODEL, weights, CONCURRENCY).kv
    measured = {r.tp: r for r in runs() if (r.model, r.gpu, r.engine, r.weights, r.layout, r.isl, r.osl,
                                            r.concurrency, r.ep) == (MODEL, GPU, ENGINE, weights, "tp", ISL, OSL,
                                                                     CONCURRENCY, 1)}
    context = round(mean_context())
    return tuple(Split(g, decode_estimate(MODEL, GPU, g, "tp", weights, kv, CONCURRENCY, context, ENGINE),
                       measured.get(g)) for g in SPLITS)


def names() -> dict[str, str]:
    m, g = get_model(MODEL), get_gpu(GPU)
    return {"model": m.name, "gpu": g.name, "engine": engines()[ENGINE]["name"],
            "weights": catalog().precisions[m.native_weights].name}


def source() -> dict[str, str]:
    """The measured runs' provenance, as the data file states it."""
    return meta()
