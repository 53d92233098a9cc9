// A workload's day under a policy (macros/engine/autoscale/run.py): its replica (the napkin planner's shape),
// one replica's capacity at the SLO for the planned mix and the shifted one (serving/capacity.js), the cold
// start, the forecast's error on a backtest day, and the fluid model's run, keyed as `autoscale --json`.

import { PlanError, SECONDS_PER_DAY, plan, sloBatch, workload } from "../fleet/planner.js";
import { InputError } from "../rules.js";
import { pyRepr } from "../serving/arrivals.js";
import { capacityAtSlo } from "../serving/capacity.js";
import { roundHalfEven } from "../serving/lengths.js";
import { nearestRank } from "../serving/metrics.js";
import { run } from "../serving/run.js";
import { drawnDay, replayedDay } from "./day.js";
import { POLICIES, simulateDay, totals } from "./fluid.js";
import { coldStart, dayInputs, wholeMinutes } from "./inputs.js";
import { SIGNALS } from "./signals.js";

export const DEFAULT_SIGNAL = "queue";

// The day's mean request rate: the workload's daily volume, or its peak over the data's peak-to-mean.
export function meanRate(w, x) {
  return w.requests_per_day !== undefined && w.requests_per_day !== null ? w.requests_per_day / SECONDS_PER_DAY
    : w.peak_requests_per_s / x.peak_to_mean;
}

// One replica's capacity at the workload's targets, read as the data's percentile (the gap between tokens too,
// where the workload bounds it at that percentile), on the workload's engine and token budget as launched.
export function sloCapacity(cat, w, gpus, x, promptTokens = null, runner = run) {
  const itl = w[`itl_p${x.slo_percentile}_s`];
  return capacityAtSlo(cat, { model: w.model, gpu: w.gpu, gpus, prompt_tokens: promptTokens || w.prompt_tokens,
    output_tokens: w.output_tokens, ttft_target_s: w.ttft_s, tpot_target_s: w.tpot_s, percentile: x.slo_percentile,
    itl_target_s: itl === undefined ? null : itl, weights: w.weights, kv: w.kv, layout: w.layout, engine: w.engine,
    prefix_hit_rate: w.prefix_hit_rate, requests: x.requests, relative_tolerance: x.relative_tolerance,
    seed: x.capacity_seed, launch: w.token_budget === null || w.token_budget === undefined ? []
      : [["token_budget", w.token_budget]] }, runner);
}

const mix = (w, cap, promptTokens) => ({ capacity_per_s: cap.rate_per_s, tokens_per_request: promptTokens + w.output_tokens,
  kv_occupancy: cap.kv_occupancy, e2e_s: cap.e2e_mean_s });

// How far the offered rate ran above the forecast, relative, at the given percentile of the minutes.
export function forecastError(backtest, percentile) {
  const misses = backtest.rates_per_s.map((r, m) => [r, backtest.forecast_per_s[m]]).filter(([, f]) => f > 0)
    .map(([r, f]) => Math.max(0.0, r / f - 1)).sort((a, b) => a - b);
  return misses.length ? nearestRank(misses, percentile) : 0.0;
}

// `input`: a workload's flat fields; `trace`: per-minute rates replacing the drawn day, or null. Returns
// {json, day, run, controls, ...}: json keyed as `gpu_math.py autoscale --json`. `runner(cat, request)` gives a
// simulated run's statistics (run, or a caller's cache of it); `reservation`: the most replicas held at once,
// or null for the data's max_replicas_over_peak times the peak's need.
export function autoscale(cat, input, policy, signal = DEFAULT_SIGNAL, trace = null, runner = run, reservation = null) {
  if (!POLICIES.includes(policy)) throw new InputError(`unknown policy ${pyRepr(policy)} (known: ${POLICIES.join(", ")})`);
  if (!SIGNALS.includes(signal)) throw new InputError(`unknown signal ${pyRepr(signal)} (known: ${SIGNALS.join(", ")})`);
  if (reservation !== null && reservation < 1) {
    throw new InputError(`the reservation must be at least one replica, got ${reservation}`);
  }
  const x = dayInputs(cat);
  const p = plan(cat, input), w = workload(cat, input);
  if (!p.feasible) throw new PlanError(`${w.name}: ${p.message}`);
  const g = p.gpus_per_replica, mean = meanRate(w, x);
  let day, backtest;
  if (trace === null) {
    day = drawnDay(w.peak_requests_per_s, mean, x);
    backtest = drawnDay(w.peak_requests_per_s, mean, x, x.seed + 1);
  } else {
    day = backtest = replayedDay(trace, w.peak_requests_per_s, mean, x);  // in-sample: a trace is one day
  }
  const longPrompt = Math.max(1, roundHalfEven(w.prompt_tokens * x.shift_prompt_scale));
  const planned = sloCapacity(cat, w, g, x, null, runner);
  let shifted;
  try {
    shifted = sloCapacity(cat, w, g, x, longPrompt, runner);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(`${w.name}: the afternoon's ${longPrompt.toLocaleString("en")}-token prompts `
      + `(data/autoscale.toml [mix] shift_prompt_scale ${x.shift_prompt_scale}): ${e.message}`);
  }
  const cold = coldStart(cat, sloBatch(cat, w, g, p.max_batch).weight_bytes, x);
  const setPoint = 1 / (1 + w.headroom);
  const peakNeed = w.peak_requests_per_s / (planned.rate_per_s * setPoint);
  const ceiling = reservation === null ? Math.ceil(peakNeed * x.max_replicas_over_peak) : reservation;
  const controls = { policy, signal, set_point: setPoint, cold_minutes: cold.minutes,
    warm_minutes: wholeMinutes(x.warm_start_s), hold_minutes: x.scale_down_hold_minutes, min_replicas: x.min_replicas,
    max_replicas: Math.max(x.min_replicas, ceiling),
    slo_percentile: x.slo_percentile, forecast_error: forecastError(backtest, x.slo_percentile), gpus_per_replica: g };
  const run = simulateDay(day, controls, mix(w, planned, w.prompt_tokens), mix(w, shifted, longPrompt));
  const price = cat.prices[w.gpu];
  let rate = null, source = null, asOf = null;
  if (w.price_per_gpu_hour !== null) [rate, source] = [w.price_per_gpu_hour, "workload"];
  else if (price !== undefined) [rate, source, asOf] = [price.typical, "prices.toml", price.as_of];
  const out = {
    name: w.name, policy, signal, gpus_per_replica: g, minutes: run.minutes.length, gpu_hours: run.gpu_hours,
    cost: rate === null ? null : run.gpu_hours * rate, price_per_gpu_hour: rate, price_from: source, price_as_of: asOf,
    ...totals(run), cold_starts: run.cold_starts, warm_starts: run.warm_starts,
    peak_replicas: Math.max(...run.minutes.map((m) => m.replicas)), capacity_per_replica_per_s: planned.rate_per_s,
    shifted_capacity_per_replica_per_s: shifted.rate_per_s, cold_start_s: cold.total_s, cold_start_minutes: cold.minutes,
    forecast_error: controls.forecast_error, set_point: setPoint,
    timeline: run.minutes.map((m, i) => ({ minute: i, offered: m.offered, capacity: m.capacity, replicas: m.replicas,
      starting: m.starting, warm_pool: m.warm_pool, served: m.served, shed: m.shed, late: m.late })),
  };
  return { json: Object.fromEntries(cat.autoscale.json_keys.map((k) => [k, out[k]])), day, run, controls, planned, shifted, cold };
}
