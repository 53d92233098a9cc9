// The KV cache as engines page it (macros/engine/serving/kv_blocks.py): a pool of fixed-size blocks.

import { floorDiv } from "../formulas/_array.js";

// Blocks the replica's KV pool holds: (g * M * fraction - weights held) / bytes per block.
export function poolBlocks(r, memoryFraction, blockTokens) {
  const budget = r.gpus * r.memory_bytes * memoryFraction - r.weight_bytes_held;
  const perBlock = blockTokens * r.layers * r.kv_bytes_per_token_layer * r.kv_copies;
  return Math.max(0, floorDiv(budget, perBlock));
}

export class KvPool {
  constructor(blocks, blockTokens) { this.blocks = blocks; this.block_tokens = blockTokens; this.used = 0; }
  blocksFor(tokens) { return Math.ceil(tokens / this.block_tokens); }
  get free() { return this.blocks - this.used; }
  take(n) {
    if (n > this.free) return false;
    this.used += n;
    return true;
  }
  giveBack(n) { this.used -= n; }
  get occupancy() { return this.blocks ? this.used / this.blocks : 0.0; }
}
