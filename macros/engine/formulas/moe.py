"""Mixture of experts: how many parameters a decode step of b tokens reads.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from ._array import Number

__all__ = [
    "experts_touched", "moe_expert_params", "moe_params_read", "ep_alltoall_s",
]



def experts_touched(experts: int, experts_per_token: int, batch: Number) -> Number:
    """u(b) = E * (1 - (1 - k_e / E) ** b): distinct experts that b tokens route to, on average."""
    return experts * (1 - (1 - experts_per_token / experts) ** batch)


def moe_expert_params(params: Number, active_params: Number, experts: int, experts_per_token: int) -> Number:
    """e = (N - N_a) / (E - k_e): parameters in one routed expert (the formula contract's MoE split, ARCHITECTURE.md).

    The N - N_a parameters a token skips are the E - k_e experts it does not choose.
    """
    return (params - active_params) / (experts - experts_per_token)


def moe_params_read(
    params: Number, active_params: Number, experts: int, experts_per_token: int, batch: Number
) -> Number:
    """Parameters read in one decode step of b tokens: a + u(b) * e.

    e = (N - N_a) / (E - k_e) per routed expert; a = N_a - k_e * e is read by every token
    (attention, embeddings, shared experts). At b = 1 this is N_a; for large b it tends to N.
    """
    per_expert = moe_expert_params(params, active_params, experts, experts_per_token)
    always_read = active_params - experts_per_token * per_expert
    return always_read + experts_touched(experts, experts_per_token, batch) * per_expert


def ep_alltoall_s(tokens: Number, experts_per_token: int, hidden: int, gpus: Number, link_bytes_per_s: Number,
                  latency_s: Number, bytes_per_activation: float = 2) -> Number:
    """One expert-parallel exchange (a dispatch or a combine) in one MoE layer: each of g ranks holds
    T / g of the tokens and sends each token's activation (d * 2 B in BF16) to its k experts, of which
    (g - 1) / g live on other ranks, over one link direction; plus a fixed latency. Zero on one GPU."""
    sent = tokens / gpus * experts_per_token * hidden * bytes_per_activation * (gpus - 1) / gpus
    return (sent / link_bytes_per_s + latency_s) * (gpus > 1)
