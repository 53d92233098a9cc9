"""LoRA adapters served unmerged on a shared base model: an adapter's size, what a decode step pays
to run many of them at once, and how often a popularity-skewed stream finds its adapter resident.

A LoRA adapter adds to a frozen d_in -> d_out weight matrix a low-rank update B·A, with A of r × d_in
and B of d_out × r. Served unmerged (Punica's SGMV, S-LoRA's kernels), each token runs the base matmul
and then its own adapter's two thin matmuls, so one batch can mix many adapters.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._array import Number

__all__ = [
    "LORA_TARGETS", "lora_matrix_widths", "lora_adapter_params", "lora_flops_per_token", "lora_step_bytes",
    "zipf_shares", "expected_distinct", "popular_set_hit_rate",
]

# The projections of a dense transformer block a LoRA adapter may adapt (Hugging Face PEFT's names
# without the "_proj"): attention's query, key, value and output, the MLP's gate, up and down.
LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")


def lora_matrix_widths(hidden: int, query_heads: int, kv_heads: int, head_dim: int,
                       ffn: int) -> dict[str, tuple[int, int]]:
    """(d_in, d_out) of each adaptable projection of one dense GQA block, by LORA_TARGETS name.

    q: d -> H_q·d_h; k and v: d -> H_kv·d_h; o: H_q·d_h -> d; gate and up: d -> d_ff; down: d_ff -> d.
    """
    q_width, kv_width = query_heads * head_dim, kv_heads * head_dim
    return {"q": (hidden, q_width), "k": (hidden, kv_width), "v": (hidden, kv_width), "o": (q_width, hidden),
            "gate": (hidden, ffn), "up": (hidden, ffn), "down": (ffn, hidden)}


def lora_adapter_params(rank: Number, widths: Iterable[tuple[int, int]], layers: int) -> Number:
    """r · Σ (d_in + d_out) · L: the parameters of one adapter, A (r × d_in) plus B (d_out × r) for
    each adapted matrix of a layer, in every layer. Bytes are weight_bytes(params, w)."""
    return rank * sum(d_in + d_out for d_in, d_out in widths) * layers


def lora_flops_per_token(adapter_params: Number) -> Number:
    """2 · adapter parameters: each token multiplies through A and then B once per adapted matrix (a
    multiply and an add per weight), the same rule as 2·N for the base model."""
    return 2 * adapter_params


def lora_step_bytes(base_step_bytes: Number, distinct_adapters: Number, adapter_bytes: Number) -> Number:
    """Base step bytes + u · adapter bytes: a decode step with unmerged adapters also reads the
    weights of every distinct adapter in the batch, once each however many sequences share it
    (SGMV groups a batch's tokens by adapter). u is at most the batch and at most the adapters
    resident in HBM, so the extra read is at most the resident slice."""
    return base_step_bytes + distinct_adapters * adapter_bytes


def zipf_shares(items: int, exponent: float) -> list[float]:
    """p_i = i^-s / Σ_j j^-s for i = 1..n: the share of requests the i-th most popular of n items
    draws under a Zipf law of exponent s (s = 0 is uniform; s near 1 is a long tail whose head
    still carries much of the traffic)."""
    weights = [i ** -exponent for i in range(1, items + 1)]
    total = sum(weights)
    return [w / total for w in weights]


def expected_distinct(shares: Sequence[float], draws: Number) -> Number:
    """Σ_i (1 - (1 - p_i)^b): distinct items, on average, among b independent draws with shares p_i.

    With equal shares of k/E it is experts_touched() for an MoE router; here it counts the distinct
    adapters in a batch of b sequences drawn from a skewed popularity."""
    return sum(1 - (1 - p) ** draws for p in shares)


def popular_set_hit_rate(shares: Sequence[float], slots: int) -> float:
    """Σ_{i <= k} p_i: the share of requests whose item is among the k most popular, the hit rate
    of a cache that holds exactly those k (shares sorted most popular first, requests independent).
    An LRU cache of k slots does no better on an independent stream. At most 1 (float sums drift)."""
    return min(1.0, sum(sorted(shares, reverse=True)[:max(int(slots), 0)]))
