// What each scaling signal reads, as the replicas it asks for (macros/engine/autoscale/signals.py, whose
// docstring says what each one sees and misses). A mix: {capacity_per_s, tokens_per_request, kv_occupancy, e2e_s}.

export const SIGNALS = ["kv", "queue", "tokens", "requests", "utilisation"];

// 1 - exp(-rate x E2E): the chance a replica has at least one request in flight.
export const busyProbability = (ratePerReplicaS, e2eS) => 1 - Math.exp(-ratePerReplicaS * e2eS);

export function demandReplicas(signal, offeredPerS, replicas, actual, planned) {
  const trueLoad = offeredPerS / actual.capacity_per_s;  // in replicas at the SLO
  if (signal === "queue") return trueLoad;
  if (signal === "tokens") {
    return offeredPerS * actual.tokens_per_request / (planned.capacity_per_s * planned.tokens_per_request);
  }
  if (signal === "requests") return offeredPerS / planned.capacity_per_s;
  if (replicas === 0) return 0.0;  // the replicas' own readings need a replica to read
  if (signal === "kv") {
    const occupancy = Math.min(1.0, trueLoad / replicas * actual.kv_occupancy);
    return replicas * occupancy / planned.kv_occupancy;
  }
  if (signal === "utilisation") {
    const reading = busyProbability(offeredPerS / replicas, actual.e2e_s);
    return replicas * reading / busyProbability(planned.capacity_per_s, planned.e2e_s);
  }
  throw new Error(`unknown signal '${signal}' (known: ${SIGNALS.join(", ")})`);
}
