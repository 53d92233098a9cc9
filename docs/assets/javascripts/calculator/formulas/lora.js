// LoRA adapters served unmerged (macros/engine/formulas/lora.py): an adapter's size, and how many distinct
// adapters a batch drawn from a popularity-skewed catalogue holds. Pure functions in SI base units; the
// functions the serving model's step reads (the rest of the Python module is the LoRA design page's).

// The projections of a dense transformer block a LoRA adapter may adapt (PEFT's names without "_proj").
export const LORA_TARGETS = ["q", "k", "v", "o", "gate", "up", "down"];

// [d_in, d_out] of each adaptable projection of one dense GQA block, by LORA_TARGETS name.
export function loraMatrixWidths(hidden, queryHeads, kvHeads, headDim, ffn) {
  const q = queryHeads * headDim, kv = kvHeads * headDim;
  return { q: [hidden, q], k: [hidden, kv], v: [hidden, kv], o: [q, hidden], gate: [hidden, ffn], up: [hidden, ffn],
    down: [ffn, hidden] };
}

// r * sum (d_in + d_out) * L: one adapter's parameters, A (r x d_in) plus B (d_out x r) per adapted matrix.
export function loraAdapterParams(rank, widths, layers) {
  let sum = 0;
  for (const [dIn, dOut] of widths) sum += dIn + dOut;
  return rank * sum * layers;
}

// p_i = i^-s / sum_j j^-s for i = 1..n: the i-th most popular item's share under a Zipf law of exponent s.
export function zipfShares(items, exponent) {
  const weights = [];
  for (let i = 1; i <= items; i++) weights.push(i ** -exponent);
  let total = 0;
  for (const w of weights) total += w;
  return weights.map((w) => w / total);
}

// sum_i (1 - (1 - p_i)^b): distinct items, on average, among b independent draws with shares p_i.
export function expectedDistinct(shares, draws) {
  let sum = 0;
  for (const p of shares) sum += 1 - (1 - p) ** draws;
  return sum;
}
