// Mixture of experts (macros/engine/formulas/moe.py): how many parameters a decode step of b tokens reads,
// and expert parallelism's exchange. Pure functions in SI base units.

// u(b) = E * (1 - (1 - k_e / E) ** b): distinct experts that b tokens route to, on average.
export const expertsTouched = (experts, expertsPerToken, batch) => experts * (1 - (1 - expertsPerToken / experts) ** batch);

// e = (N - N_a) / (E - k_e): parameters in one routed expert (the N - N_a a token skips are its E - k_e unchosen).
export const moeExpertParams = (params, activeParams, experts, expertsPerToken) =>
  (params - activeParams) / (experts - expertsPerToken);

// a + u(b) * e: the always-read a = N_a - k_e * e plus the touched experts. N_a at b = 1; tends to N.
export function moeParamsRead(params, activeParams, experts, expertsPerToken, batch) {
  const perExpert = moeExpertParams(params, activeParams, experts, expertsPerToken);
  const alwaysRead = activeParams - expertsPerToken * perExpert;
  return alwaysRead + expertsTouched(experts, expertsPerToken, batch) * perExpert;
}

// One expert-parallel exchange (a dispatch or a combine) in one MoE layer: each rank sends its T / g tokens'
// activations to their k experts, (g - 1) / g of them on other ranks, over one link direction; plus a latency.
// Zero on one GPU.
export function epAlltoallS(tokens, expertsPerToken, hidden, gpus, linkBytesPerS, latencyS, bytesPerActivation = 2) {
  const sent = tokens / gpus * expertsPerToken * hidden * bytesPerActivation * (gpus - 1) / gpus;
  return (sent / linkBytesPerS + latencyS) * (gpus > 1 ? 1 : 0);
}
