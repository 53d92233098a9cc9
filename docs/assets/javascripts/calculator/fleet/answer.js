// The planner's one answer (macros/engine/fleet/answer.py, whose docstring explains it): the fleet the serving
// model supports at the workload's targets (the fewest GPUs over the shapes simulated, or the two disaggregated
// pools), the napkin's replicas, GPUs, shape and costs kept under napkin_ keys beside it.

import { costPerDay, costPerMillionTokensAtPeak } from "../formulas/capacity.js";
import { options, optionsJson } from "./fleet_options.js";
import { plan, planShape, workload } from "./planner.js";
import { simulatedJson, simulatedPlan, simulatedShape } from "./planner_simulated.js";
import { profile } from "../serving/profiles.js";
import { run } from "../serving/run.js";

export const ANSWER_KEYS = ["feasible", "replicas", "gpus_per_replica", "token_budget", "gpus", "cost_per_day",
  "cost_per_million_output_tokens"];
export const TOKEN_BUDGETS = [2048, 1024, 512, 256];
const NAPKIN_PREFIX = "napkin_", DISAGGREGATED = "disaggregated";
const SIMULATED_COUNT_KEYS = ["simulated_replicas", "simulated_gpus_per_replica", "simulated_gpus", "simulated_feasible"];

const renamed = (k) => (ANSWER_KEYS.includes(k) ? NAPKIN_PREFIX + k : k);

// plan --json's keys in order (answer.keys).
export const keys = (napkin, simulated, fleet) => [...ANSWER_KEYS, "answer_from", "answer_tried",
  ...napkin.map(renamed), ...simulated.filter((k) => !SIMULATED_COUNT_KEYS.includes(k)), ...fleet];

// The parts' JSON as one object (answer.joined).
export function joined(napkin, simulated, fleet, budget, tried) {
  let source, replicas, shape, gpus;
  if (fleet.mode === DISAGGREGATED) {
    source = "disaggregated-pools"; shape = null;
    const pools = [fleet.prefill_pool_replicas, fleet.decode_pool_replicas];
    replicas = pools.includes(null) ? null : pools[0] + pools[1];
    gpus = fleet.disaggregated_gpus;
  } else {
    source = "simulation";
    replicas = simulated.simulated_replicas; shape = simulated.simulated_gpus_per_replica; gpus = simulated.simulated_gpus;
  }
  const price = napkin.price_per_gpu_hour, peak = napkin.peak_output_tokens_per_s;
  const priced = gpus !== null && price !== null;
  const out = { feasible: gpus !== null, replicas, gpus_per_replica: gpus !== null ? shape : null,
    token_budget: gpus !== null && source === "simulation" ? budget : null, gpus,
    cost_per_day: priced ? costPerDay(gpus, price) : null,
    cost_per_million_output_tokens: priced ? costPerMillionTokensAtPeak(gpus, price, peak) : null,
    answer_from: source, answer_tried: tried };
  for (const [k, v] of Object.entries(napkin)) out[renamed(k)] = v;
  for (const [k, v] of Object.entries(simulated)) if (!SIMULATED_COUNT_KEYS.includes(k)) out[k] = v;
  return Object.assign(out, fleet);
}

// answer.shapes_to_try: the napkin's shape when pinned; else every power of two up to a node and the napkin's own.
function shapesToTry(cat, w, napkin) {
  if (w.gpus_per_replica !== null && w.gpus_per_replica !== undefined) return [napkin.gpus_per_replica];
  const out = new Set([napkin.gpus_per_replica]);
  for (let g = 1; g <= cat.limits.node_gpus; g *= 2) out.add(g);
  return [...out].sort((a, b) => a - b);
}

// answer.budgets_to_try: the workload's own budget, or with none pinned, the engine's default (null) and
// TOKEN_BUDGETS.
function budgetsToTry(cat, w) {
  if (w.token_budget !== null && w.token_budget !== undefined) return [w.token_budget];
  const own = defaultBudget(cat, w);
  return [null, ...TOKEN_BUDGETS.filter((b) => b !== own)];
}

const defaultBudget = (cat, w) => profile(cat, w.engine, w.gpu, w.model, w.weights).token_budget;

// answer.simulated_shapes: each shape and budget simulated from the napkin's count on the shape (or its GPUs over
// the shape), except shapes that cannot hold the weights. A list of [gpus per replica, budget, simulated plan].
function simulatedShapes(cat, w, napkin, runner) {
  const out = [], budgets = budgetsToTry(cat, w);
  let best = null;
  for (const g of shapesToTry(cat, w, napkin)) {
    let start;
    if (g === napkin.gpus_per_replica) start = napkin.replicas;
    else {
      const at = planShape(cat, w, g);
      if (at.constraint === "memory") continue;
      start = at.constraint !== undefined ? Math.ceil(napkin.gpus / g) : at.replicas;
    }
    for (const b of budgets) {
      const most = b === null || best === null ? null : Math.floor((best - 1) / g);
      const s = simulatedShape(cat, { ...w, token_budget: b }, g, start, runner, most);
      out.push([g, b, s]);
      if (s.chosen !== null && (best === null || gpusOf(s) < best)) best = gpusOf(s);
    }
  }
  return out;
}

const gpusOf = (s) => (s.chosen === null ? null : s.chosen.replicas * s.gpus_per_replica);

// The answer for a workload's flat fields (answer.answer after planner.plan): {napkin, simulated, tried, options,
// json (every key, in plan --json's order)}. `runner(cat, request)` gives a run's statistics.
export function answer(cat, input, runner = run) {
  const napkin = plan(cat, input), full = workload(cat, input), extra = options(cat, full, napkin);
  let tried = [], chosen;
  if (!napkin.feasible) chosen = simulatedPlan(cat, full, napkin, runner);
  else {
    tried = simulatedShapes(cat, full, napkin, runner);
    const feasible = tried.filter((t) => t[2].chosen !== null);  // in tie-breaking order: keep the first fewest
    chosen = feasible.length ? feasible.reduce((a, b) => (gpusOf(b[2]) < gpusOf(a[2]) ? b : a))[2]
      : tried.find((t) => t[0] === napkin.gpus_per_replica)[2];  // the napkin's shape at the first budget tried
  }
  const own = napkin.feasible ? defaultBudget(cat, full) : null, budget = chosen.workload.token_budget ?? null;
  const listed = tried.map(([g, b, s]) => ({ gpus_per_replica: g, token_budget: b === null ? own : b, gpus: gpusOf(s),
    why_none: s.infeasible_because }));
  const napkinJson = Object.fromEntries(cat.json_keys.plan.map((k) => [k, napkin[k]]));
  const all = joined(napkinJson, simulatedJson(cat, chosen), optionsJson(cat, extra),
    napkin.feasible ? (budget === null ? own : budget) : null, listed);
  const order = keys(cat.json_keys.plan, cat.json_keys.plan_simulated, cat.json_keys.plan_fleet);
  return { json: Object.fromEntries(order.map((k) => [k, all[k]])), napkin, simulated: chosen, tried, options: extra };
}
