"""Speculative decoding under the step model: what a verify step costs, what it yields, and the batch past
which it stops paying (ARCHITECTURE.md, the serving model).

A drafter proposes k tokens per sequence; one verify step runs the k + 1 tokens of every sequence through the
target model over one read of its weights and of each sequence's KV cache, and keeps the accepted prefix plus
the target's own token: formulas.speculative_tokens_per_step(a, k) of them on average when each draft token is
accepted with probability a, independently, until the first rejection. The verify step is priced by the same
step model as any other: its k extra tokens per sequence are prefill-like rows that attend to the sequence's
whole context, so they add GEMM, MoE and attention FLOPs and touch more experts, but read no more weights and
no more KV. At small batches the step is bound by its reads and the extra rows are nearly free; as the batch
grows the FLOPs catch up, and past the break-even batch a token costs more with speculation than without.

Drafting is priced as `draft_layers` of the model's own layers per draft token (DeepSeek-V3's MTP module is
one transformer block sharing the embedding and the head): the same step's time, scaled by
draft_layers / layers. A separate draft model would be its own replica; it is not modelled here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import formulas as f
from ..formulas._array import minimum
from .replica import Replica
from .step import StepCosts, step_time_s
from .types import StepBatch

# 1, 2, 3, 4, 6, 8, ... 4,096: the batches the break-even scan walks
BATCHES = tuple(sorted({2 ** i for i in range(13)} | {3 * 2 ** i for i in range(11)}))


@dataclass(frozen=True)
class SpeculativeStep:
    batch: int
    draft_tokens: int  # k
    acceptance: float  # a, per draft token
    plain_step_s: float  # a decode step of the same batch without speculation
    verify_step_s: float  # every sequence's k + 1 tokens, one weight and KV read
    draft_s: float  # drafting k tokens for every sequence
    tokens_per_step: float  # per sequence: (1 - a^(k+1)) / (1 - a)

    @property
    def tpot_s(self) -> float:
        return (self.verify_step_s + self.draft_s) / self.tokens_per_step

    @property
    def speedup(self) -> float:
        """Tokens per second with speculation over without: above 1 it pays."""
        return self.plain_step_s / self.tpot_s


def verify_batch(r: Replica, batch: int, context: float, draft_tokens: int) -> StepBatch:
    """`batch` sequences of `context` tokens each, verifying `draft_tokens` each: one decode token per
    sequence plus k prefill-like rows that attend to the whole context and read no KV of their own."""
    extra = batch * draft_tokens
    window = minimum(context, r.window) if r.window else 0.0
    return StepBatch(decode_seqs=batch, decode_context=batch * context, prefill_tokens=extra, prefill_seqs=0,
                     prefill_pairs=extra * context, prefill_window_pairs=extra * window,
                     prefill_rank_share=1 / r.ranks)  # each sequence's drafts on its own rank, the ranks even


def speculative_step(c: StepCosts, batch: int, context: float, draft_tokens: int, acceptance: float,
                     draft_layers: int = 1, graphed: bool = True) -> SpeculativeStep:
    """One verify step of `batch` sequences at `context` tokens each, against a plain decode step."""
    r = c.replica
    plain = float(step_time_s(c, StepBatch(decode_seqs=batch, decode_context=batch * context), graphed))
    verify = float(step_time_s(c, verify_batch(r, batch, context, draft_tokens), graphed))
    return SpeculativeStep(batch=batch, draft_tokens=draft_tokens, acceptance=acceptance, plain_step_s=plain,
                           verify_step_s=verify, draft_s=draft_tokens * draft_layers / r.layers * plain,
                           tokens_per_step=float(f.speculative_tokens_per_step(acceptance, draft_tokens)))


def break_even_batch(c: StepCosts, context: float, draft_tokens: int, acceptance: float,
                     draft_layers: int = 1) -> int | None:
    """The smallest batch on BATCHES at which speculation no longer pays (speedup <= 1); None when it still
    pays at the largest. A scan, not a bisection: for a MoE model the speedup is not monotone in the batch
    (at a few sequences the draft rows touch experts a plain step would not read; once every expert is
    read anyway they are free again), so the first batch where it fails is found by walking up."""
    return next((b for b in BATCHES if speculative_step(c, b, context, draft_tokens, acceptance,
                                                        draft_layers).speedup <= 1), None)
