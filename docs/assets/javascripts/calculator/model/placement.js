// Where a replica of g GPUs puts the weights and the KV cache, and so how many sequences it holds
// (macros/engine/model/placement.py): `tp` (tensor parallelism over all g GPUs) or `dp-attention` (attention
// data-parallel, each rank holding the attention weights and its own sequences' KV; the rest split).

import * as memory from "../formulas/memory.js";
import { attentionWeightBytes, isMla, modelKvBytesPerSeq, modelWeightBytes } from "./geometry.js";
import { InputError, shown } from "../rules.js";

export function checkLayout(cat, layout) {
  if (!cat.limits.layouts.includes(layout)) {
    throw new InputError(`unknown layout ${shown(layout)}. Valid: ${cat.limits.layouts.join(", ")}`);
  }
  return layout;
}

// The replica's weights, KV budget and max batch under `layout`.
export function place(cat, m, g, gpus, seqLen, weights, kv, reserve, layout) {
  const total = modelWeightBytes(cat, m, weights);
  const kvSeq = modelKvBytesPerSeq(cat, m, seqLen, kv);
  if (checkLayout(cat, layout) === "dp-attention") {
    const attn = attentionWeightBytes(cat, m, weights);
    const held = memory.weightBytesHeld(total, attn, gpus, layout);
    const budget = memory.kvBudgetBytes(gpus, g.memory_bytes, held, reserve);
    return { layout, kvCopies: 1, held, attn, budget, maxBatch: memory.maxBatchPerRank(gpus, budget / gpus, kvSeq) };
  }
  const copies = memory.kvCopies(layout, gpus, m.kv_heads, isMla(m));
  const budget = memory.kvBudgetBytes(gpus, g.memory_bytes, total, reserve);
  return { layout, kvCopies: copies, held: total, attn: null, budget, maxBatch: memory.maxBatch(budget, copies * kvSeq) };
}

// The smallest of 1, 2, 4, 8, ... whose replica holds the weights, the reserve and `sequences` sequences.
export function chooseGpus(cat, m, g, seqLen, sequences, weights, kv, reserve, layout) {
  let n = 1;
  while (place(cat, m, g, n, seqLen, weights, kv, reserve, layout).maxBatch < sequences) {
    n *= 2;
    if (n > cat.limits.max_auto_gpus) {
      throw new InputError(`no replica of up to ${cat.limits.max_auto_gpus} ${g.name} holds ${sequences} sequence(s) `
        + `of ${m.name} under ${layout}: is the reserve larger than the GPU's memory?`);
    }
  }
  return n;
}
