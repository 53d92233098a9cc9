// One replica of g GPUs serving one model, as the plain numbers a step's time needs
// (macros/engine/serving/replica.py), built from the catalog through the engine's geometry and formulas, so
// each formula stays in one place.

import { kvCopies, weightBytesHeld } from "../formulas/memory.js";
import { moeExpertParams } from "../formulas/moe.js";
import {
  active, attentionParams, decodeAttentionFlopsPerSeq, isMla, isMoe, kvBytesPerToken, prefillAttentionFlops,
} from "../model/geometry.js";
import { lookup, peakFlops } from "../lookup.js";
import { checkLayout } from "../model/placement.js";
import { InputError, shown } from "../rules.js";
import { adapterBytes } from "./adapters.js";
import { tileRows } from "./families.js";

const FOUR_BIT = 4;  // a 4-bit weight format on a MoE checkpoint quantises the routed experts only

// [routed experts' format, everyone else's] (weight_formats).
export function weightFormats(cat, m, weights) {
  const precision = lookup("dtype", weights, cat.precisions);
  const nonexpert = m.native_nonexpert_weights || m.native_weights;
  if (weights === m.native_weights) return [weights, nonexpert];
  if (isMoe(m) && precision.element_bits === FOUR_BIT) return [weights, nonexpert];
  return [weights, weights];
}

// How many times the useful FLOPs a decode step's attention costs, padded to the tensor-core tile.
export function decodeTilePadding(cat, m, gpu, gpus, layout) {
  const tile = tileRows(cat, gpu, "mma_rows");
  let rows = isMla(m) ? Math.floor(m.query_heads / (layout === "tp" ? gpus : 1)) : Math.floor(m.query_heads / m.kv_heads);
  rows = Math.max(rows, 1);
  return Math.ceil(rows / tile) * tile / rows;
}

const isWhole = (v) => typeof v === "number" && Number.isInteger(v);

// `model` is a catalog key or a model object (a custom geometry, as scenario() takes one); `adapters` an
// adapterMix (serving/adapters.js) or null.
export function buildReplica(cat, model, gpuKey, gpus, layout = "tp", ep = 1, weights = null, kv = "bf16", adapters = null) {
  const m = typeof model === "string" ? lookup("model", model, cat.models) : model;
  const g = lookup("GPU", gpuKey, cat.gpus);
  checkLayout(cat, layout);
  if (!isWhole(gpus) || gpus < 1) throw new InputError(`gpus must be a positive whole number, got ${shown(gpus)}`);
  if (!isWhole(ep) || ep < 1 || gpus % ep) {
    throw new InputError(`ep must be a positive whole number dividing gpus (${gpus}), got ${shown(ep)}`);
  }
  if (m.hidden_size === null || m.hidden_size === undefined) {
    throw new InputError(`${m.name}: models.toml gives no hidden_size, which the step's all-reduces need`);
  }
  const [expertFmt, otherFmt] = weightFormats(cat, m, weights === null ? m.native_weights : weights);
  const wExpert = lookup("dtype", expertFmt, cat.precisions).bytes;
  const wOther = lookup("dtype", otherFmt, cat.precisions).bytes;
  lookup("dtype", kv, cat.precisions);
  let perExpert, always, experts, k, moeLayers;
  if (isMoe(m)) {
    perExpert = moeExpertParams(m.params, active(m), m.experts, m.experts_per_token);
    always = active(m) - m.experts_per_token * perExpert;  // the DESIGN's a = N_a - k * e
    [experts, k, moeLayers] = [m.experts, m.experts_per_token, m.layers - (m.dense_layers || 0)];
  } else {
    [perExpert, always, experts, k, moeLayers] = [0.0, m.params, 0, 0, 0];
  }
  const dp = layout === "dp-attention";
  const attentionBytes = attentionParams(m) * wOther;
  const held = weightBytesHeld(always * wOther + perExpert * experts * wExpert, attentionBytes, gpus, layout);
  const lora = adapters ? loraFields(adapterBytes(cat, m, adapters.rank), adapters) : NO_ADAPTERS;
  const windowed = m.sliding_window !== null && m.sliding_window !== undefined && m.sliding_window !== 0;
  return {
    model: typeof model === "string" ? model : m.key, gpu: gpuKey, gpus, layout, ep, expert_weights: expertFmt, other_weights: otherFmt, kv,
    layers: m.layers, moe_layers: moeLayers, hidden: m.hidden_size, attention: isMla(m) ? "mla" : "gqa",
    experts, experts_per_token: k, expert_bytes: perExpert * wExpert,
    // Each rank reads its own copy of the attention weights under dp-attention.
    always_bytes: always * wOther + (gpus - 1) * attentionBytes * (dp ? 1 : 0),
    dense_flops_per_token: 2 * (isMoe(m) ? always : active(m)), attention_flops_per_token: 2 * attentionParams(m),
    moe_flops_per_token: 2 * k * perExpert,
    moe_tile_rows: tileRows(cat, gpuKey, "moe_rows"),
    kv_bytes_per_token_layer: kvBytesPerToken(cat, m, kv) / m.layers, kv_copies: kvCopies(layout, gpus, m.kv_heads, isMla(m)),
    window_layers: windowed ? m.sliding_window_layers : 0, window: windowed ? m.sliding_window : 0,
    decode_pair_flops: decodeAttentionFlopsPerSeq(m, 1) / m.layers,
    decode_tile_padding: decodeTilePadding(cat, m, gpuKey, gpus, layout),
    prefill_pair_flops: prefillAttentionFlops(m, 1) / m.layers,
    bandwidth_bytes_per_s: g.bandwidth_bytes_per_s, dense_peak_flops: peakFlops(cat, g, otherFmt),
    moe_peak_flops: peakFlops(cat, g, expertFmt), attention_peak_flops: peakFlops(cat, g, kv),
    link_bytes_per_s: g.interconnect_bytes_per_s, memory_bytes: g.memory_visible_bytes || g.memory_bytes,
    weight_bytes_held: held + lora.slice_bytes, adapter_bytes: lora.adapter_bytes, adapter_slots: lora.adapter_slots,
    adapter_catalogue: lora.adapter_catalogue, adapter_popularity: lora.adapter_popularity,
  };
}

// The replica's unmerged LoRA adapters (serving/adapters.js): one adapter's bytes, how many the slice holds, the
// catalogue and its popularity; with none, zeros, as the Python Replica's defaults.
const NO_ADAPTERS = { slice_bytes: 0.0, adapter_bytes: 0.0, adapter_slots: 0, adapter_catalogue: 0, adapter_popularity: 0.0 };
const loraFields = (oneAdapter, adapters) => ({
  slice_bytes: adapters.slice_bytes, adapter_bytes: oneAdapter, adapter_slots: Math.floor(adapters.slice_bytes / oneAdapter),
  adapter_catalogue: adapters.catalogue, adapter_popularity: adapters.popularity,
});

export const fullLayers = (r) => r.layers - r.window_layers;

// Attention data-parallel ranks: every GPU under dp-attention, one group under tensor parallelism (Replica.ranks).
export const ranksOf = (r) => 1 + (r.gpus - 1) * (r.layout === "dp-attention" ? 1 : 0);
