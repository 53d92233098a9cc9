// The roofline (macros/engine/formulas/roofline.py): step time as the larger of its memory and compute terms,
// FLOPs per step, throughput and cost. Pure functions in SI base units.

// P / B in FLOP per byte: the intensity at which compute and memory time are equal.
export const machineBalance = (peakFlops, bandwidthBytesPerS) => peakFlops / bandwidthBytesPerS;

// bytes / (g * B): each GPU streams its share in parallel.
export const memoryTimeS = (bytesMoved, gpus, bandwidthBytesPerS) => bytesMoved / (gpus * bandwidthBytesPerS);

// FLOPs / (g * P) at dense peak.
export const computeTimeS = (flops, gpus, peakFlops) => flops / (gpus * peakFlops);

// max(bytes / (g * B), FLOPs / (g * P)): tensor parallelism splits both over g GPUs.
export const stepFloorS = (bytesMoved, flops, gpus, bandwidthBytesPerS, peakFlops) =>
  Math.max(memoryTimeS(bytesMoved, gpus, bandwidthBytesPerS), computeTimeS(flops, gpus, peakFlops));

// Arithmetic intensity, FLOP per byte.
export const intensity = (flops, bytesMoved) => flops / bytesMoved;

// Memory-bound when the intensity is below the machine balance.
export const isMemoryBound = (flops, bytesMoved, balance) => intensity(flops, bytesMoved) < balance;

// Weights read once per step, plus every sequence's KV cache (all at full context: the worst case).
export const decodeStepBytes = (weightBytesRead, batch, kvPerSeq) => weightBytesRead + batch * kvPerSeq;

// b * (2 * N_a + A): one multiply-add per active parameter per sequence, plus its attention.
export const decodeStepFlops = (activeParams, batch, attentionFlopsPerSeq = 0) =>
  batch * (2 * activeParams + attentionFlopsPerSeq);

// 2 * N_a * s + attention: the FLOPs of prefilling one s-token prompt.
export const prefillFlops = (activeParams, seqLen, attentionFlops = 0) => 2 * activeParams * seqLen + attentionFlops;

// max(prefill FLOPs / (g * P), N * w / (g * B)) for one prompt of s tokens.
export const prefillTimeS = (activeParams, seqLen, weightBytesTotal, gpus, peakFlops, bandwidthBytesPerS,
  attentionFlops = 0) =>
  stepFloorS(weightBytesTotal, prefillFlops(activeParams, seqLen, attentionFlops), gpus, bandwidthBytesPerS, peakFlops);

// Aggregate decode throughput: b tokens per step.
export const tokensPerS = (batch, stepS) => batch / stepS;

// price * g / 3600 / (aggregate tokens/s * efficiency) * 1e6, in USD.
export const costPerMillionTokens = (pricePerGpuHour, gpus, tokensPerSAggregate, efficiency) =>
  pricePerGpuHour * gpus / 3600 / (tokensPerSAggregate * efficiency) * 1e6;

// [decode, prefill] FLOPs per layer per (query, key) pair. MHA/GQA/MQA: 4 * H_q * d_h in both; MLA decodes
// absorbed, 2 * H_q * (2r + d_rope), and prefills with decompressed heads, 2 * H_q * (d_nope + d_rope + d_v).
export function attentionFlopCoefficients(queryHeads, headDim, kvLoraRank = null, qkRopeHeadDim = null,
  qkNopeHeadDim = null, vHeadDim = null) {
  if (kvLoraRank === null) {
    const gqa = 4 * queryHeads * headDim;
    return [gqa, gqa];
  }
  return [2 * queryHeads * (2 * kvLoraRank + qkRopeHeadDim), 2 * queryHeads * (qkNopeHeadDim + qkRopeHeadDim + vHeadDim)];
}

// Sum over i = 1..n of min(i, w): the (query, key) pairs of a causal pass over n tokens.
export function causalPairs(tokens, window = null) {
  const full = tokens * (tokens + 1) / 2;
  if (window === null || window === undefined) return full;
  const w = Math.min(tokens, window);
  return w * (w + 1) / 2 + (tokens - w) * w;
}

// coefficient * sum over layers of the causal pairs: the attention FLOPs of prefilling n tokens.
export function attentionFlopsPrefill(coefficient, layers, tokens, windowLayers = 0, window = null) {
  const full = (layers - windowLayers) * causalPairs(tokens);
  if (!windowLayers) return coefficient * full;
  return coefficient * (full + windowLayers * causalPairs(tokens, window));
}

// floor / eta: a step or a prefill as a real engine runs it, at realised efficiency eta.
export const plannedTimeS = (floorS, efficiency) => floorS / efficiency;

// Tensor parallelism's all-reduces in one forward pass: two per layer (after attention, after the MLP).
export const tpAllreducesPerStep = (layers) => 2 * layers;

// What each GPU sends, one direction, in one ring all-reduce of the tokens' activations: 2 (g - 1) / g of t * d * bytes.
export const ringAllreduceBytes = (gpus, tokens, hidden, bytesPerActivation = 2) =>
  2 * (gpus - 1) / gpus * tokens * hidden * bytesPerActivation;

// Two ring all-reduces per layer, each plus a fixed latency, over one link direction. Zero on one GPU.
export function tpAllreduceS(layers, gpus, tokens, hidden, linkBytesPerS, latencyS, bytesPerActivation = 2) {
  const ring = ringAllreduceBytes(gpus, tokens, hidden, bytesPerActivation) / linkBytesPerS;
  return tpAllreducesPerStep(layers) * (ring + latencyS) * (gpus > 1 ? 1 : 0);
}
