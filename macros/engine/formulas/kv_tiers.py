"""KV tiers and long context (chapter 11): reloading a cached prefix from a tier below HBM against
recomputing it, how long a tier keeps a conversation between turns, and what a long prompt costs to prefill
and to spread over GPUs.

Pure functions in SI base units (see the package docstring). Symbols as there, and: B_t a tier's bandwidth
per GPU in one direction, λ its latency per transfer, η_g P and η_a P' the achieved FLOP/s per GPU in the
GEMMs and in attention, c a context-parallel chunk of tokens per GPU. KV bytes and prefill FLOPs come from
memory.py and roofline.py; nothing here re-derives them.
"""

from __future__ import annotations

import math

from ._array import Number

__all__ = [
    "reload_time_s", "recompute_time_s", "reload_break_even_bandwidth", "reload_crossover_tokens",
    "prefill_capacity_multiplier", "tier_residence_s", "attention_overtakes_tokens", "gpus_for_prefill",
    "ring_min_tokens_per_gpu", "ring_bytes_sent_per_gpu", "cp_decode_partial_bytes", "mamba_state_bytes",
]


def _positive(name: str, value: float) -> None:
    """A rate or a size that divides must be above zero; a bad input is one line naming it."""
    if not value > 0:
        raise ValueError(f"{name} must be above zero, got {value!r}")


def reload_time_s(kv_bytes: Number, link_bytes_per_s: float, latency_s: float = 0.0) -> Number:
    """λ + bytes / B_t: bringing `kv_bytes` of cached KV back into HBM over one GPU's link to a tier.
    A floor: one transfer at the link's full rate, nothing else sharing it."""
    _positive("the tier's bandwidth", link_bytes_per_s)
    if latency_s < 0:
        raise ValueError(f"a latency cannot be negative, got {latency_s!r}")
    return latency_s + kv_bytes / link_bytes_per_s


def recompute_time_s(linear_flops: Number, attention_flops: Number, gpus: float, gemm_flops_per_s: float,
                     attention_flops_per_s: float) -> Number:
    """2 N_a s / (g η_g P) + A(s) / (g η_a P'): prefilling the prefix again, its weight FLOPs at the GEMMs'
    achieved rate per GPU and its causal attention at attention's (in the KV cache's format, which can differ
    from the weights'). Compute only: the weights are read once for the prompt's new tokens anyway, so
    recomputing the prefix adds FLOPs, not a weight read."""
    for name, value in (("the GPU count", gpus), ("the GEMMs' rate", gemm_flops_per_s),
                        ("attention's rate", attention_flops_per_s)):
        _positive(name, value)
    return linear_flops / (gpus * gemm_flops_per_s) + attention_flops / (gpus * attention_flops_per_s)


def reload_break_even_bandwidth(kv_bytes_per_token: float, linear_flops_per_token: float,
                                achieved_flops: float) -> float:
    """KV / (2 N_a / (η_g P)): the tier bandwidth per GPU at which reloading a token's KV takes as long as
    recomputing its weight FLOPs. A faster tier wins on every prompt longer than its latency's worth of
    tokens; a slower one loses on short prompts and wins only past the length where attention's quadratic
    term has made recomputing dear enough (reload_crossover_tokens)."""
    _positive("the FLOPs per token", linear_flops_per_token)
    return kv_bytes_per_token * achieved_flops / linear_flops_per_token


def reload_crossover_tokens(reload_s_per_token: float, latency_s: float, linear_s_per_token: float,
                            pair_s: float) -> float:
    """The prompt length s at which λ + r s = a s + h s (s + 1) / 2: reloading (r a token after a latency λ)
    costs what recomputing does (a a token for the weights, h a causal query-key pair for attention, summed
    over layers). Reloading wins past it. The positive root of (h/2) s² + (a + h/2 − r) s − λ = 0; with no
    attention term (h = 0), λ / (a − r), or infinity when reloading is never cheaper."""
    if min(reload_s_per_token, latency_s, linear_s_per_token, pair_s) < 0:
        raise ValueError("a time per token, per pair or per transfer cannot be negative")
    linear = linear_s_per_token + pair_s / 2 - reload_s_per_token
    if pair_s == 0:
        return latency_s / linear if linear > 0 else math.inf
    return (-linear + math.sqrt(linear * linear + 2 * pair_s * latency_s)) / pair_s


def prefill_capacity_multiplier(hit_rate: Number) -> Number:
    """1 / (1 − h): how many more prompts the same prefill compute serves when a share h of prompt tokens
    hits a cache and is reloaded instead of computed (the reload's own cost left out)."""
    if not 0 <= hit_rate < 1:
        raise ValueError(f"a hit rate must be at least 0 and below 1, got {hit_rate!r}")
    return 1 / (1 - hit_rate)


def tier_residence_s(capacity_bytes: Number, write_bytes_per_s: float) -> Number:
    """C / W: how long an entry stays in a tier that evicts least recently used first, when new KV arrives
    at W bytes a second. Each arrival pushes the oldest entry out, so an entry not touched again leaves
    once the tier has been written over once. A conversation whose next turn comes later has left it."""
    _positive("the write rate", write_bytes_per_s)
    return capacity_bytes / write_bytes_per_s


def attention_overtakes_tokens(active_params: float, layers: int, pair_flops_per_layer: float) -> float:
    """The prompt length past which causal attention's FLOPs exceed the weights': 2 N_a s = q L s (s + 1) / 2
    with q FLOPs per query-key pair and layer, so s = 4 N_a / (q L) − 1. For GQA q = 4 H_q d_h, and
    s = N_a / (L H_q d_h) − 1."""
    _positive("the FLOPs per pair", pair_flops_per_layer)
    return 4 * active_params / (pair_flops_per_layer * layers) - 1


def gpus_for_prefill(prefill_flops: float, target_s: float, achieved_flops_per_gpu: float) -> int:
    """ceil(FLOPs / (T η P)): the fewest GPUs that prefill one prompt within T, compute-bound and split
    evenly among them (a context-parallel group whose communication hides behind its compute)."""
    _positive("the target", target_s)
    _positive("the achieved FLOP/s", achieved_flops_per_gpu)
    return math.ceil(round(prefill_flops / (target_s * achieved_flops_per_gpu), 9))


def ring_min_tokens_per_gpu(query_heads: int, kv_heads: int, bytes_per_kv: float, achieved_flops: float,
                            link_bytes_per_s: float, causal: bool = True) -> float:
    """c = H_kv k η_a P / (2 H_q B) (twice that with a causal mask): the chunk of the prompt per GPU at which
    ring attention's compute hides its communication. Each ring step a GPU computes its c queries against a
    block of c keys, 4 H_q d_h c² FLOPs a layer (half of it under a causal mask, balanced across the ring),
    while it passes that block of 2 H_kv d_h k c bytes on to its neighbour; d_h cancels."""
    _positive("the link's bandwidth", link_bytes_per_s)
    share = 0.5 if causal else 1.0  # of a block pair a causal mask leaves to compute, on average
    return kv_heads * bytes_per_kv * achieved_flops / (2 * query_heads * link_bytes_per_s * share)


def ring_bytes_sent_per_gpu(kv_bytes: Number, gpus: int) -> Number:
    """(g − 1) / g of the prompt's KV: what each GPU of a ring of g sends over one prefill, passing every
    other GPU's block on once (its own block is never sent back to itself)."""
    _positive("the GPU count", gpus)
    return kv_bytes * (gpus - 1) / gpus


def cp_decode_partial_bytes(layers: int, query_heads: int, head_dim: int, bytes_per_value: float = 2,
                            bytes_per_lse: float = 4) -> float:
    """L H_q (d_h b + 4): what one GPU holding a shard of a sequence's KV contributes to the reduction each
    decode step: per layer and query head, its partial attention output and the log-sum-exp that lets the
    partials be merged exactly (FP32)."""
    return layers * query_heads * (head_dim * bytes_per_value + bytes_per_lse)


def mamba_state_bytes(layers: int, hidden_size: int, expand: int, d_state: int, d_conv: int,
                      bytes_per_value: float) -> float:
    """L_m E d (n + w − 1) b: a sequence's fixed state in L_m Mamba layers, whatever its length. Each layer
    keeps an n-wide SSM state and the last w − 1 inputs of its convolution for each of its E d channels."""
    return layers * expand * hidden_size * (d_state + d_conv - 1) * bytes_per_value
