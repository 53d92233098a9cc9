"""Interactive completion (the IDE code-completion design): the latency budget, the keystrokes that
become requests, the requests a later keystroke cancels, and the tokens a speculative step yields.

Pure functions in SI base units (see the package docstring)."""

from __future__ import annotations

from ._array import Number

__all__ = [
    "end_to_end_s", "tpot_budget_s", "debounce_sent_share", "cancelled_share", "decoded_tokens_per_request",
    "speculative_tokens_per_step",
]


def end_to_end_s(network_s: Number, ttft_s: Number, output_tokens: Number, tpot_s: Number) -> Number:
    """network + TTFT + (n - 1) * TPOT: from the request leaving the client to the last of its n tokens
    arriving. The first token is inside the TTFT; each later one costs one time per output token."""
    return network_s + ttft_s + (output_tokens - 1) * tpot_s


def tpot_budget_s(total_s: Number, network_s: Number, ttft_s: Number, output_tokens: Number) -> Number:
    """(total - network - TTFT) / (n - 1): the time per output token that end_to_end_s allows for an
    answer of n tokens inside a total budget. Zero or negative: the budget is spent before decode."""
    return (total_s - network_s - ttft_s) / (output_tokens - 1)


def debounce_sent_share(debounce_s: Number, mean_gap_s: Number) -> Number:
    """exp(-D / g): the share of keystrokes that become requests under a debounce of D seconds, when the
    gaps between keystrokes are exponential with mean g. A keystroke fires only if the next one comes
    later than D; P(gap > D) = exp(-D / g). Without a debounce (D = 0) every keystroke fires."""
    import math

    if hasattr(debounce_s, "shape") or hasattr(mean_gap_s, "shape"):
        import numpy as np

        return np.exp(-debounce_s / mean_gap_s)
    return math.exp(-debounce_s / mean_gap_s)


def cancelled_share(latency_s: Number, mean_gap_s: Number) -> Number:
    """1 - exp(-L / g): the share of sent requests a later keystroke cancels before the answer arrives
    L seconds after sending, under exponential gaps of mean g. The gaps are memoryless, so having waited
    out the debounce changes nothing: the share does not depend on the debounce window."""
    return 1 - debounce_sent_share(latency_s, mean_gap_s)


def decoded_tokens_per_request(output_tokens: Number, cancelled: Number, done_when_cancelled: Number) -> Number:
    """n * (1 - c * (1 - f)): output tokens the GPU decodes per sent request when a share c is cancelled
    having decoded a share f of its n tokens. Every sent request is prefilled; f = 1 when the cancel
    never reaches the engine, so every request decodes to the end."""
    return output_tokens * (1 - cancelled * (1 - done_when_cancelled))


def speculative_tokens_per_step(acceptance: Number, draft_tokens: Number) -> Number:
    """(1 - a^(k + 1)) / (1 - a): the mean tokens one verification step yields with k draft tokens, each
    accepted with probability a independently until the first rejection, plus the target's own token
    (Leviathan et al., 2023). a = 0 gives 1 (a plain step); a = 1 gives k + 1."""
    if hasattr(acceptance, "shape"):
        import numpy as np

        return np.where(acceptance == 1, draft_tokens + 1.0,
                        (1 - acceptance ** (draft_tokens + 1)) / np.where(acceptance == 1, 2, 1 - acceptance))
    if acceptance == 1:
        return draft_tokens + 1
    return (1 - acceptance ** (draft_tokens + 1)) / (1 - acceptance)
