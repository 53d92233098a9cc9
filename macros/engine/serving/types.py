"""The nouns the simulator passes around: a request, the batch of one step, a per-request record.

Plain frozen dataclasses of numbers (and mutable state only in `Sequence`, the scheduler's view of a
request in flight), so that the JavaScript twin can mirror them as plain objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Request:
    """One request as the client sends it."""

    id: int
    arrival_s: float  # when the client sends it (closed loop: when a slot frees)
    prompt_tokens: int
    output_tokens: int  # generated tokens, the first included (the benchmark ignores EOS)
    cached_tokens: int = 0  # prompt tokens already in the prefix cache


@dataclass(eq=False)
class Sequence:
    """A request inside the engine: its prefill progress, and while it decodes, where its decode began
    (tokens generated and context then are derived from the engine's decode-step counter, so a decode
    step touches no sequence)."""

    request: Request
    queued_s: float  # when it reached the scheduler (arrival plus the server's request overhead)
    order: int  # admission order: preemption takes the newest (largest) first
    target: int = 0  # tokens to prefill: the prompt, or prompt and output so far after a preemption
    prefilled: int = 0  # of them, in the KV cache (a cached prefix included)
    generated: int = 0  # output tokens produced, as of decode_from
    blocks: int = 0  # KV blocks held outside the decode aggregate
    decoding: bool = False
    decode_from: int = 0  # the engine's decode-step count when this sequence began decoding
    context_from: int = 0  # tokens it attended to in its first decode step
    admitted_s: float | None = None  # first admission into the running batch
    first_token_s: float | None = None
    preemptions: int = 0
    # After a preemption under prefix caching: its full blocks, in the cache until the pool hands them out
    # again; the pool had handed out `evicted_after` blocks in all when they were freed
    cached_blocks: int = 0
    evicted_after: float = 0.0

    @property
    def remaining_prefill(self) -> int:
        return self.target - self.prefilled


@dataclass(frozen=True)
class StepBatch:
    """What one step serves, as the aggregates the step time needs (never per-sequence lists).

    decode_context is the sum over decode sequences of the tokens each attends to in a full-attention
    layer; windowed layers attend to min(context, window), taken at the mean context (exact when every
    context is on the same side of the window, which holds for prompts longer than the window).
    """

    decode_seqs: int = 0
    decode_context: float = 0.0
    prefill_tokens: int = 0  # new prompt tokens in this step's chunks
    prefill_seqs: int = 0
    prefill_pairs: float = 0.0  # causal (query, key) pairs of the chunks in a full-attention layer
    prefill_window_pairs: float = 0.0  # the same in a sliding-window layer
    prefill_prefix_tokens: float = 0.0  # cached tokens the chunks attend back to (their KV is read)
    # Under attention data parallelism, the busiest rank's share of the step's new prompt tokens (its chunks' pairs
    # and prefixes taken in the same share); 1: one rank, or every chunk on one
    prefill_rank_share: float = 1.0

    @property
    def tokens(self) -> int:
        return self.decode_seqs + self.prefill_tokens


@dataclass(frozen=True)
class RequestRecord:
    """One finished request, as a benchmark client measures it (seconds from its arrival)."""

    id: int
    arrival_s: float
    prompt_tokens: int
    output_tokens: int
    ttft_s: float  # arrival to first token, queue wait included
    e2e_s: float  # arrival to last token
    queue_s: float  # arrival to first admission into the running batch
    preemptions: int
    itl_s: tuple[float, ...] = field(default=(), repr=False)  # gaps between streamed tokens, when kept

    @property
    def tpot_s(self) -> float:
        """(E2E - TTFT) / (output - 1), as the benchmark client computes it; 0 for one-token outputs."""
        return (self.e2e_s - self.ttft_s) / (self.output_tokens - 1) if self.output_tokens > 1 else 0.0
