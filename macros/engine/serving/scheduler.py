"""Continuous batching: the state one engine step works on, and what happens to its sequences after it.

`Scheduler` holds the waiting queue (FCFS), the running batch and the KV pool, and keeps the decode
batch as aggregates (its size and the sum of its contexts), so a decode step costs O(1) whatever the
batch. A policy (policies.py) chooses each step's work from it; a prompt is chunked where the engine chunks.

Admission stops at the running cap. Under attention data parallelism the replica's g ranks each schedule
their own sequences (a request is given to rank id mod g on arrival: round robin), each under its own token
budget, and one step runs every rank's work; the KV pool and the running cap are pooled over the ranks (each
rank's own share of them is left out). When a decode step needs more KV blocks than are free, the newest
running sequence is preempted and recomputed later (its blocks freed, its prompt and output so far
prefilled again); an engine that reserves ("reserve") admits a prompt only with blocks for its whole output.
As vLLM V1 does, a step that preempts admits no waiting prompt, and under prefix caching a preempted
sequence's freed blocks stay in the cache until the pool hands them out again: the free list gives out the
blocks freed before them first, and theirs tail first, so on readmission it recomputes only what was lost.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

from ..formulas.roofline import causal_pairs
from .kv_blocks import KvPool
from .profiles import EngineProfile, rank_limits
from .types import Sequence, StepBatch

WAITING_SCAN = 256  # how deep admission looks into the queue for a sequence of a rank that still schedules


def chunk_pairs(prefilled: int, n: int, window: int) -> tuple[float, float]:
    """The causal (query, key) pairs of a chunk of n prompt tokens after `prefilled` already in the cache, in a
    full-attention layer and in a layer of that sliding window (0: none)."""
    full = causal_pairs(prefilled + n) - causal_pairs(prefilled)
    return full, causal_pairs(prefilled + n, window) - causal_pairs(prefilled, window) if window else 0.0


@dataclass(frozen=True)
class StepPlan:
    decode: bool  # the running decodes advance this step
    chunks: tuple[tuple[Sequence, int], ...] = ()  # (sequence, new prompt tokens)


@dataclass
class Scheduler:
    profile: EngineProfile
    pool: KvPool
    window: int = 0  # the model's sliding window, for the windowed layers' attention pairs
    ranks: int = 1  # attention data-parallel ranks, each scheduling its own sequences
    waiting: deque[Sequence] = field(default_factory=deque)
    running: dict[int, Sequence] = field(default_factory=dict)  # admission order
    prefilling: list[Sequence] = field(default_factory=list)  # running, not yet decoding, admission order
    decode_seqs: int = 0
    decode_context: int = 0  # sum over decoding sequences of the tokens the next step attends to
    decode_steps: int = 0
    preemptions: int = 0
    preempted_this_step: bool = False
    allocated: float = 0.0  # blocks the pool has handed out, in all (a decode step's counted at batch / block)
    _finishes: list[tuple[int, int, Sequence]] = field(default_factory=list)  # (decode step, order, seq)
    _admitted: int = 0
    # Decoding sequences by their context's phase in a block, (context_from - decode_from) mod block_tokens: with
    # the aggregate context, the decode batch's exact blocks in O(block_tokens), not O(batch).
    _phases: list[int] = field(default_factory=list)
    rank_decodes: list[int] = field(default_factory=list)  # decoding sequences on each rank
    rank_budget: int = field(init=False, default=0)  # one rank's tokens per step (profiles.rank_limits) ...
    max_running: int = field(init=False, default=0)  # ... and the replica's running cap

    def __post_init__(self) -> None:
        self._phases = [0] * self.pool.block_tokens
        self.rank_decodes = [0] * self.ranks
        self.rank_budget, self.max_running = rank_limits(self.profile, self.ranks)

    def rank_of(self, s: Sequence) -> int:
        return s.request.id % self.ranks

    @property
    def reserves(self) -> bool:
        return self.profile.preemption == "reserve"

    # --- the decode aggregate ---------------------------------------------------------------

    def generated(self, s: Sequence) -> int:
        return s.generated + (self.decode_steps - s.decode_from if s.decoding else 0)

    def _context(self, s: Sequence) -> int:
        return s.context_from + self.decode_steps - s.decode_from

    def _start_decoding(self, s: Sequence) -> None:
        s.decoding, s.decode_from, s.context_from = True, self.decode_steps, s.target + 1
        self.decode_seqs += 1
        self.rank_decodes[self.rank_of(s)] += 1
        self.decode_context += s.context_from
        self._phases[(s.context_from - s.decode_from) % self.pool.block_tokens] += 1
        if not self.reserves:  # its blocks join the decode aggregate, counted from its context
            self.pool.give_back(s.blocks)
            s.blocks = 0
        heapq.heappush(self._finishes, (self.decode_steps + s.request.output_tokens - s.generated, s.order, s))

    def _stop_decoding(self, s: Sequence) -> None:
        s.generated = self.generated(s)
        self.decode_seqs -= 1
        self.rank_decodes[self.rank_of(s)] -= 1
        self.decode_context -= self._context(s)
        self._phases[(s.context_from - s.decode_from) % self.pool.block_tokens] -= 1
        s.decoding = False

    def steps_to_next_finish(self) -> int:
        while self._finishes and not self._finishes[0][2].decoding:
            heapq.heappop(self._finishes)  # preempted since it was pushed
        return self._finishes[0][0] - self.decode_steps if self._finishes else 0

    def decode_blocks_bound(self, steps_ahead: int = 0) -> float:
        """An upper bound on the decode batch's blocks `steps_ahead` steps on: each sequence holds
        ceil(context / block) <= context / block + 1."""
        if self.reserves:
            return 0.0
        return (self.decode_context + steps_ahead * self.decode_seqs) / self.pool.block_tokens + self.decode_seqs

    def steps_within_blocks(self) -> int:
        """Decode steps that surely fit the pool (by the bound); 0 means check exactly first."""
        if self.reserves or not self.decode_seqs:
            return 1 << 60
        room = (self.pool.free - self.decode_seqs) * self.pool.block_tokens - self.decode_context
        return max(0, room // self.decode_seqs + 1)

    def decode_blocks_exact(self) -> int:
        """The decode batch's blocks, sum of ceil(context / block): the contexts' sum plus each one's padding to a
        whole block, (-context) mod block, which a sequence's phase and the step count give."""
        bt, d = self.pool.block_tokens, self.decode_steps
        padding = sum(n * (-(phase + d) % bt) for phase, n in enumerate(self._phases) if n)
        return (self.decode_context + padding) // bt

    def make_room_for_decode(self) -> None:
        """Before a decode step: preempt the newest running sequences until every decode fits."""
        if self.reserves or self.pool.used + self.decode_blocks_bound() <= self.pool.blocks:
            return
        need = self.decode_blocks_exact()
        while self.decode_seqs and self.pool.used + need > self.pool.blocks:
            newest = next(reversed(self.running.values()))
            if newest.decoding:
                need -= self.pool.blocks_for(self._context(newest))
            self.preempt(newest)

    def preempt(self, s: Sequence) -> None:
        """Free the sequence's KV and queue it first, to prefill its prompt and output so far again, but for
        what the prefix cache still holds of it when it is readmitted. A preemption happens when no block is
        free, so the next blocks the pool hands out are its own, from its tail."""
        if s.decoding:
            self._stop_decoding(s)
            cached = s.request.prompt_tokens + s.generated - 1  # the last token's KV is not written yet
        else:
            self.prefilling.remove(s)
            cached = s.prefilled
        self.pool.give_back(s.blocks)
        s.blocks, s.prefilled = 0, 0
        s.target = s.request.prompt_tokens + s.generated
        if self.profile.prefix_caching:
            s.cached_blocks = min(cached, s.target - 1) // self.pool.block_tokens  # full blocks only are hashed
            s.evicted_after = self.allocated
        self.preempted_this_step = True
        s.preemptions += 1
        self.preemptions += 1
        del self.running[s.order]
        self.waiting.appendleft(s)

    # --- prefill chunks and admission -------------------------------------------------------

    def take_chunk(self, s: Sequence, budget: int, alone: bool) -> int:
        """Blocks for the sequence's next chunk (at most `budget` tokens; a whole prompt if the engine does
        not chunk, or alone in its step when it exceeds the budget): the tokens granted, 0 if none."""
        n = s.remaining_prefill
        if n > budget:
            if self.profile.chunked_prefill:
                n = budget
            elif not (alone and n > self.rank_budget):
                return 0
        total = s.target + s.request.output_tokens - s.generated if self.reserves else s.prefilled + n
        need = self.pool.blocks_for(total) - s.blocks
        if n <= 0 or not self.pool.take(need):
            return 0
        s.blocks += need
        self.allocated += need
        return n

    def first_waiting(self, open_ranks: list[bool]) -> int | None:
        """The queue position of the first waiting sequence whose rank still schedules this step (looking at most
        WAITING_SCAN deep: requests alternate ranks, so one of every open rank is near the head)."""
        for i, s in enumerate(self.waiting):
            if i >= WAITING_SCAN:
                return None
            if open_ranks[self.rank_of(s)]:
                return i
        return None

    def admit(self, now: float, budget: int, alone: bool, at: int = 0) -> tuple[Sequence, int] | None:
        """The chunk of the waiting sequence at queue position `at` (the head), if the cap, the budget and the pool
        allow."""
        if not self.waiting or len(self.running) >= self.max_running or budget <= 0:
            return None
        s = self.waiting[at]
        if s.cached_blocks and not s.prefilled:  # what the prefix cache still holds of it
            lost = max(0, math.floor(self.allocated - s.evicted_after))
            s.prefilled = min(max(0, s.cached_blocks - lost) * self.pool.block_tokens, s.target - 1)
        n = self.take_chunk(s, budget, alone)
        if not n:
            s.prefilled = 0
            return None
        s.cached_blocks = 0
        del self.waiting[at]
        self._admitted += 1
        s.order = self._admitted
        self.running[s.order] = s
        self.prefilling.append(s)
        if s.admitted_s is None:
            s.admitted_s = now
        return s, n

    # --- one step ---------------------------------------------------------------------------

    def batch(self, plan: StepPlan) -> StepBatch:
        """The step's aggregates: the decode batch's, and each chunk's pairs after its cached prefix."""
        pairs = window_pairs = prefix = tokens = 0.0
        rank_tokens = [0] * self.ranks
        for s, n in plan.chunks:
            full, windowed = chunk_pairs(s.prefilled, n, self.window)
            pairs += full
            window_pairs += windowed
            prefix += s.prefilled
            tokens += n
            rank_tokens[self.rank_of(s)] += n
        n_dec = self.decode_seqs if plan.decode else 0
        return StepBatch(decode_seqs=n_dec, decode_context=self.decode_context if plan.decode else 0,
                         prefill_tokens=int(tokens), prefill_seqs=len(plan.chunks), prefill_pairs=pairs,
                         prefill_window_pairs=window_pairs, prefill_prefix_tokens=prefix,
                         prefill_rank_share=max(rank_tokens) / tokens if tokens else 1.0)

    def finish_step(self, plan: StepPlan, steps: int, end_s: float) -> list[Sequence]:
        """Apply `steps` identical steps of `plan` ending at end_s (chunks only when steps == 1): decodes
        advance, finished prefills emit a token and start decoding; the sequences now done, in order."""
        self.preempted_this_step = False
        if plan.decode:
            self.decode_steps += steps
            self.decode_context += steps * self.decode_seqs
            self.allocated += steps * self.decode_seqs / self.pool.block_tokens
        done = []
        for s, n in plan.chunks:
            s.prefilled += n
            if s.prefilled < s.target:
                continue
            self.prefilling.remove(s)
            s.generated += 1  # the prefill step samples a token
            if s.first_token_s is None:
                s.first_token_s = end_s
            if s.generated >= s.request.output_tokens:
                done.append(s)
            else:
                self._start_decoding(s)
        while self._finishes and self._finishes[0][0] <= self.decode_steps:
            _, _, s = heapq.heappop(self._finishes)
            if s.decoding:
                self._stop_decoding(s)
                done.append(s)
        for s in done:
            self.pool.give_back(s.blocks)
            s.blocks = 0
            del self.running[s.order]
        return done
