"""The closed loop's equilibrium under the same step model: a fast, deterministic stand-in for the
simulator that the calibration's least squares can call thousands of times (ARCHITECTURE.md, the serving model).

A benchmark client keeps C requests in flight; each request prefills P tokens and then decodes O - 1
more, one per decode step. At equilibrium the engine runs decode steps of b sequences (time t_d) and
steps carrying prefill (time t_p), and every quantity follows from the step model:

- requests/s X = C / E2E, with E2E = TTFT + (O - 1) TPOT, and b = C (O - 1) TPOT / E2E;
- mixed steps (vLLM, TensorRT-LLM): each prompt rides in P / q chunk steps of q = min(P, budget - b) tokens,
  N_p = X P / q of them a second; every step advances every decode, so
  TPOT = 1 / (N_p + (1 - N_p t_p) / t_d); under attention data parallelism over g ranks, budget is a rank's, b
  its share of the decodes, and the chunks due within a decode step's time (at most one a rank) share a step;
- prefill-first (SGLang, ATOM): prompts that reach the scheduler within one admission interval of R steps
  (m = X R t_d of them, Poisson) share a prefill-only step, k = m / (1 - e^-m) a step (spread over min(k, g)
  ranks); decode steps stop for it, so TPOT = t_d / (1 - X t_p / k);
- TTFT = the request overhead + the wait for the scheduler to look (the step in progress, t^2-weighted,
  plus (R - 1) / 2 decode steps) + the prefill steps, plus, where a budget holds one prompt at a time,
  M/D/1's wait for the prompts ahead;
- the API server's own work, a per request, one request at a time, is in TTFT; when the loop's cycle is shorter
  than C a, that server is the bottleneck and the requests wait for it: the cycle is C a and X = 1 / a (the
  asymptotic bound of a closed queueing network; below it the wait is left out).

Solved by damped fixed-point iteration, elementwise over arrays of configurations. The simulator differs
(the benchmark's first wave, the drain at the end, each request's own lengths); the calibration measures
that difference with the simulator and carries it as a fixed factor per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import formulas as f
from .step import StepCosts, step_time_s
from .types import StepBatch

ITERATIONS = 200
TOLERANCE = 1e-9  # stop when no configuration's TPOT or TTFT moves by more than this, relatively
DAMPING = 0.3  # the share of the old iterate kept: 0.3 converges in about 20 iterations here ...
SETTLE = 40  # ... and after this many, the new iterate's share shrinks as 1 / iteration, so that a loop past
# saturation, whose iterates swing between two states, settles between them instead of swinging on


@dataclass(frozen=True)
class ClosedLoopSetup:
    """Arrays over configurations: the client's loop and the engine's scheduler."""

    concurrency: np.ndarray
    prompt: np.ndarray  # mean prompt tokens
    output: np.ndarray  # mean output tokens
    mixed: np.ndarray  # 1.0 for decode-first mixed steps, 0.0 for prefill-first
    token_budget: np.ndarray  # one rank's (profiles.rank_limits)
    admission_interval: np.ndarray
    graph_max_batch: np.ndarray
    request_overhead_s: np.ndarray


@dataclass(frozen=True)
class Equilibrium:
    tpot_s: np.ndarray
    ttft_s: np.ndarray
    requests_per_s: np.ndarray
    output_tokens_per_s: np.ndarray
    decode_batch: np.ndarray


def _prefill(c: StepCosts, decode: np.ndarray, context: np.ndarray, tokens: np.ndarray, prompts: np.ndarray,
             prompt: np.ndarray, chunks: np.ndarray) -> np.ndarray:
    """A step carrying `tokens` new prompt tokens (`prompts` prompts of `prompt` tokens, each split into
    `chunks` chunks, a chunk's share of their causal pairs, on min(prompts, ranks) ranks evenly) beside `decode`
    decoding sequences."""
    window = c.replica.window
    pairs = f.causal_pairs(prompt) / chunks * prompts
    window_pairs = f.causal_pairs(prompt, np.maximum(window, 1)) / chunks * prompts
    prefix = (prompt - prompt / chunks) / 2 * prompts
    batch = StepBatch(decode_seqs=decode, decode_context=context, prefill_tokens=tokens, prefill_seqs=prompts,
                      prefill_pairs=pairs, prefill_window_pairs=window_pairs, prefill_prefix_tokens=prefix,
                      prefill_rank_share=1 / np.minimum(prompts, c.replica.ranks))
    return step_time_s(c, batch, graphed=0.0)


def equilibrium(c: StepCosts, s: ClosedLoopSetup, tolerance: float = TOLERANCE, rate: np.ndarray | None = None
                ) -> Equilibrium:
    """TPOT, TTFT and throughput of the closed loop at equilibrium, for every configuration at once; the
    iteration stops when no configuration moves by more than `tolerance`, relatively. With `rate` (requests/s per
    configuration), an open loop instead: Little's law puts rate x E2E requests in the replica, and
    `s.concurrency` is the engine's running cap (a rate past the cap's throughput saturates it)."""
    cap, P, n_out, mixed = s.concurrency, s.prompt, s.output, s.mixed
    C = cap
    ranks = c.replica.ranks
    tpot = np.full(C.shape, 0.01)
    ttft = np.full(C.shape, 0.1)
    for n in range(ITERATIONS):
        e2e = ttft + (n_out - 1) * tpot
        if rate is not None:
            C = np.clip(rate * e2e, 1.0, cap)
        X = C / e2e
        b = np.clip(C * (n_out - 1) * tpot / e2e, 1.0, C)
        context = b * (P + n_out / 2)
        t_d = step_time_s(c, StepBatch(decode_seqs=b, decode_context=context), graphed=(b <= s.graph_max_batch) * 1.0)
        # Mixed: a chunk of q tokens beside the decodes, P / q chunk steps per prompt; under attention data
        # parallelism each rank fills its own budget, and the chunks due within a decode step share one.
        q = np.minimum(P, np.maximum(s.token_budget - b / ranks, 1.0))
        chunks = P / q
        sharing = np.clip(X * chunks * t_d, 1.0, ranks)
        t_m = _prefill(c, b, context, sharing * q, sharing, P, chunks)
        n_p = np.minimum(X * chunks / sharing, 0.95 / t_m)
        steps = n_p + (1 - n_p * t_m) / t_d
        tpot_mixed = 1 / steps
        residual_mixed = (n_p * t_m ** 2 + (steps - n_p) * t_d ** 2) / 2
        rho = n_p * t_m
        one_at_a_time = (s.token_budget - b / ranks) < 2 * P
        queue_mixed = np.where(one_at_a_time, rho * chunks * t_m / (2 * (1 - rho)), 0.0)
        ttft_mixed = residual_mixed + queue_mixed + chunks * t_m
        # Prefill-first: k prompts share a prefill-only step, decode stops for it.
        m = np.maximum(X * s.admission_interval * t_d, 1e-9)
        k = np.clip(m / (1 - np.exp(-m)), 1.0, np.maximum(ranks * s.token_budget / P, 1.0))
        t_p = _prefill(c, 0.0 * b, 0.0 * b, k * P, k, P, np.maximum(P / s.token_budget, 1.0))
        load = np.minimum(X * t_p / k, 0.95)
        tpot_first = t_d / (1 - load)
        n_d = (1 - load) / t_d
        residual_first = (n_d * t_d ** 2 + X / k * t_p ** 2) / 2
        ttft_first = residual_first + (s.admission_interval - 1) / 2 * t_d + t_p
        new_tpot = mixed * tpot_mixed + (1 - mixed) * tpot_first
        api = c.params.api_request_s
        new_ttft = s.request_overhead_s + api + mixed * ttft_mixed + (1 - mixed) * ttft_first
        new_ttft = new_ttft + np.maximum(C * api - (new_ttft + (n_out - 1) * new_tpot), 0.0)
        step = np.max(np.abs(new_tpot / tpot - 1)) + np.max(np.abs(new_ttft / ttft - 1))
        keep = DAMPING if n < SETTLE else 1 - (1 - DAMPING) * SETTLE / n
        tpot = keep * tpot + (1 - keep) * new_tpot
        ttft = keep * ttft + (1 - keep) * new_ttft
        if step < tolerance:
            break
    X = C / (ttft + (n_out - 1) * tpot)
    return Equilibrium(tpot_s=tpot, ttft_s=ttft, requests_per_s=X, output_tokens_per_s=X * n_out, decode_batch=b)
