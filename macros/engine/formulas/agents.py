"""Agent loops (the agent platform design): a task is a chain of model calls, each followed by a tool
call, over a context that grows by what each step appends.

Pure functions in SI base units (see the package docstring). Symbols: N steps in a task, P the
prompt at the first step (shared prefix plus the task's own), p the task's own part of it, d tokens
appended each step, q a per-call percentile.
"""

from __future__ import annotations

from ._array import Number, minimum
from .queueing import in_system
from .techniques import multi_turn_prefill_tokens

__all__ = [
    "task_prompt_tokens", "task_mean_prompt_tokens", "task_hit_rate_ceiling", "task_time_s",
    "any_step_beyond_quantile", "idle_sequences", "tasks_in_flight", "kept_share", "blended_hit_rate",
]


def task_prompt_tokens(steps: Number, first_prompt_tokens: Number, tokens_per_step: Number) -> Number:
    """N * P + d * N * (N - 1) / 2: prompt tokens a task sends over its N calls, when step k's prompt
    is the first one plus the d tokens each earlier step appended. Quadratic in the steps: the growth
    is a conversation of N - 1 turns of d tokens with no cache (multi_turn_prefill_tokens)."""
    return steps * first_prompt_tokens + multi_turn_prefill_tokens(steps - 1, tokens_per_step, False)


def task_mean_prompt_tokens(steps: Number, first_prompt_tokens: Number, tokens_per_step: Number) -> Number:
    """P + d * (N - 1) / 2: the mean prompt over a task's calls, the planner's prompt_tokens."""
    return task_prompt_tokens(steps, first_prompt_tokens, tokens_per_step) / steps


def task_hit_rate_ceiling(steps: Number, first_prompt_tokens: Number, own_prefix_tokens: Number,
                          tokens_per_step: Number) -> Number:
    """1 - (p + d * (N - 1)) / (N * P + d * N * (N - 1) / 2): the best prefix hit rate an append-only
    loop allows. Only new tokens miss: the task's own prefix once (the shared part is already cached
    from other tasks), then what each later step appended. Anything that rewrites the context
    (a timestamp at the top, reordered tool schemas) lowers it."""
    new = own_prefix_tokens + tokens_per_step * (steps - 1)
    return 1 - new / task_prompt_tokens(steps, first_prompt_tokens, tokens_per_step)


def task_time_s(steps: Number, ttft_s: Number, output_tokens: Number, tpot_s: Number, tool_s: Number) -> Number:
    """N * (TTFT + n_out * TPOT + t_tool): a task's wall time when its steps run one after another,
    with no queueing; each step waits for its first token, its whole output, then its tool."""
    return steps * (ttft_s + output_tokens * tpot_s + tool_s)


def any_step_beyond_quantile(quantile: Number, steps: Number) -> Number:
    """1 - q ** N: the chance that at least one of a task's N calls lands beyond the per-call q
    percentile, if calls are independent (they are not: a slow replica slows a task's every step)."""
    return 1 - quantile**steps


def idle_sequences(active_sequences: Number, tool_s: Number, model_s: Number) -> Number:
    """b * t_tool / t_model: tasks waiting on a tool for each b running on the GPU, when each task
    alternates model time t_model and tool time t_tool. Their KV is idle while they wait."""
    return active_sequences * tool_s / model_s


def tasks_in_flight(start_rate_per_s: Number, task_s: Number) -> Number:
    """lambda * W (Little's law): tasks under way at once, from their start rate and wall time."""
    return in_system(start_rate_per_s, task_s)


def kept_share(room_bytes: Number, wanted_bytes: Number) -> Number:
    """min(1, room / wanted): the share of what wants keeping that fits in the room there is."""
    return minimum(1.0, room_bytes / wanted_bytes)


def blended_hit_rate(kept: Number, hit_if_kept: Number, hit_if_lost: Number) -> Number:
    """k * h_kept + (1 - k) * h_lost: the hit rate when a share k of steps finds its prefix and the
    rest find only what survives elsewhere (the shared system prompt)."""
    return kept * hit_if_kept + (1 - kept) * hit_if_lost
