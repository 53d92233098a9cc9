"""Reasoning models and structured output (chapter 8): the KV a request holds over its life, what its hidden
tokens cost in replica time, GPUs and latency, parallel samples sharing a prompt, and the token mask a grammar
computes on the CPU beside each decode step.

Pure functions in SI base units (see the package docstring): tokens, seconds, bytes, hertz, USD. KV bytes
come from model.geometry and formulas.memory; these functions take token counts and times.
"""

from __future__ import annotations

import math

from ._array import Number, maximum

__all__ = [
    "mean_context_tokens", "replica_seconds_per_request", "prefill_share", "gpu_seconds_per_request",
    "cost_per_request_usd", "visible_ttft_s", "sampled_kv_tokens", "trie_walk_mask_s", "token_bitmask_bytes",
    "mask_cpu_s",
    "mask_crossover_batch", "overlapped_step_s", "serial_step_s", "slow_mask_step_share",
    "forced_token_speedup",
]


def _positive(name: str, value: Number) -> None:
    """A count or a time these formulas divide by or sample: finite and above zero, or a ValueError naming it."""
    if not hasattr(value, "shape") and not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number above zero, got {value!r}")


# --- a request's life: the KV it holds, the replica time it takes --------------------------------------


def mean_context_tokens(prompt_tokens: Number, output_tokens: Number) -> Number:
    """P + n / 2: the tokens a request's KV cache holds on average over its decode. The cache starts at the
    prompt's P tokens and grows by one a step for n steps, so its time-average is the prompt plus half the
    output (exactly P + (n + 1) / 2 over the n steps; the half-token is left out). A continuous-batching
    replica full of such requests at staggered stages holds, on average, this many tokens per request."""
    return prompt_tokens + output_tokens / 2


def replica_seconds_per_request(output_tokens: Number, step_s: Number, batch: Number) -> Number:
    """n * t / b: the share of a replica's time one request's decode takes. Each step of t seconds serves b
    sequences one token each, so a request of n output tokens holds 1 / b of the replica for n steps."""
    _positive("batch", batch)
    return output_tokens * step_s / batch


def prefill_share(prefill_s: Number, output_tokens: Number, step_s: Number, batch: Number) -> Number:
    """p / (p + n t / b): the prefill's share of the replica time a request takes, its prompt's p seconds
    against its decode's n t / b (replica_seconds_per_request)."""
    decode = replica_seconds_per_request(output_tokens, step_s, batch)
    return prefill_s / (prefill_s + decode)


def gpu_seconds_per_request(gpus: Number, replica_s: Number) -> Number:
    """g * replica seconds: GPU-seconds one request costs; also the GPUs one request per second keeps busy."""
    return gpus * replica_s


def cost_per_request_usd(price_per_gpu_hour: Number, gpu_seconds: Number, efficiency: Number) -> Number:
    """price / 3600 * GPU-seconds / eta: what one request costs, its GPU-seconds at the floor planned at the
    realised efficiency eta (formulas.cost_per_million_tokens prices a token the same way)."""
    _positive("efficiency", efficiency)
    return price_per_gpu_hour / 3600 * gpu_seconds / efficiency


def visible_ttft_s(prefill_s: Number, thinking_tokens: Number, tpot_s: Number) -> Number:
    """prefill + thinking tokens * TPOT: the time to the first token the user sees, when every thinking token
    is decoded (and hidden) before the answer starts."""
    return prefill_s + thinking_tokens * tpot_s


def sampled_kv_tokens(prompt_tokens: Number, output_tokens: Number, samples: Number, shared: bool) -> Number:
    """KV tokens n parallel samples of one prompt hold: P + n * O when they share the prompt's blocks (a prefix
    cache, copy-on-write), n * (P + O) when each holds its own copy. O may be a time-average (half the output)."""
    _positive("samples", samples)
    if shared:
        return prompt_tokens + samples * output_tokens
    return samples * (prompt_tokens + output_tokens)


# --- the token mask: CPU work beside each decode step ---------------------------------------------------


def trie_walk_mask_s(vocab: Number, nodes_per_token: Number, cycles_per_node: Number, clock_hz: Number) -> Number:
    """V * nodes per token * cycles per node / clock: one mask computed by walking every token of the
    vocabulary through the grammar's automaton (a trie of about 2 V nodes), with no precomputation."""
    _positive("clock_hz", clock_hz)
    return vocab * nodes_per_token * cycles_per_node / clock_hz


def token_bitmask_bytes(vocab: Number) -> Number:
    """ceil(V / 32) * 4: one mask as engines ship it to the GPU, a bit per token packed into 32-bit words."""
    return -(-vocab // 32) * 4


def mask_cpu_s(batch: Number, mask_s: Number, threads: Number, positions: Number = 1) -> Number:
    """b * (k + 1) * m / N: the CPU time a step's masks take, b sequences each needing a mask at `positions`
    places (k + 1 under speculative decoding: each draft position and the bonus token) at m seconds a mask,
    spread evenly over N threads."""
    _positive("threads", threads)
    return batch * positions * mask_s / threads


def mask_crossover_batch(weight_s: Number, kv_s_per_seq: Number, mask_s: Number, threads: Number,
                         positions: Number = 1) -> Number:
    """W / ((k + 1) m / N - c): the batch above which the masks' CPU time exceeds the decode step's floor
    W + b c (W the weight read, c one sequence's KV read, each in seconds). inf when one sequence's masks cost
    the threads no more than its KV read: the CPU then never catches the GPU on the floor."""
    per_sequence = positions * mask_s / threads - kv_s_per_seq
    if hasattr(per_sequence, "shape"):
        import numpy as np

        return np.where(per_sequence > 0, weight_s / np.where(per_sequence > 0, per_sequence, 1), np.inf)
    return weight_s / per_sequence if per_sequence > 0 else math.inf


def overlapped_step_s(gpu_s: Number, cpu_s: Number) -> Number:
    """max(GPU, CPU): a step whose masks are computed while the forward pass runs (vLLM, SGLang and
    TensorRT-LLM all overlap them); sampling waits for whichever finishes last."""
    return maximum(gpu_s, cpu_s)


def serial_step_s(gpu_s: Number, cpu_s: Number) -> Number:
    """GPU + CPU: the same step with the masks computed after the forward pass, before sampling."""
    return gpu_s + cpu_s


def slow_mask_step_share(batch: Number, quantile: Number) -> Number:
    """1 - q ** b: the share of steps in which at least one of b sequences' masks is slower than the q-quantile
    (0.99 for the p99), masks independent. A step's sampling waits for its slowest mask."""
    if not 0 < quantile < 1:
        raise ValueError(f"quantile must be between 0 and 1, got {quantile!r}")
    return 1 - quantile ** batch


def forced_token_speedup(forced_share: Number) -> Number:
    """1 / (1 - f): the most jump-forward decoding can speed an output whose share f of tokens the grammar
    forces, if forced tokens cost nothing (they still cost a prefill-like pass over them)."""
    if not 0 <= forced_share < 1:
        raise ValueError(f"forced_share must be at least 0 and below 1, got {forced_share!r}")
    return 1 / (1 - forced_share)
