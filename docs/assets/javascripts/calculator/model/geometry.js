// Model-aware wrappers over the formulas (macros/engine/model/geometry.py): what one model's geometry gives per
// token, per sequence and per step (KV bytes, parameters read, attention parameters and FLOPs), whatever
// the hardware. `m` is a catalog entry (catalog.json's models) or a custom model with the same fields.

import * as memory from "../formulas/memory.js";
import * as moe from "../formulas/moe.js";
import * as roofline from "../formulas/roofline.js";
import { dtypeBytes } from "../lookup.js";
import { InputError } from "../rules.js";

const given = (v) => v !== null && v !== undefined;
export const isMla = (m) => given(m.kv_lora_rank);
export const isMoe = (m) => given(m.experts);
export const active = (m) => (given(m.active_params) ? m.active_params : m.params);

// KV bytes one token adds across all layers (before any sliding window applies).
export function kvBytesPerToken(cat, m, kv) {
  const k = dtypeBytes(cat, kv);
  if (isMla(m)) return memory.kvBytesPerTokenMla(m.layers, m.kv_lora_rank, m.qk_rope_head_dim, k);
  return memory.kvBytesPerTokenGqa(m.layers, m.kv_heads, m.head_dim, k);
}

export function modelKvBytesPerSeq(cat, m, seqLen, kv) {
  return memory.kvBytesPerSeq(kvBytesPerToken(cat, m, kv), m.layers, seqLen, m.sliding_window_layers || 0,
    m.sliding_window);
}

// Parameters one decode step reads: all of them for a dense model, u(b) experts for MoE.
export function paramsReadPerStep(m, batch) {
  if (!isMoe(m)) return m.params;
  return moe.moeParamsRead(m.params, active(m), m.experts, m.experts_per_token, batch);
}

// [bytes per routed-expert weight, bytes per other weight]: they differ only for a mixed-format checkpoint
// in its native format (GPT-OSS: MXFP4 experts, BF16 elsewhere).
function formats(cat, m, weights) {
  const w = dtypeBytes(cat, weights);
  if (isMoe(m) && weights === m.native_weights && m.native_nonexpert_weights) {
    return [w, dtypeBytes(cat, m.native_nonexpert_weights)];
  }
  return [w, w];
}

// Parameters in `touched` routed experts, e = (N - N_a) / (E - k) each.
const routedParams = (m, touched) => touched * moe.moeExpertParams(m.params, active(m), m.experts, m.experts_per_token);

// Every weight once, N * w; a mixed-format checkpoint's routed experts in their format, the rest in theirs.
export function modelWeightBytes(cat, m, weights) {
  const [expertW, otherW] = formats(cat, m, weights);
  if (expertW === otherW) return memory.weightBytes(m.params, expertW);
  const routed = routedParams(m, m.experts);
  return routed * expertW + (m.params - routed) * otherW;
}

// Weight bytes one decode step of `batch` tokens reads.
export function weightBytesRead(cat, m, batch, weights) {
  const [expertW, otherW] = formats(cat, m, weights);
  const read = paramsReadPerStep(m, batch);
  if (expertW === otherW) return read * expertW;
  const routed = routedParams(m, moe.expertsTouched(m.experts, m.experts_per_token, batch));
  return routed * expertW + (read - routed) * otherW;
}

// N_attn in the format attention is stored in (the non-expert format of a mixed checkpoint).
export function attentionWeightBytes(cat, m, weights) { return attentionParams(m) * formats(cat, m, weights)[1]; }

function mlaField(m, name) {
  if (!given(m[name])) throw new InputError(`${m.name}: models.toml gives no ${name}, which MLA's attention needs`);
  return m[name];
}

// N_attn: every layer's attention projections, which data-parallel attention places whole on every rank.
export function attentionParams(m) {
  if (!given(m.hidden_size)) {
    throw new InputError(`${m.name}: models.toml gives no hidden_size, which the attention weights need`);
  }
  if (isMla(m)) {
    return memory.attentionParamsMla(m.layers, m.hidden_size, m.query_heads, mlaField(m, "q_lora_rank"), m.kv_lora_rank,
      mlaField(m, "qk_nope_head_dim"), m.qk_rope_head_dim, mlaField(m, "v_head_dim"));
  }
  return memory.attentionParamsGqa(m.layers, m.hidden_size, m.query_heads, m.kv_heads, m.head_dim);
}

function coefficients(m) {
  if (!isMla(m)) return roofline.attentionFlopCoefficients(m.query_heads, m.head_dim);
  // Where the data gives no separate no-RoPE or value head width, they equal d_h (DeepSeek-V3: 128).
  return roofline.attentionFlopCoefficients(m.query_heads, m.head_dim, m.kv_lora_rank, m.qk_rope_head_dim,
    m.qk_nope_head_dim || m.head_dim, m.v_head_dim || m.head_dim);
}

// Attention FLOPs of one new token over seqLen cached tokens, summed over layers (windows included).
export function decodeAttentionFlopsPerSeq(m, seqLen) {
  return coefficients(m)[0] * memory.attendedTokens(m.layers, seqLen, m.sliding_window_layers || 0, m.sliding_window);
}

// Causal attention FLOPs of prefilling one prompt of `tokens` tokens, summed over layers.
export function prefillAttentionFlops(m, tokens) {
  return roofline.attentionFlopsPrefill(coefficients(m)[1], m.layers, tokens, m.sliding_window_layers || 0,
    m.sliding_window);
}
