// One replica across arrival rates (macros/engine/serving/sweep.py, whose docstring says why each choice):
// its capacity from a closed loop, a Poisson stream at fractions of it, and the knee where p99 TTFT first
// passes KNEE_FACTOR times the lightest rate's.

import { runRequest, simulateRun } from "./run.js";

export const CAPACITY_CONCURRENCY = 64;
export const CAPACITY_REQUESTS = 192;
export const SWEEP_FRACTIONS = [0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25];
export const SWEEP_REQUESTS = 200;
export const KNEE_FACTOR = 2.0;

// Requests per second the replica serves with CAPACITY_CONCURRENCY requests in flight.
export function capacityPerS(cat, q) {
  const closed = runRequest({ ...q, concurrency: CAPACITY_CONCURRENCY, rate_per_s: null, burstiness: null, trace: null,
    requests: CAPACITY_REQUESTS });
  return simulateRun(cat, closed).summary.requests_per_s;
}

// One rate of the sweep; utilisation is rho, served over capacity.
export function point(cat, q, ratePerS, capacity) {
  const sim = simulateRun(cat, runRequest({ ...q, concurrency: null, rate_per_s: ratePerS, burstiness: null, trace: null,
    requests: SWEEP_REQUESTS }));
  const s = sim.summary;
  return { rate_per_s: ratePerS, requests_per_s: s.requests_per_s, ttft_p50_s: s.ttft_s.p50, ttft_p99_s: s.ttft_s.p99,
    tpot_p50_s: s.tpot_s.p50, tpot_p99_s: s.tpot_s.p99, output_tokens_per_s_per_gpu: s.output_tokens_per_s / q.gpus,
    utilisation: s.requests_per_s / capacity, mean_batch: s.mean_batch };
}

export const sweepRates = (capacity) => SWEEP_FRACTIONS.map((fraction) => fraction * capacity);

// [the capacity, every rate of the sweep, lightest first].
export function sweep(cat, q) {
  const capacity = capacityPerS(cat, q);
  return [capacity, sweepRates(capacity).map((rate) => point(cat, q, rate, capacity))];
}

// The last rate before the first whose p99 TTFT passes KNEE_FACTOR times the lightest rate's; null when
// the second already does.
export function knee(points) {
  const limit = KNEE_FACTOR * points[0].ttft_p99_s;
  let last = null;
  for (const p of points.slice(1)) {
    if (!(p.ttft_p99_s <= limit)) break;
    last = p;
  }
  return last;
}
