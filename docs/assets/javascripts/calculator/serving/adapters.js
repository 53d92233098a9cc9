// Unmerged LoRA adapters in a replica's step (macros/engine/serving/adapters.py, whose docstring says what is
// modelled and left out): each step reads every distinct adapter its sequences use, at most the slice's.

import { LORA_TARGETS, expectedDistinct, loraAdapterParams, loraMatrixWidths, zipfShares } from "../formulas/lora.js";
import { weightBytes } from "../formulas/memory.js";
import { dtypeBytes } from "../lookup.js";
import { isMla, isMoe } from "../model/geometry.js";
import { InputError } from "../rules.js";

export const ADAPTER_DTYPE = "bf16";  // as trained: quantising the base does not quantise its adapters

// {catalogue, popularity, rank, slice_bytes}, checked (AdapterMix).
export function adapterMix(catalogue, popularity, rank, sliceBytes) {
  if (catalogue < 1 || rank < 1 || popularity < 0 || !(sliceBytes > 0)) {
    throw new InputError(`adapters: a catalogue and rank of at least 1, a popularity exponent of at least 0 and a `
      + `positive slice, got ${catalogue}, ${rank}, ${popularity} and ${sliceBytes} bytes`);
  }
  return { catalogue, popularity, rank, slice_bytes: sliceBytes };
}

// One adapter's bytes: rank `rank` on every linear projection of model `m`, in ADAPTER_DTYPE (model/adapters.py).
export function adapterBytes(cat, m, rank) {
  if (isMoe(m) || isMla(m) || !(m.hidden_size && m.ffn_size)) {
    throw new InputError(`LoRA adapter sizes: ${m.name} is not a dense GQA model with a hidden and feed-forward `
      + "width in models.toml");
  }
  const widths = loraMatrixWidths(m.hidden_size, m.query_heads, m.kv_heads, m.head_dim, m.ffn_size);
  const params = loraAdapterParams(rank, LORA_TARGETS.map((t) => widths[t]), m.layers);
  return weightBytes(params, dtypeBytes(cat, ADAPTER_DTYPE));
}

const sharesMemo = new Map(), distinctMemo = new Map();

// min(sum_i 1 - (1 - p_i)^n, slots): the distinct adapters a step of n sequences reads, on average.
export function distinctAdapters(catalogue, popularity, slots, sequences) {
  const name = `${catalogue},${popularity},${slots},${sequences}`;
  if (distinctMemo.has(name)) return distinctMemo.get(name);
  const kind = `${catalogue},${popularity}`;
  if (!sharesMemo.has(kind)) sharesMemo.set(kind, zipfShares(catalogue, popularity));
  const u = Math.min(expectedDistinct(sharesMemo.get(kind), sequences), slots);
  distinctMemo.set(name, u);
  return u;
}

// The distinct adapters a step of `sequences` sequences on replica `r` reads (0 without adapters).
export const adaptersRead = (r, sequences) => (r.adapter_slots
  ? distinctAdapters(r.adapter_catalogue, r.adapter_popularity, r.adapter_slots, Math.trunc(sequences)) : 0.0);
