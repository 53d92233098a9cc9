// Capacity (macros/engine/formulas/capacity.py): the replicas a peak load needs (ARCHITECTURE.md, the formula contract). Pure functions;
// loads in replica-seconds per second.

// Output tokens/s at peak over one replica's decode capacity.
export const decodeReplicas = (peakOutputTokensPerS, decodeTokensPerSPerReplica) =>
  peakOutputTokensPerS / decodeTokensPerSPerReplica;

// Requests/s at peak times the planned prefill each request holds a replica for.
export const prefillReplicas = (peakRequestsPerS, prefillS) => peakRequestsPerS * prefillS;

// ceil(load * (1 + headroom)), the product rounded to 9 decimals first (Python's round(x, 9)), so
// 10 * 1.2 = 12.000000000000002 gives 12, not 13.
export const replicasForLoad = (load, headroom) => Math.ceil(Number((load * (1 + headroom)).toFixed(9)));

// gpus * price * 24 h, in USD: a fleet held all day.
export const costPerDay = (gpus, pricePerGpuHour) => gpus * pricePerGpuHour * 24;

// gpus * price / 3,600 s / the peak's tokens a second * 1e6, in USD: a million tokens at the peak's rate.
export const costPerMillionTokensAtPeak = (gpus, pricePerGpuHour, peakTokensPerS) =>
  gpus * pricePerGpuHour / 3600 / peakTokensPerS * 1e6;
