"""The scheduling policies: which work one engine step takes, behind one interface, `plan(state, now, admit)`.

- `DecodeFirst` (vLLM V1, TensorRT-LLM): every running decode, then continuing prefill chunks, then waiting
  prompts FCFS, until the token budget is spent;
- `PrefillFirst` (SGLang, ATOM): continuing chunks and waiting prompts fill a prefill-only step when any can be
  admitted; otherwise a decode step.

Under attention data parallelism each rank fills its own budget (scheduler.py).
"""

from __future__ import annotations

from typing import Protocol

from .scheduler import Scheduler, StepPlan
from .types import Sequence


class Policy(Protocol):
    def plan(self, state: Scheduler, now: float, admit: bool) -> StepPlan: ...


def _fill(state: Scheduler, now: float, budgets: list[int], admit: bool) -> list[tuple[Sequence, int]]:
    """Continuing chunks in admission order, then (when the scheduler looks at its queue) waiting prompts, each
    within its rank's budget (`budgets`, one a rank, spent as they go). A rank stops taking continuing chunks at
    the first that does not fit, and stops admitting at the first prompt that does not."""
    chunks: list[tuple[Sequence, int]] = []
    taken = [0] * state.ranks  # chunks each rank carries this step
    stalled = [False] * state.ranks
    for s in list(state.prefilling):
        k = state.rank_of(s)
        if stalled[k]:
            continue
        n = state.take_chunk(s, budgets[k], alone=not taken[k])
        if not n:
            stalled[k] = True
            if all(stalled):
                break
            continue
        chunks.append((s, n))
        budgets[k] -= n
        taken[k] += 1
    open_ranks = [True] * state.ranks
    # A full running cap refuses every rank: stop at once rather than close the ranks one scan at a time.
    while admit and len(state.running) < state.max_running:
        at = state.first_waiting(open_ranks)
        if at is None:
            break
        k = state.rank_of(state.waiting[at])
        got = state.admit(now, budgets[k], alone=not taken[k], at=at)
        if got is None:
            open_ranks[k] = False
            continue
        chunks.append(got)
        budgets[k] -= got[1]
        taken[k] += 1
    return chunks


class DecodeFirst:
    """vLLM V1 and TensorRT-LLM: decodes first, then prefill chunks, in one step, within the token budget."""

    def plan(self, state: Scheduler, now: float, admit: bool) -> StepPlan:
        state.make_room_for_decode()
        decode = state.decode_seqs > 0
        admit = admit and not state.preempted_this_step  # vLLM V1: `if not preempted_reqs`
        chunks = _fill(state, now, [state.rank_budget - d for d in state.rank_decodes], admit)
        return StepPlan(decode, tuple(chunks))


class PrefillFirst:
    """SGLang and ATOM: a prefill-only step whenever prompts can be admitted or a chunk continues."""

    def plan(self, state: Scheduler, now: float, admit: bool) -> StepPlan:
        chunks = _fill(state, now, [state.rank_budget] * state.ranks, admit)
        if chunks:
            return StepPlan(False, tuple(chunks))
        state.make_room_for_decode()
        return StepPlan(state.decode_seqs > 0)


POLICIES: dict[str, type] = {"mixed": DecodeFirst, "prefill-first": PrefillFirst}
