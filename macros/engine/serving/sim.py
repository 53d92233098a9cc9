"""The event loop: one replica serving a stream of requests, step by step, as continuous batching runs it.

Each turn of the loop makes the requests that have reached the server visible to the scheduler, asks
the engine's policy for the next step's work, prices it with the step model, and applies it. A stretch
of identical decode steps (no prefill, no admission, no arrival, no finish before its end) is taken in
one turn: its time is summed exactly (step.decode_run_s), and the decode batch is kept as aggregates, so
a turn costs O(what changes), not O(batch) or O(tokens).

A closed loop (ClosedLoop: a benchmark client at a fixed concurrency) starts `concurrency` requests at
time 0 and sends the next the moment one finishes. Open-loop requests arrive at their own times. Each
request reaches the scheduler request_overhead_s + prompt_token_overhead_s x its prompt tokens after the API
server has done its own work on it (the API server's latency and tokenising; a shorter prompt sent later may get
there first), and its time to first token, end-to-end latency and queue wait are measured from when it was sent.
That work, api_request_s a request, is done one request at a time in the order they are sent (one process per
replica): a queue in front of the engine that caps the replica at 1 / api_request_s requests a second.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field

from .arrivals import Arrivals, ClosedLoop, requests
from .kv_blocks import KvPool, pool_blocks
from .lengths import Lengths
from .policies import POLICIES
from .prng import Rng
from .profiles import EngineProfile
from .replica import Replica
from .scheduler import Scheduler
from .step import StepParams, costs, decode_run_s, decode_steps_until, step_time_s
from .types import Request, RequestRecord, Sequence

TIMELINE_POINTS = 1000  # the timeline is thinned to at most this many points


class SimulationError(ValueError):
    """A workload the replica cannot serve at all (a request that can never fit its KV pool)."""


@dataclass(frozen=True)
class RequestStream:
    arrivals: Arrivals
    prompt: Lengths
    output: Lengths
    requests: int
    seed: int = 0
    prefix_hit_rate: float = 0.0  # share of each prompt already in the prefix cache (its blocks are still the
    # sequence's own: the pool does not share a prefix between sequences, which overstates KV use)


@dataclass
class SimResult:
    records: list[RequestRecord]
    duration_s: float  # from time 0 to the last finish
    steps: int
    preemptions: int
    in_system_area: float  # integral over time of the requests sent and not finished (for Little's law)
    busy_s: float  # time the replica spent in steps
    batch_area: float  # integral over busy time of the sequences a step serves
    kv_area: float  # integral over busy time of the KV pool's occupancy
    kv_blocks: int
    timeline: list[tuple[float, int, float, int]] = field(repr=False)  # (time, running, KV occupancy, waiting)
    itl: list[tuple[float, float]] = field(repr=False)  # (gap between two tokens, how many tokens had it)


def _thin(points: list, most: int) -> list:
    if len(points) <= most:
        return points
    stride = len(points) / most
    return [points[int(i * stride)] for i in range(most)]


def simulate(r: Replica, p: StepParams, profile: EngineProfile, w: RequestStream) -> SimResult:
    """Serve the workload's requests on the replica and return every finished request's record."""
    c = costs(r, p)
    pool = KvPool(pool_blocks(r, profile.memory_fraction, profile.block_tokens), profile.block_tokens)
    state = Scheduler(profile, pool, window=r.window, ranks=r.ranks)
    policy = POLICIES[profile.policy]()
    todo = requests(w.arrivals, w.prompt, w.output, w.requests, Rng(w.seed), w.prefix_hit_rate)
    closed = isinstance(w.arrivals, ClosedLoop)
    if closed:
        pending = deque(todo[:w.arrivals.concurrency])
        later = deque(todo[w.arrivals.concurrency:])
    else:
        pending, later = deque(todo), deque()
    sent: list[tuple[float, int, Request]] = []  # (when it reaches the scheduler, id, request): a heap
    now = area = busy = batch_area = kv_area = 0.0
    in_system = steps = 0
    last_decode_end = 0.0
    records: list[RequestRecord] = []
    timeline: list[tuple[float, int, float, int]] = []
    itl: list[tuple[float, float]] = []
    api_free = 0.0  # when the API server is done with the requests sent so far

    def reaches(q: Request) -> float:  # the API server's queue and own work, its latency and time per prompt token
        nonlocal api_free
        start = max(api_free, q.arrival_s)  # it waits for the requests sent before it
        api_free = start + p.api_request_s
        return start + p.api_latency_s(q.prompt_tokens)
    every = profile.admission_interval_steps

    while True:
        while pending and pending[0].arrival_s <= now:
            q = pending.popleft()
            area += now - q.arrival_s  # it has been in the system since it was sent
            in_system += 1
            heapq.heappush(sent, (reaches(q), q.id, q))
        while sent and sent[0][0] <= now:
            at, _, q = heapq.heappop(sent)
            state.waiting.append(Sequence(q, at, 0, target=q.prompt_tokens, prefilled=q.cached_tokens))
        # The next moment something reaches the scheduler, or is sent and so starts on its way there.
        heads = ([sent[0][0]] if sent else []) + ([pending[0].arrival_s] if pending else [])
        next_visible = min(heads) if heads else None
        if not state.running and not state.waiting:
            if next_visible is None:
                break
            area += in_system * (next_visible - now)
            now = last_decode_end = next_visible  # an idle spell is no gap between any stream's tokens
            continue
        plan = policy.plan(state, now, admit=not state.running or steps % every == 0)
        if not plan.decode and not plan.chunks:  # nothing runs, and nothing frees memory to change that
            head = (state.waiting[0] if state.waiting else next(iter(state.running.values()))).request
            raise SimulationError(f"request {head.id} ({head.prompt_tokens:,} prompt tokens) cannot fit the "
                                  f"replica's KV pool of {pool.blocks:,} blocks of {pool.block_tokens} tokens")
        n_dec = state.decode_seqs if plan.decode else 0
        graphed = not plan.chunks and n_dec <= profile.graph_max_batch
        if plan.chunks:
            k, dt = 1, step_time_s(c, state.batch(plan), graphed)
        else:
            k = state.steps_to_next_finish()
            if state.waiting and len(state.running) < state.max_running:
                k = min(k, every - steps % every)  # until the scheduler next looks at its queue
            k = max(1, min(k, state.steps_within_blocks()))
            if next_visible is not None:
                k = decode_steps_until(c, n_dec, state.decode_context, k, next_visible - now, graphed)
            dt = decode_run_s(c, n_dec, state.decode_context, k, graphed)
        served = n_dec + len(plan.chunks)
        occupancy = pool.occupancy if state.reserves else min(1.0, (pool.used + state.decode_blocks_bound()
                                                                   - n_dec / 2) / max(pool.blocks, 1))
        timeline.append((now, len(state.running), occupancy, len(state.waiting)))
        area += in_system * dt
        busy += dt
        batch_area += served * dt
        kv_area += occupancy * dt
        now += dt
        steps += k
        if plan.decode:
            # Of a run of k decode steps, k - 1 gaps are one step each; the first reaches back to the last decode step
            # (the prefill-only steps between are a wait the streams see). After an idle spell that is when the
            # replica woke: the streams are new, and the gap before their second token is their prefill's.
            itl.append((now - dt - last_decode_end + dt / k, n_dec))
            if k > 1:
                itl.append((dt / k, (k - 1) * n_dec))
            last_decode_end = now
        for s in state.finish_step(plan, k, now):
            q = s.request
            records.append(RequestRecord(q.id, q.arrival_s, q.prompt_tokens, q.output_tokens,
                                         s.first_token_s - q.arrival_s, now - q.arrival_s, s.admitted_s - q.arrival_s,
                                         s.preemptions))
            in_system -= 1
            if closed and later:
                nxt = later.popleft()
                pending.append(Request(nxt.id, now, nxt.prompt_tokens, nxt.output_tokens, nxt.cached_tokens))
    return SimResult(records=records, duration_s=now, steps=steps, preemptions=state.preemptions,
                     in_system_area=area, busy_s=busy, batch_area=batch_area, kv_area=kv_area, kv_blocks=pool.blocks,
                     timeline=_thin(timeline, TIMELINE_POINTS), itl=itl)
