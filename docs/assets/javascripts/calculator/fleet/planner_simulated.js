// The planner's simulated answer (macros/engine/fleet/planner_simulated.py, whose docstring explains the search):
// the smallest replica count on the napkin's shape whose simulated percentiles meet every percentile target
// at peak, each replica an open loop of peak / n requests a second, and live concurrency by Little's law.

import { InputError } from "../rules.js";
import { roundHalfEven } from "../serving/lengths.js";
import { run, runRequest } from "../serving/run.js";
import { MAX_REQUESTS, steadyRequests } from "../serving/steady_state.js";

export const SEED = 0;
export const CONFIRM_SEEDS = [1, 2, 3, 4];  // the answer's count must meet on these seeds' draws too
export const SEARCH_LIMIT = 64;
export const ALONE = 0;  // in place of a replica count: one replica serving one request at a time
export const RUN_SPAN = 20;
export const PERCENTILES = [50, 90, 95, 99];
export const TARGET_METRICS = ["ttft", "tpot"];  // means; percentiles also bound ITL (workload_file.py)
export const PERCENTILE_METRICS = [...TARGET_METRICS, "itl"];
// Why there is no simulated count (plan --json's simulated_infeasible_because):
export const NO_SHAPE = "no-replica-shape";
export const REFUSED = "engine-refused";
export const ONE_AT_A_TIME = "one-request-at-a-time";
export const LIMIT = "search-limit";
export const NOT_FEWER = "not-fewer";

// Every target a completed workload states (workload_file.Workload.targets), TTFT's first, its mean (when stated)
// before its percentiles: {metric, percentile (null: the mean), seconds, key, stat}.
export function targets(w) {
  const out = [];
  for (const metric of PERCENTILE_METRICS) {
    if (TARGET_METRICS.includes(metric) && (w.stated_means || TARGET_METRICS).includes(metric)) {
      out.push({ metric, percentile: null, seconds: w[`${metric}_s`], key: `${metric}_s`, stat: "mean" });
    }
    for (const percentile of PERCENTILES) {
      const key = `${metric}_p${percentile}_s`;
      if (w[key] !== undefined && w[key] !== null) out.push({ metric, percentile, seconds: w[key], key, stat: `p${percentile}` });
    }
  }
  return out;
}

// The run's figure for a target (null: no request had a second token), and how far it is from it as
// log(figure / target): above 0 it misses.
export const value = (stats, t) => stats[`${t.metric}_s`][t.stat];
export const slack = (stats, t) => { const v = value(stats, t); return v === null ? -Infinity : Math.log(v / t.seconds); };

function check(replicas, rate, stats, targets, seed = SEED) {
  const misses = targets.filter((t) => slack(stats, t) > 0);
  let closest = targets[0];
  for (const t of targets) if (slack(stats, t) > slack(stats, closest)) closest = t;
  return { replicas, rate_per_s: rate, stats, targets, seed, misses, meets: !misses.length, worst: slack(stats, closest),
    closest };
}

// requests_for: null (1,000 requests) unless 1,000 arrivals would span less than RUN_SPAN x the longest TTFT target.
export function requestsFor(cat, rate, targets) {
  const longest = Math.max(0.0, ...targets.filter((t) => t.metric === "ttft").map((t) => t.seconds));
  const needed = Math.ceil(rate * RUN_SPAN * longest);
  return needed <= cat.serving.run.open_loop_requests ? null : Math.min(needed, MAX_REQUESTS);
}

// The run for one replica of `gpus` GPUs at `rate` (null: one request at a time), as `gpu_math.py simulate`
// builds it from its flags (`requests`: a run lengthened to its steady state).
export function runRequestFor(cat, w, gpus, rate, targets, requests = null, seed = SEED) {
  return runRequest({ model: w.model, gpu: w.gpu, gpus, input_tokens: w.prompt_tokens, output_tokens: w.output_tokens,
    engine: w.engine, layout: w.layout, weights: w.weights, kv: w.kv, concurrency: rate === null ? 1 : null,
    rate_per_s: rate, burstiness: rate === null ? null : w.burstiness,
    requests: rate === null ? null : requests || requestsFor(cat, rate, targets), seed,
    prefix_hit_rate: w.prefix_hit_rate,
    token_budget: w.token_budget ?? null, ...(w.adapters ? adapterFields(w) : {}) });
}

// The workload's unmerged adapters as a run's fields (none when it has none: a merged variant's runs are plain).
function adapterFields(w) {
  return { adapters: w.adapters, adapter_popularity: w.adapter_popularity, adapter_rank: w.adapter_rank,
    adapter_slice_bytes: w.adapter_slice_bytes };
}

// The runs one search makes, each simulated once by `runner` (serving/run.js's run, or a caller's cache of
// it: the Python reads its runs through serving/cache.py).
class Search {
  constructor(cat, w, gpus, targets, runner) {
    Object.assign(this, { cat, w, gpus, targets, runner, checks: new Map(), held: new Map(), runs: 0 });
  }

  checkAt(n, seed) {
    const rate = n === ALONE ? null : this.w.peak_requests_per_s / n;
    const runAt = (requests) => {
      this.runs += 1;
      return this.runner(this.cat, runRequestFor(this.cat, this.w, this.gpus, rate, this.targets, requests, seed));
    };
    let c = check(n, rate, runAt(null), this.targets, seed);
    // A run that meets while still filling is run again, longer (a run that misses would miss by more).
    for (let longer; rate !== null && c.meets && (longer = steadyRequests(c.stats, rate)) !== null;) {
      c = check(n, rate, runAt(longer), this.targets, seed);
    }
    return c;
  }

  at(n) {
    if (!this.checks.has(n)) this.checks.set(n, this.checkAt(n, SEED));
    return this.checks.get(n);
  }

  // n replicas on every seed (SEED's, then CONFIRM_SEEDS'): the first run that misses, or SEED's when all meet.
  holds(n) {
    if (!this.held.has(n)) {
      let c = this.at(n);
      for (const seed of c.meets ? CONFIRM_SEEDS : []) {
        const other = this.checkAt(n, seed);
        if (!other.meets) { c = other; break; }
      }
      this.held.set(n, c);
    }
    return this.held.get(n);
  }

  // The search's [n, n - 1] on SEED's draw moved up until n meets on every seed: [n, the run one fewer misses on
  // (null: no count below)], or null past `limit`.
  confirmed(n, below, limit) {
    if (this.holds(n).meets) return [n, below ? this.at(below) : null];
    let low = n, step = Math.max(1, Math.floor(n / 50));
    while (!this.holds(low + step).meets) {
      low += step; step *= 2;
      if (low + step > limit) return null;
    }
    let high = low + step;
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (this.holds(mid).meets) high = mid; else low = mid;
    }
    return [high, this.holds(low)];
  }

  // [n, n - 1]: the smallest count that meets the targets and the one below it (0: none), or null past the limit.
  smallest(start) {
    const first = this.at(start);
    let step = Math.max(1, Math.ceil(start * Math.min(Math.abs(first.worst), 1.0) / 4));
    let low, high;
    if (first.meets) {
      high = start;
      while (high - step >= 1 && this.at(high - step).meets) { high -= step; step *= 2; }
      low = Math.max(high - step, 0);
    } else {
      low = start;
      while (!this.at(low + step).meets) {
        low += step; step *= 2;
        if (low + step > SEARCH_LIMIT * start) return null;
      }
      high = low + step;
    }
    let halve = false;
    while (high - low > 1) {  // low misses (or is 0: not simulated), high meets
      const width = high - low;
      const n = halve || low === 0 ? Math.floor((low + high) / 2) : this.guess(low, high);
      if (this.at(n).meets) high = n; else low = n;
      halve = high - low > width / 2;
    }
    return [high, low];
  }

  // Where the worst slack crosses 0 on the line between the bracket's ends, strictly inside it.
  guess(low, high) {
    const sLow = this.at(low).worst, sHigh = this.at(high).worst;
    if (!(Number.isFinite(sLow) && Number.isFinite(sHigh))) return Math.floor((low + high) / 2);
    const n = roundHalfEven(low + (high - low) * sLow / (sLow - sHigh));
    return Math.min(Math.max(n, low + 1), high - 1);
  }
}

// The simulated plan for a completed workload `w` and its napkin plan (planner.js's answer): {workload,
// targets, napkin_replicas, gpus_per_replica, chosen, below, infeasible_because, evidence, detail,
// simulations}; simulatedJson keys it as plan --json. `runner(cat, request)` gives a run's statistics.
export function simulatedPlan(cat, w, napkin, runner = run) {
  if (!napkin.feasible) {
    return { workload: w, targets: targets(w), napkin_replicas: null, gpus_per_replica: null, chosen: null,
      below: null, infeasible_because: NO_SHAPE, evidence: null, detail: "", simulations: 0 };
  }
  return simulatedShape(cat, w, napkin.gpus_per_replica, napkin.replicas, runner);
}

// The smallest count of `gpus`-GPU replicas meeting the targets at peak, searched from `start`; with `most`, only
// a count of at most that many (planner_simulated.simulated_shape).
export function simulatedShape(cat, w, gpus, start, runner = run, most = null) {
  const tgs = targets(w);
  const base = { workload: w, targets: tgs, napkin_replicas: start, gpus_per_replica: gpus, chosen: null, below: null,
    infeasible_because: null, evidence: null, detail: "", simulations: 0 };
  const search = new Search(cat, w, gpus, tgs, runner);
  const done = (fields) => ({ ...base, ...fields, simulations: search.runs });
  let confirmed;
  try {
    let found;
    if (most !== null) {
      if (most < 1 || !search.at(most).meets) return done({ infeasible_because: NOT_FEWER });
      found = search.smallest(most);
    } else {
      const alone = search.at(ALONE);
      if (!alone.meets) return done({ infeasible_because: ONE_AT_A_TIME, evidence: alone });
      found = search.smallest(start);
    }
    confirmed = found === null ? null : search.confirmed(found[0], found[1], SEARCH_LIMIT * (most ?? start));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return done({ infeasible_because: REFUSED, detail: e.message });
  }
  if (confirmed === null) return done({ infeasible_because: LIMIT });
  const [n, below] = confirmed;
  if (most !== null && n > most) return done({ infeasible_because: NOT_FEWER });  // more than the caller's fleet
  return done({ chosen: search.at(n), below });
}

// The target that sets the count: the one one replica fewer misses by most (the nearest to missing when the
// answer is one replica).
export const binding = (s) => (s.chosen === null ? null : (s.below || s.chosen).closest);

// Little's law: requests in the system = arrival rate x mean time in the system (E2E).
export function liveConcurrency(s) {
  const c = s.chosen;
  return c === null || c.rate_per_s === null ? null : c.rate_per_s * c.stats.e2e_s.mean;
}

export function simulatedJson(cat, s) {
  const w = s.workload, c = s.chosen, bind = binding(s);
  const out = {
    engine: w.engine, burstiness: w.burstiness,
    percentile_targets: Object.fromEntries(s.targets.filter((t) => t.percentile !== null).map((t) => [t.key, t.seconds])),
    ttft_p95_s: c === null ? null : c.stats.ttft_s.p95, tpot_p95_s: c === null ? null : c.stats.tpot_s.p95,
    itl_p95_s: c === null ? null : c.stats.itl_s.p95,
    live_concurrency_per_replica: liveConcurrency(s),
    simulated_replicas: c === null ? null : c.replicas, simulated_gpus_per_replica: s.gpus_per_replica,
    simulated_gpus: c === null || s.gpus_per_replica === null ? null : c.replicas * s.gpus_per_replica,
    simulated_feasible: c !== null, simulated_infeasible_because: s.infeasible_because,
    simulated_binding: bind === null ? null : bind.key, simulated_requests_per_s_per_replica: c === null ? null : c.rate_per_s,
    simulated_requests: c === null ? null : c.stats.requests + c.stats.warmup_requests, simulated_seed: SEED,
    simulated_confirm_seeds: CONFIRM_SEEDS,
    simulations: s.simulations,
  };
  return Object.fromEntries(cat.json_keys.plan_simulated.map((k) => [k, out[k]]));
}
