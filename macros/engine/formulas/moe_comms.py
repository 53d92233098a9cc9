"""Chapter 10 (docs/guide/moe-at-scale.md): the expert-parallel all-to-all as a napkin, the overlap that hides
it, the hottest GPU that sets the step, and the sizing of disaggregated prefill and decode pools.

Pure functions in SI base units (see the package docstring). Symbols beyond the package's: t tokens one GPU
brings to a MoE layer, k experts a token chooses, d the hidden size, e bytes per activation element on the
wire, m GPUs in one NVLink domain, alpha the fixed latency of one exchange.
"""

from __future__ import annotations

import math
import numbers

from ._array import Number, maximum, minimum

__all__ = [
    "ep_payload_bytes", "ep_exchange_s", "ep_layer_alltoall_s", "two_batch_overlap_s", "hottest_gpu_load",
    "md1_max_utilisation", "prefill_pool_gpus", "tpot_bound_batch", "decode_pool_gpus", "layerwise_exposed_s",
    "units_for_rate",
]


def _check_positive(**values: Number) -> None:
    """Each value finite and above zero (every element, for an array): a bandwidth of 0 or a negative GPU
    count is a caller's mistake, not an infinite time."""
    for name, value in values.items():
        if hasattr(value, "shape"):
            import numpy as np

            bad = not bool(np.all(np.isfinite(value) & (value > 0)))
        else:
            bad = (isinstance(value, bool) or not isinstance(value, numbers.Real)
                   or not (math.isfinite(value) and value > 0))
        if bad:
            raise ValueError(f"{name} must be a finite number above zero, got {value!r}")


def ep_payload_bytes(tokens: Number, experts_per_token: Number, hidden: Number, bytes_per_element: Number) -> Number:
    """t * k * d * e: what one GPU's t tokens carry in one exchange, each token's activation once for every
    expert it chose. Counting k copies is the per-expert upper bound DeepEP's low-latency kernels send;
    its normal kernels send a token once per GPU (and once per node across the network)."""
    return tokens * experts_per_token * hidden * bytes_per_element


def ep_exchange_s(tokens: Number, experts_per_token: Number, hidden: Number, bytes_per_element: Number,
                  gpus: Number, domain_gpus: Number, domain_bytes_per_s: Number, network_bytes_per_s: Number,
                  latency_s: Number) -> Number:
    """One dispatch or one combine in one MoE layer, from one GPU of g:

        alpha + max(P (min(g, m) - 1) / g / B_nvlink,  P (g - min(g, m)) / g / B_network)

    with P = t k d e. Experts are spread evenly, so (g - 1) / g of the payload leaves the GPU: the share
    bound for GPUs in its own NVLink domain of m GPUs goes over NVLink, the rest over its network link, and the
    two paths run side by side, so the slower sets the time. Link bandwidths per GPU, one direction (a GPU
    sends and receives at once). Zero on one GPU."""
    _check_positive(gpus=gpus, domain_gpus=domain_gpus, domain_bytes_per_s=domain_bytes_per_s,
                    network_bytes_per_s=network_bytes_per_s)
    payload = ep_payload_bytes(tokens, experts_per_token, hidden, bytes_per_element)
    inside = minimum(gpus, domain_gpus)
    over_domain = payload * (inside - 1) / gpus / domain_bytes_per_s
    over_network = payload * (gpus - inside) / gpus / network_bytes_per_s
    return (latency_s + maximum(over_domain, over_network)) * (gpus > 1)


def ep_layer_alltoall_s(tokens: Number, experts_per_token: Number, hidden: Number, dispatch_bytes_per_element: Number,
                        combine_bytes_per_element: Number, gpus: Number, domain_gpus: Number,
                        domain_bytes_per_s: Number, network_bytes_per_s: Number, latency_s: Number) -> Number:
    """A MoE layer's two exchanges: the dispatch (tokens to their experts, FP8 in DeepEP: 1 byte an element)
    and the combine (expert outputs back, BF16: 2 bytes), each ep_exchange_s."""
    link = (gpus, domain_gpus, domain_bytes_per_s, network_bytes_per_s, latency_s)
    return (ep_exchange_s(tokens, experts_per_token, hidden, dispatch_bytes_per_element, *link)
            + ep_exchange_s(tokens, experts_per_token, hidden, combine_bytes_per_element, *link))


def two_batch_overlap_s(layer_s: Number, weight_read_s: Number, alltoall_s: Number, latency_s: Number) -> Number:
    """max(C + W, A + 2 alpha): a layer whose batch is split into two micro-batches, one computing while the
    other's dispatch or combine is in flight (SGLang's two-batch overlap, vLLM's dual-batch overlap, DeepSeek's
    dual micro-batch). C is the layer's compute and memory time for the whole batch, A its all-to-all
    (ep_layer_alltoall_s). Each micro-batch reads the layer's weights itself, so the compute side grows by one
    more read of them, W; each pays its own dispatch and combine latency, so the communication side grows by
    2 alpha. Perfect overlap: the longer side sets the layer. Against C + A without it, the overlap gains
    min(A - W, C - 2 alpha): it loses when the all-to-all is shorter than the extra weight read."""
    return maximum(layer_s + weight_read_s, alltoall_s + 2 * latency_s)


def hottest_gpu_load(experts_per_gpu: Number, hot_multiple: Number, copies: Number = 1) -> Number:
    """max(1, (e - 1 + h / c) / e): the busiest GPU's tokens over the mean GPU's, when one expert draws h
    times an expert's mean load and every other the mean (one hot expert among hundreds barely moves the mean),
    e = E / g experts' worth of load to a GPU. Replicated in c copies on c GPUs (EPLB's redundant experts), each
    copy takes h / c; once h / c is at most 1 the hot GPU is no busier than any other, and the busiest is a
    mean one. A step waits for its slowest GPU, so the token-proportional parts of a MoE layer (the exchanges,
    the expert GEMMs) take this multiple of their mean time."""
    _check_positive(experts_per_gpu=experts_per_gpu, hot_multiple=hot_multiple, copies=copies)
    return maximum(1, (experts_per_gpu - 1 + hot_multiple / copies) / experts_per_gpu)


def md1_max_utilisation(service_s: Number, target_s: Number) -> Number:
    """The highest utilisation rho at which an M/D/1 server's mean wait plus one service meets the target:
    S + rho S / (2 (1 - rho)) = T (formulas.md1_wait_s) gives rho = 2x / (1 + 2x) with x = (T - S) / S.
    Zero when one service alone misses the target."""
    _check_positive(service_s=service_s, target_s=target_s)
    x = maximum(target_s - service_s, 0) / service_s
    return 2 * x / (1 + 2 * x)


def prefill_pool_gpus(requests_per_s: Number, prefill_s: Number, replica_gpus: Number, utilisation: Number) -> Number:
    """lambda S g / rho: the prefill pool's GPUs (not rounded to whole replicas). Each request holds a replica
    of g GPUs for its prefill S, and the pool may run at most rho busy (md1_max_utilisation) for the TTFT
    target to hold. Equivalently: prompt tokens a second over one GPU's prefill tokens a second at rho."""
    _check_positive(replica_gpus=replica_gpus, utilisation=utilisation)
    return requests_per_s * prefill_s * replica_gpus / utilisation


def tpot_bound_batch(tpot_s: Number, efficiency: Number, gpus: Number, bandwidth_bytes_per_s: Number,
                     weight_bytes_read: Number, kv_per_seq: Number) -> Number:
    """floor((TPOT eta g B - W) / KV): the most sequences a memory-bound decode step of g GPUs carries
    within the TPOT target, its floor (W + b KV) / (g B) over the realised efficiency eta. Never below zero;
    the caller caps it at the KV budget's max batch."""
    _check_positive(efficiency=efficiency, gpus=gpus, bandwidth_bytes_per_s=bandwidth_bytes_per_s,
                    kv_per_seq=kv_per_seq)
    room = tpot_s * efficiency * gpus * bandwidth_bytes_per_s - weight_bytes_read
    return maximum(room // kv_per_seq, 0)


def decode_pool_gpus(requests_per_s: Number, output_tokens: Number, tpot_s: Number, batch: Number,
                     replica_gpus: Number) -> Number:
    """lambda (O - 1) TPOT g / b: the decode pool's GPUs (not rounded to whole replicas). By Little's law
    lambda (O - 1) TPOT sequences decode at once (the first token comes from prefill), b to a replica of g."""
    _check_positive(batch=batch, replica_gpus=replica_gpus)
    return requests_per_s * (output_tokens - 1) * tpot_s * replica_gpus / batch


def layerwise_exposed_s(transfer_s: Number, prefill_s: Number, layers: Number) -> Number:
    """max(X / L, X - P (L - 1) / L): the KV handoff a request still waits for when each layer's KV is sent
    as soon as prefill finishes that layer (Mooncake, SGLang's layer pipeline), X the whole transfer and P the
    prefill. If the link keeps up (X <= P), each layer's share is sent before the next is ready and only the
    last layer's, X / L, follows the prefill; if not, the link runs back to back from the first layer on and
    finishes X - P (L - 1) / L after the prefill. Sending whole after prefill exposes all of X."""
    _check_positive(layers=layers)
    return maximum(transfer_s / layers, transfer_s - prefill_s * (layers - 1) / layers)


def units_for_rate(load_per_s: Number, capacity_per_unit_per_s: Number) -> Number:
    """load / capacity: how many units (nodes, replicas) a steady load keeps busy, not rounded."""
    _check_positive(capacity_per_unit_per_s=capacity_per_unit_per_s)
    return load_per_s / capacity_per_unit_per_s
