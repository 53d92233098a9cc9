"""Chapter 1 (docs/guide/inference.md): what one token costs, what attention adds, prefill against
decode on the anchor group, one request's timeline, and the chapter's problems on other models and
GPUs. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.lookup import get_gpu, get_model
from ...engine.model.geometry import kv_bytes_per_token, model_kv_bytes_per_seq
from ...engine.model.scenario import DEFAULT_SEQ_LEN, anchor, scenario
from ...engine.workloads import workloads
from ._shared import group_words

# The KV-cache example of 1.2: "when you generate token 501 you do not recompute tokens 1 to 500".
NEXT_TOKEN = 501
# The real model the napkin preset rounds (models.toml: same geometry, 70e9 parameters exactly).
REAL_MODEL = "llama-3.1-70b"
# The request of 1.3's end-to-end example: the worked prompt, then an answer of this many tokens.
ANSWER_TOKENS = 500

# The problems: a small dense model on a small GPU, and a mixture-of-experts model.
SMALL_MODEL, SMALL_GPU = "llama-3.1-8b", "l4"  # an 8B on the fewest L4s that hold it (one, today)
SMALL_CONTEXT = 8192  # P2: one 8k-token conversation
MOE_MODEL = "deepseek-v3"  # P4: FLOPs per token follow the active parameters


def _small_request(prompt_tokens: int) -> SimpleNamespace:
    """P3: the worked prompt and answer for the 8B at batch 1 on the fewest L4s that hold it: TTFT and TPOT
    floors, end to end."""
    s = scenario(SMALL_MODEL, SMALL_GPU, seq_len=prompt_tokens, batch=1)
    return SimpleNamespace(s=s, group=group_words(s), ttft_s=s.prefill_s, tpot_s=s.decode_step_s,
                           total_s=s.prefill_s + (ANSWER_TOKENS - 1) * s.decode_step_s)


def _problems(prompt_tokens: int, anchor_flops: float, anchor_kv_token: float) -> SimpleNamespace:
    small, moe = get_model(SMALL_MODEL), get_model(MOE_MODEL)
    gpu = get_gpu(SMALL_GPU)
    small_flops = f.decode_step_flops(small.active, 1)
    # Attention per token grows linearly with context: its FLOPs over one cached token, times s.
    per_context_token = f.attention_flops_per_token(small.layers, small.query_heads, small.head_dim, 1)
    kv_seq = model_kv_bytes_per_seq(small, SMALL_CONTEXT)
    moe_flops = f.decode_step_flops(moe.active, 1)
    return SimpleNamespace(
        small=small, gpu=gpu, small_context=SMALL_CONTEXT,
        # P1: 2N for the 8B, and the context at which attention's 4 L H_q d_h s equals it
        small_flops=small_flops,
        attention_per_context_token=per_context_token,
        crossover_context=small_flops / per_context_token,
        # P2: the 8B's cache per token and per 8k conversation, against the L4's memory and the anchor
        small_kv_token=kv_bytes_per_token(small),
        small_kv_seq=kv_seq,
        small_kv_share_of_gpu=kv_seq / gpu.memory_bytes,
        anchor_over_small_kv=anchor_kv_token / kv_bytes_per_token(small),
        # P3: one request on one L4
        request=_small_request(prompt_tokens),
        # P4: a mixture of experts spends 2 N_a, not 2 N
        moe=moe, moe_flops=moe_flops, moe_dense_flops=2 * moe.params,
        moe_over_anchor=moe_flops / anchor_flops,
    )


def model() -> SimpleNamespace:
    w = workloads()
    m = get_model(w["model"])
    context, long_context = DEFAULT_SEQ_LEN, m.max_context
    token_flops = f.decode_step_flops(m.active, 1)  # 2N: one sequence, one token
    attention_context = f.attention_flops_per_token(m.layers, m.query_heads, m.head_dim, context)
    attention_long = f.attention_flops_per_token(m.layers, m.query_heads, m.head_dim, long_context)
    prompt = anchor(seq_len=w["prompt_tokens"], batch=1)  # the worked prompt on the anchor group, one sequence
    return SimpleNamespace(
        model_key=w["model"],
        model=m,
        real_model=get_model(REAL_MODEL),
        prompt_tokens=w["prompt_tokens"],
        context=context,
        long_context=long_context,
        next_token=NEXT_TOKEN,
        cached_tokens=NEXT_TOKEN - 1,
        token_flops=token_flops,
        attention_flops_context=attention_context,
        attention_flops_long=attention_long,
        attention_share_context=attention_context / token_flops,  # what attention adds to 2N
        attention_ratio_long=attention_long / token_flops,
        kv_seq_context=model_kv_bytes_per_seq(m, context),
        kv_seq_long=model_kv_bytes_per_seq(m, long_context),
        prompt=prompt,
        # 1.3: one request end to end, TTFT + (n - 1) x TPOT (queueing ignored, every step at the prompt's length)
        answer_tokens=ANSWER_TOKENS,
        answer_steps=ANSWER_TOKENS - 1,
        request_s=prompt.prefill_s + (ANSWER_TOKENS - 1) * prompt.decode_step_s,
        prefill_in_steps=prompt.prefill_s / prompt.decode_step_s,
        problems=_problems(w["prompt_tokens"], token_flops, kv_bytes_per_token(m)),
    )
