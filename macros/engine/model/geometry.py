"""Model-aware wrappers over the formulas: what one model's geometry gives per token, per sequence
and per step (KV bytes, parameters read, attention parameters and FLOPs), whatever the hardware."""

from __future__ import annotations

from typing import Any

from ..formulas.memory import (
    attended_tokens,
    attention_params_gqa,
    attention_params_mla,
    kv_bytes_per_seq,
    kv_bytes_per_token_gqa,
    kv_bytes_per_token_mla,
    kv_bytes_per_token_mla_as_mha,
    weight_bytes,
)
from ..formulas.moe import experts_touched, moe_expert_params, moe_params_read
from ..formulas.roofline import attention_flop_coefficients, attention_flops_prefill, prefill_flops
from ..lookup import DEFAULT_DTYPE, InputError, dtype_bytes
from ..specs import Model


def kv_bytes_per_token(model: Model, kv_dtype: str = DEFAULT_DTYPE) -> float:
    """KV bytes one token adds across all layers (before any sliding window applies)."""
    k = dtype_bytes(kv_dtype)
    if model.is_mla:
        return kv_bytes_per_token_mla(model.layers, model.kv_lora_rank, model.qk_rope_head_dim, k)
    return kv_bytes_per_token_gqa(model.layers, model.kv_heads, model.head_dim, k)


def mha_kv_bytes_per_token(model: Model, kv_dtype: str = DEFAULT_DTYPE) -> float:
    """The same model with one KV head per query head: the baseline GQA and MLA save against."""
    k = dtype_bytes(kv_dtype)
    if model.is_mla:
        return kv_bytes_per_token_mla_as_mha(model.layers, model.query_heads, model.head_dim,
                                               model.qk_rope_head_dim, k)
    return kv_bytes_per_token_gqa(model.layers, model.query_heads, model.head_dim, k)


def model_kv_bytes_per_seq(model: Model, seq_len: Any, kv_dtype: str = DEFAULT_DTYPE) -> Any:
    return kv_bytes_per_seq(kv_bytes_per_token(model, kv_dtype), model.layers, seq_len,
                              model.sliding_window_layers, model.sliding_window)


def params_read_per_step(model: Model, batch: Any) -> Any:
    """Parameters one decode step reads: all of them for a dense model, u(b) experts for MoE."""
    if not model.is_moe:
        return model.params + 0 * batch
    return moe_params_read(model.params, model.active, model.experts, model.experts_per_token, batch)


def _formats(model: Model, weights: str) -> tuple[float, float]:
    """(bytes per routed-expert weight, bytes per other weight). They differ only for a mixture of
    experts in its native format with another format outside the experts (GPT-OSS: MXFP4 experts,
    BF16 attention, router, embeddings and head)."""
    w = dtype_bytes(weights)
    if model.is_moe and weights == model.native_weights and model.native_nonexpert_weights:
        return w, dtype_bytes(model.native_nonexpert_weights)
    return w, w


def _routed_params(model: Model, touched: Any) -> Any:
    """Parameters in `touched` routed experts, e = (N - N_a) / (E - k) each (the formula contract's MoE split)."""
    return touched * moe_expert_params(model.params, model.active, model.experts, model.experts_per_token)


def model_weight_bytes(model: Model, weights: str) -> float:
    """Every weight once, N * w; for a mixed-format checkpoint the routed experts in their format and
    the rest in theirs."""
    expert_w, other_w = _formats(model, weights)
    if expert_w == other_w:
        return weight_bytes(model.params, expert_w)
    routed = _routed_params(model, model.experts)
    return routed * expert_w + (model.params - routed) * other_w


def weight_bytes_read(model: Model, batch: Any, weights: str) -> Any:
    """Weight bytes one decode step of `batch` tokens reads: params_read_per_step in bytes, the
    touched experts in the experts' format and the always-read rest in its own."""
    expert_w, other_w = _formats(model, weights)
    read = params_read_per_step(model, batch)
    if expert_w == other_w:
        return read * expert_w
    routed = _routed_params(model, experts_touched(model.experts, model.experts_per_token, batch))
    return routed * expert_w + (read - routed) * other_w


def attention_weight_bytes(model: Model, weights: str) -> float:
    """N_attn in the format attention is stored in (the non-expert format of a mixed checkpoint)."""
    return attention_params(model) * _formats(model, weights)[1]


def _mla_field(model: Model, name: str) -> int:
    value = getattr(model, name, None)
    if value is None:
        raise InputError(f"{model.name}: models.toml gives no {name}, which MLA's attention needs")
    return value


def attention_params(model: Model) -> float:
    """N_attn: the parameters of every layer's attention projections, which data-parallel
    attention places whole on every rank."""
    if model.hidden_size is None:
        raise InputError(f"{model.name}: models.toml gives no hidden_size, which the attention weights need")
    if model.is_mla:
        return attention_params_mla(model.layers, model.hidden_size, model.query_heads,
                                      _mla_field(model, "q_lora_rank"), model.kv_lora_rank,
                                      _mla_field(model, "qk_nope_head_dim"), model.qk_rope_head_dim,
                                      _mla_field(model, "v_head_dim"))
    return attention_params_gqa(model.layers, model.hidden_size, model.query_heads, model.kv_heads,
                                  model.head_dim)


def _coefficients(model: Model) -> tuple[float, float]:
    if not model.is_mla:
        return attention_flop_coefficients(model.query_heads, model.head_dim)
    # Where the data gives no separate no-RoPE or value head width, they equal d_h (DeepSeek-V3: 128).
    nope = getattr(model, "qk_nope_head_dim", None) or model.head_dim
    value = getattr(model, "v_head_dim", None) or model.head_dim
    return attention_flop_coefficients(model.query_heads, model.head_dim, model.kv_lora_rank,
                                         model.qk_rope_head_dim, nope, value)


def decode_attention_flops_per_seq(model: Model, seq_len: Any) -> Any:
    """Attention FLOPs of one new token over seq_len cached tokens, summed over layers (windows
    included: a windowed layer attends to at most its window)."""
    per_pair, _ = _coefficients(model)
    return per_pair * attended_tokens(model.layers, seq_len, model.sliding_window_layers, model.sliding_window)


def prefill_attention_flops(model: Model, tokens: Any) -> Any:
    """Causal attention FLOPs of prefilling one prompt of `tokens` tokens, summed over layers."""
    _, per_pair = _coefficients(model)
    return attention_flops_prefill(per_pair, model.layers, tokens, model.sliding_window_layers,
                                     model.sliding_window)


def request_flops(model: Model, tokens: Any) -> Any:
    """Every FLOP of one request of `tokens` tokens, prompt and output together: 2 * N_a * n plus
    causal attention over the whole sequence (what makes a long request cost more than its token
    count says). Each token attends to those before it whether it was prefilled or decoded, so the
    request is priced as one causal pass; for MLA that uses the prefill coefficient throughout,
    where decode's absorbed form costs a little less per pair."""
    return prefill_flops(model.active, tokens, prefill_attention_flops(model, tokens))
