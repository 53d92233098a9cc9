// The day, a minute at a time (macros/engine/autoscale/fluid.py, whose docstring gives each minute's steps and
// the three policies): requests offered, the capacity the serving replicas have at the SLO, admission control
// shedding the rest, and a scaling policy deciding after each minute.

import { roundHalfEven } from "../serving/lengths.js";
import { demandReplicas } from "./signals.js";

export const POLICIES = ["reactive", "predictive", "warm-pool"];
export const SECONDS_PER_MINUTE = 60;
export const MINUTES_PER_HOUR = 60;

// Python's math.ceil(round(x, 9)) (formulas.desired_replicas and warm_pool_replicas round the same way).
const ceil9 = (x) => Math.ceil(Number(x.toFixed(9)));
export const warmPoolReplicas = (forecastReplicas, forecastError) => ceil9(forecastReplicas * forecastError);

const total = (pending) => [...pending.values()].reduce((a, b) => a + b, 0);
const add = (pending, when, n) => pending.set(when, (pending.get(when) || 0) + n);
const pop = (pending, when) => { const n = pending.get(when) || 0; pending.delete(when); return n; };

// The forecast's replicas for every minute from the next one until an order placed now would serve.
export function schedule(day, m, c, planned) {
  const n = day.forecast_per_s.length;
  let ahead = -Infinity;
  for (let k = 1; k < c.cold_minutes + 2; k++) ahead = Math.max(ahead, day.forecast_per_s[(m + k) % n]);
  return ceil9(ahead / (planned.capacity_per_s * c.set_point));
}

// Cancel `count` replicas, the latest orders first, then ready ones: returns how many ready go.
function cancel(pending, count, ready) {
  for (const when of [...pending.keys()].sort((a, b) => b - a)) {
    const take = Math.min(count, pending.get(when));
    pending.set(when, pending.get(when) - take);
    count -= take;
    if (!pending.get(when)) pending.delete(when);
  }
  return Math.min(count, ready);
}

// Run the day under the controls `c` ({policy, signal, set_point, cold_minutes, warm_minutes, hold_minutes,
// min_replicas, max_replicas (the reservation: serving, starting and pooled together), slo_percentile,
// forecast_error, gpus_per_replica}); the day starts with the
// forecast's replicas for minute 0 in place. Returns {minutes: [...], gpu_hours, cold_starts, warm_starts}.
export function simulateDay(day, c, planned, shifted) {
  const predictive = c.policy === "predictive" || c.policy === "warm-pool";
  const joins = new Map(), poolJoins = new Map();  // minute -> replicas that start serving (or join the pool) then
  let ready = Math.min(c.max_replicas, Math.max(c.min_replicas, schedule(day, -1, c, planned)));
  let pool = c.policy === "warm-pool" ? Math.min(warmPoolReplicas(ready, c.forecast_error), c.max_replicas - ready) : 0;
  const targets = [], rows = [];
  let gpuMinutes = 0.0, cold = 0, warm = 0;
  day.rates_per_s.forEach((rate, m) => {
    ready += pop(joins, m);
    pool += pop(poolJoins, m);
    const mix = day.shifted[m] ? shifted : planned;
    const offered = roundHalfEven(rate * SECONDS_PER_MINUTE);
    const capacity = ready * mix.capacity_per_s * SECONDS_PER_MINUTE;
    const served = Math.min(offered, Math.floor(capacity + 1e-9));
    const shed = offered - served;
    const starting = total(joins) + total(poolJoins);
    gpuMinutes += (ready + starting + pool) * c.gpus_per_replica;
    rows.push({ offered, capacity, replicas: ready, starting, warm_pool: pool, served, shed,
      late: shed > offered * (1 - c.slo_percentile / 100) });

    // The decision for the minutes to come.
    const want = ceil9(demandReplicas(c.signal, rate, ready, mix, planned) / c.set_point);
    const ahead = predictive ? schedule(day, m, c, planned) : 0;
    targets.push(Math.min(c.max_replicas, Math.max(c.min_replicas, want, ahead)));
    if (targets.length > c.hold_minutes + 1) targets.shift();
    const target = Math.max(...targets);  // down only to the highest target of the hold window
    const inService = ready + total(joins);
    if (target > inService) {
      const more = target - inService, fromPool = Math.min(more, pool);
      pool -= fromPool;
      add(joins, m + 1 + c.warm_minutes, fromPool);
      add(joins, m + 1 + c.cold_minutes, more - fromPool);
      warm += fromPool;
      cold += more - fromPool;
    } else if (target < inService) {
      ready -= cancel(joins, inService - target, ready);
    }
    if (c.policy === "warm-pool") {  // the pool gets what the reservation holds beyond the replicas in service
      const wantPool = Math.min(warmPoolReplicas(ahead, c.forecast_error), c.max_replicas - ready - total(joins));
      const have = pool + total(poolJoins);
      if (wantPool > have) {
        add(poolJoins, m + 1 + c.cold_minutes, wantPool - have);
        cold += wantPool - have;
      } else if (wantPool < have) {
        pool -= cancel(poolJoins, have - wantPool, pool);
      }
    }
  });
  return { minutes: rows, gpu_hours: gpuMinutes / MINUTES_PER_HOUR, cold_starts: cold, warm_starts: warm };
}

// A day's totals: served plus shed is offered, minute by minute, so in total too.
export function totals(run) {
  const sum = (key) => run.minutes.reduce((a, m) => a + m[key], 0);
  return { offered_requests: sum("offered"), served_requests: sum("served"), shed_requests: sum("shed"),
    slo_violation_minutes: run.minutes.filter((m) => m.late).length };
}
