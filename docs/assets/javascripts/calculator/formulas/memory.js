// The memory budget (macros/engine/formulas/memory.py): weights, the KV cache, what is left for it and the
// batch it holds. Pure functions in SI base units, the same names as the Python's in camelCase.

import { floorDiv } from "./_array.js";

export const LAYOUTS = ["tp", "dp-attention"];

// N * w.
export const weightBytes = (params, bytesPerWeight) => params * bytesPerWeight;

// 2 * L * H_kv * d_h * k: one K and one V vector per KV head per layer (MHA, GQA, MQA).
export const kvBytesPerTokenGqa = (layers, kvHeads, headDim, bytesPerKv) => 2 * layers * kvHeads * headDim * bytesPerKv;

// L * (kv_lora_rank + qk_rope_head_dim) * k: MLA caches one latent per layer, not K and V.
export const kvBytesPerTokenMla = (layers, kvLoraRank, qkRopeHeadDim, bytesPerKv) =>
  layers * (kvLoraRank + qkRopeHeadDim) * bytesPerKv;

// Per-layer bytes * ((L - L_w) * s + L_w * min(s, window)).
export const kvBytesPerSeq = (kvBytesPerToken, layers, seqLen, windowLayers = 0, window = null) =>
  kvBytesPerToken / layers * attendedTokens(layers, seqLen, windowLayers, window);

// g * M - N * w - g * R: what is left for the KV cache across the group.
export const kvBudgetBytes = (gpus, memoryBytes, weightBytesTotal, reserveBytes) =>
  gpus * memoryBytes - weightBytesTotal - gpus * reserveBytes;

// floor(budget / KV per sequence), never below zero.
export const maxBatch = (kvBudget, kvPerSeq) => Math.max(floorDiv(kvBudget, kvPerSeq), 0);

// c: copies of one sequence's KV cache across the replica. Under tensor parallelism a rank holds whole KV
// heads (past H_kv ranks they are replicated); an MLA latent is on every rank; dp-attention keeps one.
export function kvCopies(layout, gpus, kvHeads, isMla) {
  if (layout === "dp-attention") return 1;
  if (isMla) return gpus;
  return Math.max(1, gpus / kvHeads);
}

// N * w under tensor parallelism; under dp-attention every rank holds the attention weights whole:
// N * w + (g - 1) * N_attn * w.
export function weightBytesHeld(weightBytesTotal, attentionWeightBytes, gpus, layout) {
  if (layout === "dp-attention") return weightBytesTotal + (gpus - 1) * attentionWeightBytes;
  return weightBytesTotal;
}

// g * floor(per-rank budget / KV per sequence): dp-attention fills each rank's budget on its own.
export const maxBatchPerRank = (gpus, perRankBudget, kvPerSeq) => gpus * Math.max(floorDiv(perRankBudget, kvPerSeq), 0);

// L * (2 * d * H_q * d_h + 2 * d * H_kv * d_h): Q and output projections at full width, K and V at the KV heads'.
export const attentionParamsGqa = (layers, hidden, queryHeads, kvHeads, headDim) =>
  layers * (2 * hidden * queryHeads * headDim + 2 * hidden * kvHeads * headDim);

// MLA's projections per layer, summed over L layers (memory.py's attention_params_mla says which is which).
export function attentionParamsMla(layers, hidden, queryHeads, qLoraRank, kvLoraRank, qkNopeHeadDim, qkRopeHeadDim,
  vHeadDim) {
  const perLayer = (hidden * qLoraRank + qLoraRank * queryHeads * (qkNopeHeadDim + qkRopeHeadDim)
    + hidden * (kvLoraRank + qkRopeHeadDim)
    + kvLoraRank * queryHeads * (qkNopeHeadDim + vHeadDim)
    + queryHeads * vHeadDim * hidden);
  return layers * perLayer;
}

// Sum over layers of the cached tokens a new token attends to: (L - L_w) * s + L_w * min(s, w).
export function attendedTokens(layers, seqLen, windowLayers = 0, window = null) {
  if (!windowLayers) return layers * seqLen;
  return (layers - windowLayers) * seqLen + windowLayers * Math.min(seqLen, window);
}
