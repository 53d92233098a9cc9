"""The time of one engine step, as a sum of terms a reader can name (ARCHITECTURE.md, the serving model).

A step serves decode sequences (one new token each, at their own context) and prefill chunks (new
prompt tokens after a cached prefix). Its time is, per operator class, the larger of its memory time
and its compute time, each a floor divided by a fitted achieved fraction, summed over the classes,
plus communication and fixed costs:

- dense GEMMs: the always-read weights over beta_mem * B, against 2 * a FLOPs per token over
  beta_gemm * P(their format); with unmerged LoRA adapters, the weights read include each distinct adapter
  the step's sequences use (serving/adapters.py);
- MoE experts: the u(T) experts the step's T tokens touch (the contract's u(b) over every token of the step) over
  beta_mem * B, against their FLOPs over beta_moe * P(the experts' format): 2 e per token row, each
  touched expert computing at least a tile of rows (T k / u(T) tokens each, rounded up to the GPU's
  moe_rows), so that at small batches an expert two tokens touch costs a tile's FLOPs;
- attention: the KV read (decode contexts, prefill prefixes) and written over beta_mem * B, against
  its FLOPs over beta_attn * P(the KV cache's dtype), a decode step's padded to whole tensor-core tiles
  (replica.decode_tile_padding: 16 heads per GPU on a 128-row tile cost 8x their FLOPs);
- tensor-parallel all-reduces (two per layer) or, under attention data parallelism, the MoE's
  exchanges, each its hops' latency (a ring over g GPUs takes 2 (g - 1) hops of alpha) plus bytes over
  the link's bandwidth in one direction;
- the GPU's fixed costs: per layer, its kernels' minimum time, higher when the step is not replayed from a
  captured CUDA graph (prefill, or a batch above the capture limit: each kernel then waits for its launch);
- the host's work: per step (scheduling, launch) and per sequence in the step (the engine's own work on
  it: scheduling, sampling, output handling; shared out over the ranks under attention data parallelism,
  where each rank's process has its own).

Under attention data parallelism each of the g ranks runs attention (its projections, its (query, key) pairs,
its KV) for its own sequences only, and every rank waits for the slowest at the MoE's exchange: a step's
attention side costs what its busiest rank's does. Decodes are taken as spread evenly (the dispatcher balances
the ranks' loads); a prompt's chunk runs on its sequence's rank alone, so the step's prefill counts g times
the busiest rank's share of it (StepBatch.prefill_rank_share), as if that rank's load were every rank's. The
MoE, its exchange and the dense MLPs take every rank's tokens together, as before.

Taking the larger per class, not over the whole step, matters: a mixed step's attention can be
memory-bound while its expert GEMMs are compute-bound, and one max over everything would hide one.

The host's work runs beside the GPU's, not before it: the engines prepare step n + 1 while the GPU runs
step n (vLLM's asynchronous scheduling, SGLang's overlap scheduler, TensorRT-LLM's overlap scheduler, all
on by default in the measured versions; ATOM's is assumed to do the same). A step therefore takes the
larger of the GPU's time and the host's, and the host shows on the critical path only when it is the
slower: at large batches of short steps.
The functions take plain numbers or numpy arrays alike (the fit evaluates many configurations at once).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from ..formulas._array import maximum, minimum
from ..formulas.moe import ep_alltoall_s, experts_touched
from ..formulas.roofline import tp_allreduce_s
from .adapters import adapters_read
from .replica import Replica
from .types import StepBatch

Number = Any  # a float, or a numpy array broadcasting over configurations


@dataclass(frozen=True)
class StepParams:
    """The fitted physical parameters, as they apply to one replica (its GPU family, engine, layer kind)."""

    bw_fraction: float  # beta_mem: achieved share of the memory bandwidth, (0, 1]
    gemm_fraction: float  # beta_gemm: of the dense peak in the GEMMs' format, (0, 1]
    moe_fraction: float  # beta_moe: of the peak in the experts' format, (0, 1]
    attn_fraction: float  # beta_attn: of the peak in the KV cache's dtype, (0, 1]
    link_latency_s: float  # alpha: one hop of a collective (a ring all-reduce over g GPUs takes 2 (g - 1)), >= 0
    step_overhead_s: float  # per step: scheduling, launch, >= 0
    sequence_overhead_s: float  # per sequence in the step: its scheduling, sampling and output handling, >= 0
    layer_overhead_s: float  # per layer in a step replayed from a CUDA graph, >= 0
    eager_layer_overhead_s: float  # extra per layer in a step that is not, >= 0
    request_overhead_s: float = 0.0  # per request, outside the step: the API server's own latency ...
    prompt_token_overhead_s: float = 0.0  # ... and its cost per prompt token (tokenising), >= 0
    api_request_s: float = 0.0  # the API server's own work per request, one request at a time (caps the rate), >= 0

    def api_latency_s(self, prompt_tokens: Number) -> Number:
        """The API server's time on a request before the scheduler sees it, with no request queued ahead of it."""
        return self.request_overhead_s + self.api_request_s + self.prompt_token_overhead_s * prompt_tokens


@dataclass(frozen=True)
class StepCosts:
    """A replica and its parameters folded into per-unit times, so a step is a few multiply-adds."""

    replica: Replica
    params: StepParams
    always_s: float  # always-read weights, once per step
    expert_s: float  # one touched expert's weights
    adapter_s: float  # one LoRA adapter's weights
    gemm_s_per_token: float
    attention_gemm_s_per_token: float  # the attention projections' part of it
    moe_s_per_row: float  # one token row through one expert
    kv_s_per_token_layer: float  # reading or writing one token's KV in one layer, every copy
    decode_pair_s: float  # one (query, key) pair in one layer, decoding
    prefill_pair_s: float
    fixed_s: float  # the GPU's, per step, captured
    host_s: float  # the host's, per step
    sequence_s: float  # the host's, per sequence the step serves
    eager_s: float  # the GPU's extra per step, not captured
    # decode_step's functions by (sequences, graphed), made once per replica: a simulation asks for the same few
    # batch sizes in run after run
    decode_steps: dict = field(default_factory=dict, compare=False, repr=False)


def costs(r: Replica, p: StepParams) -> StepCosts:
    """Per-unit times: every byte over the replica's g * beta_mem * B, every FLOP over g * beta * P."""
    mem = r.gpus * p.bw_fraction * r.bandwidth_bytes_per_s
    return StepCosts(
        replica=r, params=p, always_s=r.always_bytes / mem, expert_s=r.expert_bytes / mem,
        adapter_s=r.adapter_bytes / mem,
        gemm_s_per_token=r.dense_flops_per_token / (r.gpus * p.gemm_fraction * r.dense_peak_flops),
        attention_gemm_s_per_token=r.attention_flops_per_token / (r.gpus * p.gemm_fraction * r.dense_peak_flops),
        moe_s_per_row=r.moe_flops_per_token / maximum(r.experts_per_token, 1) / (r.gpus * p.moe_fraction
                                                                               * r.moe_peak_flops),
        kv_s_per_token_layer=r.kv_copies * r.kv_bytes_per_token_layer / mem,
        decode_pair_s=r.decode_pair_flops * r.decode_tile_padding / (r.gpus * p.attn_fraction * r.attention_peak_flops),
        prefill_pair_s=r.prefill_pair_flops / (r.gpus * p.attn_fraction * r.attention_peak_flops),
        fixed_s=r.layers * p.layer_overhead_s, host_s=p.step_overhead_s, sequence_s=p.sequence_overhead_s,
        eager_s=r.layers * p.eager_layer_overhead_s,
    )


@dataclass(frozen=True)
class StepTerms:
    """One step's named terms (seconds). Each class costs the larger of its memory and compute time."""

    weights_s: Number  # always-read weights (and the step's distinct adapters)
    experts_s: Number  # the touched experts' weights
    kv_s: Number  # KV read and written
    gemm_s: Number  # dense GEMM FLOPs
    moe_s: Number  # expert GEMM FLOPs
    attention_s: Number  # attention FLOPs
    communication_s: Number  # all-reduces or all-to-alls
    fixed_s: Number  # the GPU's, per layer
    host_s: Number  # the host's, per step and per sequence: overlapped with the GPU's work

    @property
    def dense_s(self) -> Number:
        return maximum(self.weights_s, self.gemm_s)

    @property
    def moe_class_s(self) -> Number:
        return maximum(self.experts_s, self.moe_s)

    @property
    def attention_class_s(self) -> Number:
        return maximum(self.kv_s, self.attention_s)

    @property
    def gpu_s(self) -> Number:
        return self.dense_s + self.moe_class_s + self.attention_class_s + self.communication_s + self.fixed_s

    @property
    def total_s(self) -> Number:
        return maximum(self.gpu_s, self.host_s)

    def as_dict(self) -> dict[str, Number]:
        return {**{x.name: getattr(self, x.name) for x in fields(self)}, "total_s": self.total_s}


def _ceil(x: Number) -> Number:
    if hasattr(x, "shape"):
        import numpy as np

        return np.ceil(x)
    return float(math.ceil(x))


def communication_s(r: Replica, hop_latency_s: Number, tokens: Number) -> Number:
    """Tensor parallelism: two ring all-reduces per layer over all T tokens (formulas.tp_allreduce_s), each
    2 (g - 1) steps of a hop's latency. Attention data parallelism: attention needs none; each MoE layer
    either all-reduces its tokens across the replica (experts split by TP: an all-gather and a
    reduce-scatter, the ring's bytes) or, with expert parallelism, dispatches and combines them
    (formulas.ep_alltoall_s, twice, each g - 1 hops). Written without branches, so one call prices many
    configurations at once."""
    ring = tp_allreduce_s(r.layers, r.gpus, tokens, r.hidden, r.link_bytes_per_s, 2 * (r.gpus - 1) * hop_latency_s)
    exchange = 2 * r.moe_layers * ep_alltoall_s(tokens, r.experts_per_token, r.hidden, r.gpus, r.link_bytes_per_s,
                                                  (r.gpus - 1) * hop_latency_s)
    dp = (r.layout == "dp-attention") * 1.0
    ep = (r.ep > 1) * 1.0
    return (1 - dp) * ring + dp * (ep * exchange + (1 - ep) * r.moe_layers / r.layers / 2 * ring)


def step_terms(c: StepCosts, b: StepBatch, graphed: Any = True) -> StepTerms:
    """The named terms of one step serving batch `b`; graphed says whether it replays a CUDA graph."""
    r = c.replica
    tokens = b.decode_seqs + b.prefill_tokens
    # A dense model has no experts: u = 0 (max(E, 1) keeps 1 - k / E defined when k = E = 0).
    experts = experts_touched(maximum(r.experts, 1), r.experts_per_token, tokens)
    rows_each = tokens * r.experts_per_token / maximum(experts, 1e-9)
    expert_rows = experts * _ceil(rows_each / r.moe_tile_rows) * r.moe_tile_rows
    # The attention side's prefill, as the busiest rank's share of it on every rank (1x under tensor parallelism).
    spread = r.ranks * b.prefill_rank_share
    attention_tokens = b.decode_seqs + spread * b.prefill_tokens
    # Token-layers of KV read: decode over each context (windowed layers at most the window, taken at
    # the mean context), prefill over each chunk's cached prefix; written: one per new token per layer.
    windowed = minimum(b.decode_context, b.decode_seqs * r.window)
    prefix_windowed = spread * minimum(b.prefill_prefix_tokens, b.prefill_seqs * r.window)
    read = (r.full_layers * (b.decode_context + spread * b.prefill_prefix_tokens)
            + r.window_layers * (windowed + prefix_windowed))
    decode_pairs = r.full_layers * b.decode_context + r.window_layers * windowed
    prefill_pairs = spread * (r.full_layers * b.prefill_pairs + r.window_layers * b.prefill_window_pairs)
    return StepTerms(
        weights_s=c.always_s + adapters_read(r, b.decode_seqs + b.prefill_seqs) * c.adapter_s + 0.0 * tokens,
        experts_s=experts * c.expert_s,
        kv_s=(read + attention_tokens * r.layers) * c.kv_s_per_token_layer,
        gemm_s=tokens * c.gemm_s_per_token + (attention_tokens - tokens) * c.attention_gemm_s_per_token,
        moe_s=expert_rows * c.moe_s_per_row,
        attention_s=decode_pairs * c.decode_pair_s + prefill_pairs * c.prefill_pair_s,
        communication_s=communication_s(r, c.params.link_latency_s, tokens),
        fixed_s=c.fixed_s + c.eager_s * (1 - graphed),
        # Under attention data parallelism every rank's engine process handles its own sequences, side by side.
        host_s=c.host_s + (b.decode_seqs + b.prefill_seqs) * c.sequence_s / r.ranks,
    )


def step_time_s(c: StepCosts, b: StepBatch, graphed: Any = True) -> Number:
    """The step's time: step_terms(...).total_s."""
    return step_terms(c, b, graphed).total_s


DecodeStep = Callable[[float], tuple[float, tuple[bool, bool, bool]]]


def decode_step(c: StepCosts, seqs: int, graphed: bool) -> DecodeStep:
    """A decode step of `seqs` sequences as a function of their total context: its time and its regime (which
    side of the attention class's max, of the window's min and of the GPU-or-host max it is on; within one regime
    the time is linear in the context). What does not read the context is worked out once, and the rest is
    step_terms's arithmetic in its order, so the times are step_time_s's to the last bit (a test holds them
    so): the simulator asks for millions of these, one decode run after another, so each is made once."""
    if made := c.decode_steps.get((seqs, graphed)):
        return made
    r = c.replica
    fixed = step_terms(c, StepBatch(decode_seqs=seqs), graphed)
    head = fixed.dense_s + fixed.moe_class_s  # gpu_s sums dense, MoE, attention, communication, fixed in that order
    comm, fixed_s, host = fixed.communication_s, fixed.fixed_s, fixed.host_s
    full, window_layers, window = r.full_layers, r.window_layers, r.window
    written, kv_per, pair_s = seqs * r.layers, c.kv_s_per_token_layer, c.decode_pair_s

    def at(context: float) -> tuple[float, tuple[bool, bool, bool]]:
        pairs = full * context + window_layers * min(context, seqs * window)
        kv, attention = (pairs + written) * kv_per, pairs * pair_s
        gpu = head + max(kv, attention) + comm + fixed_s
        return max(gpu, host), (kv >= attention, bool(window) and context <= seqs * window, gpu >= host)

    c.decode_steps[seqs, graphed] = at
    return at


def _run_s(step: DecodeStep, seqs: int, context: float, steps: int) -> float:
    def span(a: int, b: int, ta: float, ra: tuple, tb: float, rb: tuple) -> float:
        if ra == rb or b - a <= 1:
            return (b - a + 1) * (ta + tb) / 2
        m = (a + b) // 2
        tm, rm = step(context + m * seqs)
        tn, rn = step(context + (m + 1) * seqs)
        return span(a, m, ta, ra, tm, rm) + span(m + 1, b, tn, rn, tb, rb)

    if steps <= 0:
        return 0.0
    return span(0, steps - 1, *step(context), *step(context + (steps - 1) * seqs))


def decode_run_s(c: StepCosts, seqs: int, context: float, steps: int, graphed: bool = True) -> float:
    """The time of `steps` consecutive decode steps of the same `seqs` sequences, the first at total
    context `context` (each step adds `seqs`). Step time is piecewise linear in the step's index, so the
    run is summed exactly as trapezoids over the stretches of one regime (split in halves until each
    stretch has one), not step by step: a run costs O(log steps), however long."""
    return _run_s(decode_step(c, seqs, graphed), seqs, context, steps)


def decode_steps_until(c: StepCosts, seqs: int, context: float, most: int, time_s: float,
                       graphed: bool = True) -> int:
    """The fewest decode steps (at most `most`) whose run takes at least time_s: the step during which
    something due at time_s happens ends the run. Bisection on decode_run_s."""
    step = decode_step(c, seqs, graphed)
    if _run_s(step, seqs, context, most) < time_s:
        return most
    low, high = 1, most
    while low < high:
        mid = (low + high) // 2
        if _run_s(step, seqs, context, mid) >= time_s:
            high = mid
        else:
            low = mid + 1
    return low
