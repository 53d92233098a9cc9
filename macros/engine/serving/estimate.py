"""The calculator's estimate: one decode step of a full batch under the fitted step model, with its band.

The floor (formulas/, scenario.py) is what the hardware allows; this is what an engine was measured to do
(calibration.toml), for the same batch and context. It is a steady decode step with no prefill in it and
no queue: the simulator (`gpu_math.py simulate`) adds those. The band is the p10 and p90 of the
cross-validated ratio of predicted to measured median TPOT on this GPU (or on its family, when the GPU has
no measured runs): the measured value lies between step / p90 and step / p10 on eight runs in ten.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lookup import InputError
from .calibration import band_for, calibration, params_for
from .families import family_of
from .profiles import profile
from .replica import build_replica
from .scheduler import chunk_pairs
from .step import StepCosts, StepTerms, costs, step_terms
from .types import StepBatch

DEFAULT_ENGINE = "vllm"


@dataclass(frozen=True)
class DecodeEstimate:
    engine: str
    step_s: float  # one decode step of `batch` sequences, each at `context` tokens
    low_s: float  # step_s / the band's p90 ratio
    high_s: float  # step_s / its p10 ratio
    band_from: str  # what the band rests on: the GPU's own runs, or its family's
    graphed: bool  # the batch is within the engine's CUDA-graph capture limit
    terms: StepTerms


def decode_estimate(model: str, gpu: str, gpus: int, layout: str, weights: str, kv: str, batch: int,
                    context: int, engine: str = DEFAULT_ENGINE) -> DecodeEstimate:
    """The fitted step model's decode step for a replica of `gpus` x `gpu` serving `batch` sequences of
    `context` tokens each. Raises InputError for a GPU in no family (the model has no parameters for it)."""
    family_of(gpu)
    if batch < 1:
        raise InputError(f"batch must be at least 1 for an estimate, got {batch}")
    replica = build_replica(model, gpu, gpus, layout, 1, weights, kv)
    prof = profile(engine, gpu, replica.model, weights, batch)
    graphed = batch <= prof.graph_max_batch
    terms = step_terms(costs(replica, params_for(gpu, engine, replica.attention)),
                       StepBatch(decode_seqs=batch, decode_context=batch * context), graphed)
    p10, p90, source = band_for(gpu)
    measured = calibration().measured_models
    if replica.model not in measured:
        source += f" (none of {replica.model})"
    step = float(terms.total_s)
    return DecodeEstimate(engine=engine, step_s=step, low_s=step / p90, high_s=step / p10, band_from=source,
                          graphed=graphed, terms=terms)


def prompt_alone_steps(c: StepCosts, tokens: int, budget: int) -> list[StepTerms]:
    """One uncached prompt of `tokens` on an idle replica under the fitted step model, stepped as the scheduler
    steps it: chunks of the token budget, each attending to those before it, in eager steps (a graph is captured
    for decode batches only). Its time to first token is their sum plus the API server's latency."""
    done, steps = 0, []
    while done < tokens:
        n = min(budget, tokens - done)
        pairs, window_pairs = chunk_pairs(done, n, c.replica.window)
        steps.append(step_terms(c, StepBatch(prefill_tokens=n, prefill_seqs=1, prefill_prefix_tokens=done,
                                             prefill_pairs=pairs, prefill_window_pairs=window_pairs), False))
        done += n
    return steps
