// One replica's capacity at a latency SLO (macros/engine/serving/capacity.py, whose docstring says why the
// search brackets and bisects): the largest open-loop arrival rate whose simulated percentile TTFT and TPOT
// (and gap between tokens, where one is set) meet their targets, each run at a fixed seed, lengthened while it
// meets and the replica is still filling (steady_state.js).

import { InputError } from "../rules.js";
import { run, runRequest } from "./run.js";
import { steadyRequests } from "./steady_state.js";

export const START_RATE_PER_S = 1.0;
export const MAX_DOUBLINGS = 40;
export const MAX_HALVINGS = 10;

// CapacityQuery's defaults: {model, gpu, gpus, prompt_tokens, output_tokens, ttft_target_s, tpot_target_s, ...}.
export function capacityQuery(o) {
  return { percentile: 95, itl_target_s: null, weights: null, kv: null, layout: "tp", engine: "vllm",
    prefix_hit_rate: 0.0, requests: 400, relative_tolerance: 0.02, seed: 0, launch: [], ...o };
}

function runAt(cat, q, rate, requests, runner) {
  return runner(cat, runRequest({ model: q.model, gpu: q.gpu, gpus: q.gpus, input_tokens: q.prompt_tokens,
    output_tokens: q.output_tokens, engine: q.engine, layout: q.layout, weights: q.weights, kv: q.kv, rate_per_s: rate,
    requests, seed: q.seed, prefix_hit_rate: q.prefix_hit_rate, ...Object.fromEntries(q.launch) }));
}

function meets(q, stats) {
  const key = `p${q.percentile}`, ttft = stats.ttft_s[key], tpot = stats.tpot_s[key], itl = stats.itl_s[key];
  return ttft !== null && tpot !== null && ttft <= q.ttft_target_s && tpot <= q.tpot_target_s
    && (q.itl_target_s === null || (itl !== null && itl <= q.itl_target_s));
}

// The run at `rate`, run again longer while it meets the targets and is still filling.
function measure(cat, q, rate, runner) {
  let stats = runAt(cat, q, rate, q.requests, runner);
  for (let longer; meets(q, stats) && (longer = steadyRequests(stats, rate)) !== null;) {
    stats = runAt(cat, q, rate, longer, runner);
  }
  return stats;
}

// Python's f"{x:.3g}" for the message.
const g3 = (x) => { const t = Number(x.toPrecision(3)); return Math.abs(t) >= 1e-4 && Math.abs(t) < 1e3 ? String(t) : x.toExponential(2).replace(/e([+-])(\d)$/, "e$10$2"); };
// Python's f"{x:g}".
const g6 = (x) => { const t = Number(x.toPrecision(6)); return Math.abs(t) >= 1e-4 && Math.abs(t) < 1e6 ? String(t) : x.toExponential(5).replace(/\.?0+e/, "e").replace(/e([+-])(\d)$/, "e$10$2"); };

// The largest rate (within the tolerance) at which one replica meets both targets: {rate_per_s,
// failed_rate_per_s, ttft_s, tpot_s, e2e_mean_s, kv_occupancy, runs}; InputError when it misses them nearly unloaded.
// `runner(cat, request)` gives a run's statistics (run, or a caller's cache of it).
export function capacityAtSlo(cat, query, runner = run) {
  const q = capacityQuery(query);
  let runs = 0;
  const seen = new Map();
  const ok = (rate) => {
    runs += 1;
    seen.set(rate, measure(cat, q, rate, runner));
    return meets(q, seen.get(rate));
  };
  let rate = START_RATE_PER_S, low, high;
  if (ok(rate)) {
    for (let i = 0; i < MAX_DOUBLINGS; i++) {
      if (!ok(rate * 2)) break;
      rate *= 2;
    }
  } else {
    let met = false;
    for (let i = 0; i < MAX_HALVINGS && !met; i++) {
      rate /= 2;
      met = ok(rate);
    }
    if (!met) {
      const stats = seen.get(rate), key = `p${q.percentile}`;
      const gap = q.itl_target_s === null ? "" : ` and gap between tokens of ${g6(q.itl_target_s)} s`;
      const measured = q.itl_target_s === null ? "" : `, gap ${g3(stats.itl_s[key])} s`;
      throw new InputError(`${q.gpus} x ${q.gpu} cannot meet a ${key} TTFT of ${g6(q.ttft_target_s)} s and TPOT of `
        + `${g6(q.tpot_target_s)} s${gap} even unloaded, at ${g3(rate)} requests/s (${key} TTFT `
        + `${g3(stats.ttft_s[key])} s, TPOT ${g3(stats.tpot_s[key])} s${measured})`);
    }
  }
  [low, high] = [rate, rate * 2];
  while (high / low - 1 > q.relative_tolerance) {
    const mid = (low * high) ** 0.5;  // geometric: the bracket spans a factor, not an amount
    if (ok(mid)) low = mid; else high = mid;
  }
  const at = seen.get(low), key = `p${q.percentile}`;
  return { rate_per_s: low, failed_rate_per_s: high, ttft_s: at.ttft_s[key], tpot_s: at.tpot_s[key],
    e2e_mean_s: at.e2e_s.mean, kv_occupancy: at.kv_occupancy, runs };
}
