"""The "Parallelism and placement" page: where the weights and the KV cache sit on a replica under
tensor parallelism and under data-parallel attention, for the frontier models, in each model's
native precision."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.lookup import dtype_bytes
from ...engine.model.geometry import attention_params
from ...engine.model.scenario import anchor, get_model, scenario

# (model, GPU, GPUs per replica): each frontier model on the replica it is usually served on. The
# weights are the checkpoint's own format (models.toml's native_weights).
CASES = (("llama-3.1-405b", "h100", 16), ("deepseek-v3", "h200", 8), ("qwen3-235b-a22b", "h100", 8),
         ("gpt-oss-120b", "h100", 1))
LAYOUTS = f.LAYOUTS


def _case(model: str, gpu: str, usual: int) -> SimpleNamespace:
    """The model on its usual replica, or, when a changed spec means that no longer holds one sequence under
    tensor parallelism, on the fewest GPUs (a power of two) that do: the page says it was widened. (Under
    data-parallel attention more GPUs may not help: every rank holds the attention weights.)"""
    m = get_model(model)
    weights = m.native_weights
    gpus = max(usual, scenario(model, gpu, weights=weights).gpus)
    by_layout = {layout: scenario(model, gpu, gpus=gpus, weights=weights, layout=layout) for layout in LAYOUTS}
    attention = attention_params(m)
    return SimpleNamespace(model=m, gpus=gpus, weights=weights,
                           widened="" if gpus == usual else f" (widened from {usual}, which no longer hold it)",
                           layouts=by_layout, attention_params=attention,
                           attention_bytes=attention * dtype_bytes(weights),
                           better=max(LAYOUTS, key=lambda layout: by_layout[layout].max_batch))


def model() -> SimpleNamespace:
    cases = {key: _case(key, gpu, n) for key, gpu, n in CASES}
    dsv3 = cases["deepseek-v3"]
    a = anchor()
    return SimpleNamespace(
        anchor_attention_per_byte=a.decode_attention_flops / a.batch / a.kv_bytes_per_seq,
        cases=list(cases.values()), by_key=cases, layouts=LAYOUTS, anchor=a,
        dsv3_gain=dsv3.layouts["dp-attention"].max_batch / dsv3.layouts["tp"].max_batch,
        # Attention FLOPs per cached token over DeepSeek-V3's layers (MLA absorbed) and per latent byte
        dsv3_attention_per_token=dsv3.layouts["tp"].decode_attention_flops / dsv3.layouts["tp"].batch
        / dsv3.layouts["tp"].seq_len,
        dsv3_attention_per_byte=dsv3.layouts["tp"].decode_attention_flops / dsv3.layouts["tp"].batch
        / dsv3.layouts["tp"].kv_bytes_per_seq,
        dsv3_bf16_balance=f.machine_balance(dsv3.layouts["tp"].gpu_spec.bf16_flops,
                                            dsv3.layouts["tp"].gpu_spec.bandwidth_bytes_per_s),
    )
