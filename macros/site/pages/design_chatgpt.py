"""Chapter 7 (docs/guide/design-chatgpt.md): the design round's figures for the anchor group, its
follow-ups (a long prompt, draining, a failed GPU, a heavy tenant, cost, agents) and the GPU count for
a stated user base. Values in SI units; the page formats them."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.geometry import prefill_attention_flops
from ...engine.scenario import anchor
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ._shared import bandwidth_comparison, operations_examples, request_spread

# Page-only inputs, the assumptions the candidate states out loud.
DAILY_USERS = 10e6  # "I'll assume 10 million DAU"
MAX_OUTPUT_TOKENS = 4000  # the generation cap that sets how long a replica takes to drain
AGENT_CALLS = 50  # sequential model calls behind one agentic user action
TURNS_PER_USER_DAY = 10  # the GPU-count estimate: turns per user per day ...
OUTPUT_TOKENS_PER_TURN = 300  # ... output tokens per turn ...
PEAK_TO_MEAN = 2  # ... and the peak hour against the daily mean
SECONDS_PER_DAY = 86400


def model() -> SimpleNamespace:
    w = workloads()
    s = anchor()
    m, gpu = s.model_spec, s.gpu_spec
    prompt = anchor(seq_len=w["prompt_tokens"])
    long_prompt = anchor(seq_len=w["big_prompt"], batch=1)
    to_measured = catalog().claims["floor-to-measured"]

    # 7.3: one token on the group; the worked prompt on one GPU of it
    token_flops = f.decode_step_flops(s.active_params, 1)
    token_memory_s = f.memory_time_s(s.weight_bytes, s.gpus, gpu.bandwidth_bytes_per_s)
    token_compute_s = f.compute_time_s(token_flops, s.gpus, s.gpu_peak_flops)
    turns = w["turns"]
    # 7.4: the long prompt's prefill floor includes its causal attention; how much of it that is
    long_attention_s = f.compute_time_s(prefill_attention_flops(m, w["big_prompt"]), s.gpus, s.gpu_peak_flops)
    drain_floor_s = MAX_OUTPUT_TOKENS / s.decode_tokens_per_s_per_user
    # the GPU count: output tokens/s at the peak hour over one replica's realised rate
    peak_tokens_per_s = DAILY_USERS * TURNS_PER_USER_DAY * OUTPUT_TOKENS_PER_TURN / SECONDS_PER_DAY * PEAK_TO_MEAN
    replica_realised = s.decode_tokens_per_s * s.efficiency
    replicas = math.ceil(peak_tokens_per_s / replica_realised)
    return SimpleNamespace(
        anchor=s, model=m, gpu=gpu,
        **bandwidth_comparison(s),
        price=catalog().prices[w["gpu"]],
        # inputs
        daily_users_millions=DAILY_USERS / 1e6,
        ttft_target_s=w["ttft_target_s"],
        prompt_tokens=w["prompt_tokens"],
        conversation_turns=turns,
        big_prompt=w["big_prompt"],
        tenant_requests=w["tenant_requests"],
        tenant_small_tokens=w["tenant_small_tokens"],
        max_output_tokens=MAX_OUTPUT_TOKENS,
        source_cost_usd=w["source_cost_usd"],
        agent_calls=AGENT_CALLS,
        turns_per_user_day=TURNS_PER_USER_DAY,
        output_tokens_per_turn=OUTPUT_TOKENS_PER_TURN,
        peak_to_mean=PEAK_TO_MEAN,
        # scenarios beside the anchor
        prompt=prompt,
        double_context=anchor(seq_len=2 * s.seq_len),
        long_prompt=long_prompt,
        fp8_kv=anchor(kv="fp8"),
        # 7.2 and 7.4: a huge request against a tiny one, in tokens
        request_token_spread=request_spread(m).token_ratio,
        # 7.3
        reserve_per_gpu=s.reserve_bytes / s.gpus,
        weights_per_gpu=s.weight_bytes / s.gpus,
        token_flops=token_flops,
        token_memory_s=token_memory_s,
        token_compute_s=token_compute_s,
        memory_over_compute=token_memory_s / token_compute_s,
        per_user_measured_low=s.decode_tokens_per_s_per_user / to_measured.high,
        per_user_measured_high=s.decode_tokens_per_s_per_user / to_measured.low,
        prefill_in_decode_steps=prompt.prefill_s / s.decode_step_s,
        prompt_compute_one_gpu_s=f.compute_time_s(f.prefill_flops(s.active_params, w["prompt_tokens"]), 1,
                                                  s.gpu_peak_flops),
        uncached_prefill_ratio=(f.multi_turn_prefill_tokens(turns, 1, False)
                                / f.multi_turn_prefill_tokens(turns, 1, True)),
        # 7.4
        long_attention_s=long_attention_s,
        long_prompt_over_ttft=long_prompt.prefill_s / w["ttft_target_s"],
        long_prompt_budget_share=long_prompt.kv_bytes_per_seq / s.kv_budget_bytes,
        drain_floor_s=drain_floor_s,
        drain_measured_low_s=drain_floor_s * to_measured.low,
        drain_measured_high_s=drain_floor_s * to_measured.high,
        replica_reprefill_s=s.max_batch * s.prefill_s,
        tenant_ratio=operations_examples(s)["tenant_ratio"],
        weight_share_of_step=s.weight_bytes_read / s.decode_bytes,
        kv_share_of_step=1 - s.weight_bytes_read / s.decode_bytes,
        idle_at_full_batch=f.compute_idle_fraction(s.decode_intensity, s.machine_balance),
        agent_latency_s=AGENT_CALLS * w["ttft_target_s"],
        peak_tokens_per_s=peak_tokens_per_s,
        replica_realised_tokens_per_s=replica_realised,
        replicas=replicas,
        replica_gpus=float(replicas * s.gpus),  # a float, as before: the page shows it to 3 figures (1,290)
    )
