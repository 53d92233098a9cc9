"""Disaggregated prefill and decode (ARCHITECTURE.md): a prefill pool and a decode pool, each with its own replica
shape and count, the KV cache moved between them, priced under the fitted step model.

Prefill pool: a replica runs prompt-only steps of its engine's token budget; one request alone takes its
chunks' steps, and at full load the replica clears budget / t(budget) prompt tokens a second. Its queue is
taken as M/D/1 at that service rate (a mean wait of rho D / 2 (1 - rho)), so a pool's mean TTFT is the
server's request overhead, the wait, one request's prefill and the KV transfer. The pool is the fewest GPUs,
over the shapes, whose mean TTFT meets the target with the headroom spare.

Decode pool: a replica runs decode-only steps (no prefill lands in them: the reason to disaggregate), as many
sequences as its KV pool, its engine's running cap and the TPOT target allow; it serves batch / ((O - 1) t_d)
requests a second. The pool is the fewest GPUs, over the shapes, that carry the peak with the headroom.

KV transfer: the prompt's KV (every copy the decode layout keeps is rebuilt there, so one copy crosses),
sent by the prefill replica's g GPUs in parallel over their links: NVLink inside a node, the NIC
(claims.toml nic-bandwidth) between nodes, with no overlap with prefill (Mooncake and NIXL send it layer by
layer as prefill runs, which hides most of it: this is the worst case).

Beside it, the colocated answer from the shape search (shapes.py) at the same targets, so the plan can say
whether disaggregation saves GPUs for this workload. Left out: the prefill queue's tail (the simulator
gives percentiles for a colocated replica; this pool's p95 is not simulated), and prefix caching across pools.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import formulas as f
from ..lookup import InputError, get_gpu, get_model
from ..serving.calibration import params_for
from ..serving.kv_blocks import pool_blocks
from ..serving.profiles import profile, rank_limits
from ..serving.replica import build_replica
from ..serving.step import StepCosts, costs, step_time_s
from ..serving.types import StepBatch
from ..specs import catalog
from .shapes import Shape, ShapeSearch, candidates, search

NIC_BANDWIDTH_CLAIM = "nic-bandwidth"  # the link between nodes (claims.toml), its low end


@dataclass(frozen=True)
class Pool:
    shape: Shape
    replicas: int
    requests_per_s_per_replica: float  # at full load (prefill) or at the TPOT-bound batch (decode)
    utilisation: float  # peak arrivals over the pool's capacity
    step_s: float  # prefill: one request alone; decode: one step at `batch`
    batch: int  # decode: sequences per replica; prefill: prompts per full step

    @property
    def gpus(self) -> int:
        return self.replicas * self.shape.gpus


@dataclass(frozen=True)
class Disaggregated:
    prefill: Pool | None  # None: no shape meets the TTFT target
    decode: Pool | None  # None: no shape meets the TPOT target
    kv_transfer_s: float
    same_node: bool
    ttft_s: float | None  # mean, the transfer included
    colocated_gpus: int | None  # the shape search's best colocated fleet for the same peak and targets
    colocated_shape: Shape | None

    @property
    def gpus(self) -> int | None:
        return None if self.prefill is None or self.decode is None else self.prefill.gpus + self.decode.gpus

    @property
    def wins(self) -> bool | None:
        """Fewer GPUs than colocated serving; None when either side has no answer."""
        if self.gpus is None or self.colocated_gpus is None:
            return None
        return self.gpus < self.colocated_gpus


def _costs(model: str, gpu: str, shape: Shape, weights: str, kv: str, engine: str) -> StepCosts:
    r = build_replica(model, gpu, shape.gpus, shape.layout, shape.ep, weights, kv)
    return costs(r, params_for(gpu, engine, r.attention))


def prefill_step_s(c: StepCosts, tokens: int, prompt: int, cached: int) -> float:
    """A prompt-only step of `tokens` new tokens, whole prompts of `prompt` new tokens after `cached` (under
    attention data parallelism, one a rank as far as they go)."""
    prompts = tokens / prompt
    window = c.replica.window or None
    pairs = (f.causal_pairs(cached + prompt) - f.causal_pairs(cached)) * prompts
    window_pairs = (f.causal_pairs(cached + prompt, window) - f.causal_pairs(cached, window)) * prompts if window else 0
    batch = StepBatch(prefill_tokens=tokens, prefill_seqs=max(1, round(prompts)), prefill_pairs=pairs,
                      prefill_window_pairs=window_pairs, prefill_prefix_tokens=cached * prompts,
                      prefill_rank_share=1 / min(max(prompts, 1.0), c.replica.ranks))
    return float(step_time_s(c, batch, graphed=False))


def prompt_time_s(c: StepCosts, prompt: int, cached: int, budget: int) -> float:
    """One prompt of `prompt` new tokens after `cached`, alone on the replica: its chunks of at most `budget`
    tokens, each attending to everything before it."""
    done, total = 0, 0.0
    while done < prompt:
        chunk = min(budget, prompt - done)
        total += prefill_step_s(c, chunk, chunk, cached + done)
        done += chunk
    return total


def _prefill_pool(model: str, gpu: str, shape: Shape, weights: str, kv: str, engine: str, prompt: int,
                  cached: int, peak: float, budget_s: float, headroom: float) -> Pool | None:
    c = _costs(model, gpu, shape, weights, kv, engine)
    prof = profile(engine, gpu, model, weights)
    budget = rank_limits(prof, c.replica.ranks)[0]  # a prompt runs on one rank
    if pool_blocks(c.replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens < cached + prompt:
        return None  # the weights leave no room for one prompt's KV cache
    alone = prompt_time_s(c, prompt, cached, budget)
    # At full load a step carries as many whole prompts as the budget holds (one, in chunks, past it).
    together = max(1, budget // prompt)
    service = prefill_step_s(c, together * prompt, prompt, cached) / together if together > 1 else alone
    if alone >= budget_s:
        return None
    n = max(1, math.ceil(peak * service * (1 + headroom)))
    while True:  # M/D/1 at the batched service time D: a mean wait of rho D / (2 (1 - rho))
        rho = peak / n * service
        if rho < 1 and alone + rho * service / (2 * (1 - rho)) <= budget_s:
            return Pool(shape, n, 1 / service, rho, alone, together)
        n += 1


def _decode_pool(model: str, gpu: str, shape: Shape, weights: str, kv: str, engine: str, prompt: int,
                 output: int, peak: float, tpot_s: float, headroom: float) -> Pool | None:
    c = _costs(model, gpu, shape, weights, kv, engine)
    prof = profile(engine, gpu, model, weights)
    held = pool_blocks(c.replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens
    most = min(held // (prompt + output), rank_limits(prof, c.replica.ranks)[1])

    def step(b: int) -> float:
        return float(step_time_s(c, StepBatch(decode_seqs=b, decode_context=b * (prompt + output / 2)),
                                 graphed=b <= prof.graph_max_batch))

    if most < 1 or step(1) > tpot_s:
        return None
    low, high = 1, most  # step(low) meets the target; find the largest batch that does
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if step(mid) <= tpot_s else (low, mid - 1)
    rate = low / (max(output - 1, 1) * step(low))
    n = math.ceil(peak * (1 + headroom) / rate)
    return Pool(shape, n, rate, peak / (n * rate), step(low), low)


def kv_transfer_s(model: str, gpu: str, prefill: Shape, weights: str, kv: str, tokens: int, same_node: bool) -> float:
    """One prompt's KV cache (one copy), sent by the prefill replica's GPUs in parallel over their links."""
    r = build_replica(model, gpu, prefill.gpus, prefill.layout, prefill.ep, weights, kv)
    link = get_gpu(gpu).interconnect_bytes_per_s if same_node else catalog().claims[NIC_BANDWIDTH_CLAIM].low
    return f.transfer_time_s(tokens * r.layers * r.kv_bytes_per_token_layer, prefill.gpus * link)


def disaggregate(model: str, gpu: str, weights: str, kv: str, engine: str, prompt_tokens: int, cached_tokens: int,
                 output_tokens: int, peak_requests_per_s: float, ttft_s: float, tpot_s: float, headroom: float,
                 same_node: bool = False, colocated: ShapeSearch | None = None) -> Disaggregated:
    """Both pools at the fewest GPUs each, the transfer, and the colocated fleet for the same peak (from
    `colocated`, the shape search for the same workload, when the caller has it)."""
    new = prompt_tokens - cached_tokens
    shapes = candidates(model)
    transfer = {s: kv_transfer_s(model, gpu, s, weights, kv, prompt_tokens, same_node) for s in shapes}
    overhead = params_for(gpu, engine, "mla" if get_model(model).is_mla else "gqa")
    fixed = overhead.api_latency_s(prompt_tokens)
    prefills = [p for s in shapes if (p := _fits(_prefill_pool, model, gpu, s, weights, kv, engine, new,
                                                 cached_tokens, peak_requests_per_s, ttft_s - fixed - transfer[s],
                                                 headroom))]
    decodes = [p for s in shapes if (p := _fits(_decode_pool, model, gpu, s, weights, kv, engine, prompt_tokens,
                                                output_tokens, peak_requests_per_s, tpot_s, headroom))]
    prefill = min(prefills, key=lambda p: (p.gpus, p.shape.gpus), default=None)
    decode = min(decodes, key=lambda p: (p.gpus, p.shape.gpus), default=None)
    ttft = None
    if prefill is not None:
        wait = prefill.utilisation / prefill.requests_per_s_per_replica / (2 * (1 - prefill.utilisation))
        ttft = fixed + wait + prefill.step_s + transfer[prefill.shape]
    together = (colocated or search(model, gpu, weights, kv, engine, new, output_tokens, ttft_s, tpot_s)).chosen
    colocated = None
    if together is not None:
        per_replica = together.best.output_tokens_per_s_per_gpu * together.shape.gpus / output_tokens
        colocated = math.ceil(peak_requests_per_s * (1 + headroom) / per_replica) * together.shape.gpus
    return Disaggregated(prefill, decode, transfer[prefill.shape] if prefill else transfer[shapes[0]], same_node,
                         ttft, colocated, together.shape if together else None)


def _fits(pool, *args) -> Pool | None:
    """A pool of one shape, or None when the shape cannot hold the model at all."""
    try:
        return pool(*args)
    except InputError:
        return None
