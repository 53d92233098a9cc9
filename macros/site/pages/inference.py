"""Chapter 1 (docs/guide/inference.md): what one token costs, what attention adds, and prefill
against decode on the anchor group. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.geometry import kv_bytes_per_seq
from ...engine.lookup import get_model
from ...engine.scenario import DEFAULT_SEQ_LEN, anchor
from ...engine.workloads import workloads

# The KV-cache example of 1.2: "when you generate token 501 you do not recompute tokens 1 to 500".
NEXT_TOKEN = 501


def model() -> SimpleNamespace:
    w = workloads()
    m = get_model(w["model"])
    context, long_context = DEFAULT_SEQ_LEN, m.max_context
    token_flops = f.decode_step_flops(m.active, 1)  # 2N: one sequence, one token
    attention_context = f.attention_flops_per_token(m.layers, m.query_heads, m.head_dim, context)
    attention_long = f.attention_flops_per_token(m.layers, m.query_heads, m.head_dim, long_context)
    return SimpleNamespace(
        model_key=w["model"],
        model=m,
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
        kv_seq_context=kv_bytes_per_seq(m, context),
        kv_seq_long=kv_bytes_per_seq(m, long_context),
        # The worked prompt on the group the model runs on, one sequence.
        prompt=anchor(seq_len=w["prompt_tokens"], batch=1),
    )
