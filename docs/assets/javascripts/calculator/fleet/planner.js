// The planner's twin (ARCHITECTURE.md, the formula contract, macros/engine/fleet/planner.py): a workload on a fleet, through the same
// scenario as one replica. A workload is the object macros/engine/export.py writes for a workload
// file (peak_requests_per_s derived), or the planner page's form. SI units; no formatting here.

import {
  costPerDay, costPerMillionTokensAtPeak, decodeReplicas, prefillReplicas, replicasForLoad,
} from "../formulas/capacity.js";
import { plannedTimeS, tokensPerS } from "../formulas/roofline.js";
import { dtypeBytes, lookup } from "../lookup.js";
import { InputError, RuleError, checkAcross, checkFields, checkSectioned, shown } from "../rules.js";
import { prefillFloor, scenario } from "../model/scenario.js";
import { PERCENTILES, TARGET_METRICS } from "./planner_simulated.js";

export class PlanError extends InputError {}

export const SECONDS_PER_DAY = 86400;
const stated = (v) => v !== undefined && v !== null;

// A workload's fields (null: not given), each already checked against the rules: the peak derived
// from a daily volume where it is not given, the model, GPU and formats looked up, and the defaults
// filled in (workload_file.py's _check). `where` names a file in errors.
function complete(cat, fields, where) {
  const w = { ...fields };
  if (w.peak_requests_per_s === undefined) w.peak_requests_per_s = w.requests_per_day / SECONDS_PER_DAY * w.peak_to_mean;
  // workload_file._check's twin: the means the file states are targets; a missing one is the napkin's only,
  // the metric's tightest percentile target (the rules' or_any check guarantees one)
  if (w.stated_means === undefined) w.stated_means = TARGET_METRICS.filter((m) => stated(w[`${m}_s`]));
  for (const metric of TARGET_METRICS) {
    if (!stated(w[`${metric}_s`])) {
      w[`${metric}_s`] = Math.min(...PERCENTILES.map((p) => w[`${metric}_p${p}_s`]).filter(stated));
    }
  }
  let m;
  try {
    m = typeof w.model === "string" ? lookup("model", w.model, cat.models) : w.model;
    if (typeof w.gpu === "string") lookup("GPU", w.gpu, cat.gpus);
    w.weights = w.weights ?? m.native_weights;
    dtypeBytes(cat, w.weights); dtypeBytes(cat, w.kv ?? cat.defaults.kv);
  } catch (e) {
    if (!(e instanceof InputError) || where === null) throw e;
    throw new InputError(`${where}: ${e.message}`);
  }
  return {
    gpus_per_replica: null, kv: cat.defaults.kv, layout: cat.defaults.layout, prefix_hit_rate: 0,
    efficiency: cat.defaults.efficiency, headroom: cat.defaults.headroom, price_per_gpu_hour: null,
    burstiness: cat.defaults.burstiness, engine: cat.defaults.engine, mode: cat.defaults.mode, draft_tokens: null,
    acceptance: null, token_budget: null, adapters: 0, adapter_popularity: null, adapter_rank: null,
    adapter_slice_bytes: null, ...w,
  };
}

// A workload as a form or export.workload_json gives it, flat (null or absent: not given), checked
// against rules.toml's `workload` set.
export function workload(cat, w) {
  const fields = Object.fromEntries(Object.entries(w).filter(([, v]) => v !== undefined && v !== null));
  checkFields(cat.rules, "workload", fields, { known: false });
  checkAcross(cat.rules, "workload", fields);
  return complete(cat, fields, null);
}

// A workload file as TOML gives it (export.py --toml), and its variants: workload_file.load_workload_file's twin,
// which refuses what load refuses, with its words. Each comes back as its flat fields, for plan().
export function readWorkload(cat, raw, where) {
  const parse = (table, here) => {
    let fields;
    try {
      fields = checkSectioned(cat.rules, "workload", table, ["variants", "design"]);
    } catch (e) {
      if (!(e instanceof RuleError)) throw e;
      throw new InputError(`${here}: ${e.message}`);
    }
    complete(cat, fields, here);  // the model, GPU and formats it names must exist
    return fields;
  };
  const base = parse(raw, where), variants = {};
  const fields = cat.rules.workload.fields;
  const sections = new Set(Object.values(fields).map((r) => r.section).filter((s) => s !== undefined));
  for (const [name, overrides] of Object.entries(raw.variants || {})) {
    const here = `${where}: [variants.${name}]`;
    if (overrides === null || typeof overrides !== "object" || Array.isArray(overrides) || overrides.$toml) {
      throw new InputError(`${here} must be a table, got ${shown(overrides)}`);
    }
    const merged = Object.fromEntries(Object.entries(raw).filter(([k]) => k !== "variants"));
    for (const [key, value] of Object.entries(overrides)) {
      const section = fields[key] ? fields[key].section : undefined;
      if (sections.has(key) && value !== null && typeof value === "object" && !Array.isArray(value) && !value.$toml) {
        merged[key] = { ...(merged[key] || {}), ...value };
      } else if (section !== undefined) {  // a section's field given flat: `prefix_hit_rate = 0` for [traffic]
        merged[section] = { ...(merged[section] || {}), [key]: value };
      } else merged[key] = value;
    }
    variants[name] = { ...parse(merged, here), name: overrides.name ?? `${base.name} (${name})` };
  }
  return { workload: base, variants };
}

const seqLen = (w) => w.prompt_tokens + w.output_tokens;

function at(cat, w, gpus, batch = null) {
  return scenario(cat, { model: w.model, gpu: w.gpu, gpus, seq_len: seqLen(w), batch, weights: w.weights, kv: w.kv,
    efficiency: w.efficiency, layout: w.layout, price: w.price_per_gpu_hour });
}

function replica(cat, w, gpus) { const s = at(cat, w, gpus); return s.fits ? s : null; }

export function sloBatch(cat, w, gpus, most) {
  if (at(cat, w, gpus, 1).planned_step_s > w.tpot_s) return null;
  let low = 1, high = most;
  while (low < high) {
    const mid = Math.floor((low + high + 1) / 2);
    if (at(cat, w, gpus, mid).planned_step_s <= w.tpot_s) low = mid; else high = mid - 1;
  }
  return at(cat, w, gpus, low);
}

export function plannedPrefill(cat, w, gpus) {
  const uncached = w.prompt_tokens * (1 - w.prefix_hit_rate);
  if (uncached <= 0) return 0;
  const m = typeof w.model === "string" ? cat.models[w.model] : w.model;
  const g = typeof w.gpu === "string" ? cat.gpus[w.gpu] : w.gpu;
  return plannedTimeS(prefillFloor(cat, m, g, gpus, w.weights, uncached, w.prompt_tokens - uncached), w.efficiency);
}

// Why `gpus` GPUs per replica cannot serve the workload (planner.py's Shortfall), or null when they can.
export function shortfall(cat, w, gpus) {
  const s = replica(cat, w, gpus);
  if (s === null) return { gpus_per_replica: gpus, constraint: "memory", planned_s: null, target_s: null };
  if (sloBatch(cat, w, gpus, s.max_batch) === null) {
    return { gpus_per_replica: gpus, constraint: "tpot", planned_s: at(cat, w, gpus, 1).planned_step_s, target_s: w.tpot_s };
  }
  const prefill = plannedPrefill(cat, w, gpus);
  if (prefill > w.ttft_s) return { gpus_per_replica: gpus, constraint: "ttft", planned_s: prefill, target_s: w.ttft_s };
  return null;
}

const ms = (x) => Number((x * 1e3).toPrecision(3));

function explain(cat, w, short) {
  const g = typeof w.gpu === "string" ? cat.gpus[w.gpu] : w.gpu;
  const m = typeof w.model === "string" ? cat.models[w.model] : w.model;
  const gpus = short.gpus_per_replica;
  if (short.constraint === "memory") {
    return `${w.name}: the model is too big: ${m.name} with ${seqLen(w).toLocaleString("en")}-token sequences does `
      + `not fit ${gpus} × ${g.name}`;
  }
  if (short.constraint === "tpot") {
    return `the TPOT target is too tight for the bandwidth: on ${gpus} × ${g.name} even one sequence `
      + `plans ${ms(short.planned_s)} ms per token against ${ms(w.tpot_s)} ms`;
  }
  return `the TTFT target is too tight for the prompt: on ${gpus} × ${g.name} prefilling `
    + `${Math.round(w.prompt_tokens * (1 - w.prefix_hit_rate)).toLocaleString("en")} uncached tokens plans `
    + `${ms(short.planned_s)} ms against ${ms(w.ttft_s)} ms`;
}

// The shapes the planner may use, in order: 1, 2, 4, ... up to the limit with none pinned; the pinned
// shape, then the wider powers of two within a node (planner.py's _shapes).
function shapes(cat, w) {
  const out = [];
  if (w.gpus_per_replica === null) {
    for (let g = 1; g <= cat.limits.max_gpus_per_replica; g *= 2) out.push(g);
  } else {
    out.push(w.gpus_per_replica);
    for (let g = 1; g <= cat.limits.node_gpus; g *= 2) if (g > w.gpus_per_replica) out.push(g);
  }
  return out;
}

// The planner's answer (planner.py's plan): the fleet on the first shape that meets both targets (a pinned
// shape widened when it cannot, and said), or an infeasible result naming the target still missed.
export function plan(cat, input) {
  const w = workload(cat, input);
  let pinned = null, short = null;
  for (const gpus of shapes(cat, w)) {
    short = shortfall(cat, w, gpus);
    if (short === null) return fleet(cat, w, gpus, pinned);
    if (gpus === w.gpus_per_replica) pinned = short;
  }
  return infeasibleResult(cat, w, short, pinned);
}

// The fleet on exactly `gpus` GPUs per replica, never widened, or the shape's shortfall (planner.py's plan_shape).
// `w`: a completed workload (workload()).
export function planShape(cat, w, gpus) {
  const short = shortfall(cat, w, gpus);
  return short !== null ? short : fleet(cat, { ...w, gpus_per_replica: gpus }, gpus, null);
}

function infeasibleResult(cat, w, widest, pinned) {
  const first = pinned === null ? 1 : pinned.gpus_per_replica;
  const out = Object.fromEntries(cat.json_keys.plan.map((k) => [k, null]));
  return Object.assign(out, {
    name: w.name, model: typeof w.model === "string" ? w.model : w.model.key,
    gpu: typeof w.gpu === "string" ? w.gpu : w.gpu.key, layout: w.layout, weights_dtype: w.weights, kv_dtype: w.kv,
    seq_len: seqLen(w), peak_requests_per_s: w.peak_requests_per_s,
    peak_input_tokens_per_s: w.peak_requests_per_s * w.prompt_tokens,
    peak_output_tokens_per_s: w.peak_requests_per_s * w.output_tokens, efficiency: w.efficiency,
    headroom: w.headroom, prefix_hit_rate: w.prefix_hit_rate,
    uncached_prompt_tokens: w.prompt_tokens * (1 - w.prefix_hit_rate), gpus_per_replica: widest.gpus_per_replica,
    feasible: false, gpus_per_replica_pinned: w.gpus_per_replica, infeasible_because: widest.constraint,
    shortfall_planned_s: widest.planned_s, shortfall_target_s: widest.target_s,
    message: `${w.name}: ${explain(cat, w, widest)} (tried replicas of `
      + `${first === widest.gpus_per_replica ? first : `${first} to ${widest.gpus_per_replica}`} GPUs)`,
  });
}

function fleet(cat, w, gpus, widenedFrom) {
  const chosen = w.gpus_per_replica === null;
  const rep = replica(cat, w, gpus);
  const slo = sloBatch(cat, w, gpus, rep.max_batch);
  const peakOut = w.peak_requests_per_s * w.output_tokens;
  const capacity = tokensPerS(slo.batch, slo.planned_step_s);
  const prefill = plannedPrefill(cat, w, gpus);
  const decodeLoad = decodeReplicas(peakOut, capacity), prefillLoad = prefillReplicas(w.peak_requests_per_s, prefill);
  const load = decodeLoad + prefillLoad;
  const replicas = replicasForLoad(load, w.headroom);
  const price = slo.price_per_gpu_hour, fleet = replicas * gpus;
  return {
    name: w.name, model: slo.model, gpu: slo.gpu, gpus_per_replica: gpus, gpus_per_replica_chosen: chosen,
    layout: w.layout, weights_dtype: w.weights, kv_dtype: w.kv, seq_len: seqLen(w), max_batch: rep.max_batch,
    slo_batch: slo.batch, step_s: slo.decode_step_s, planned_step_s: slo.planned_step_s,
    decode_tokens_per_s_per_replica: capacity, planned_prefill_s: prefill, peak_requests_per_s: w.peak_requests_per_s,
    peak_input_tokens_per_s: w.peak_requests_per_s * w.prompt_tokens, peak_output_tokens_per_s: peakOut,
    replica_seconds_per_s: load, prefill_share: prefillLoad / load, replicas, gpus: fleet, price_per_gpu_hour: price,
    cost_per_day: price === null ? null : costPerDay(fleet, price),
    cost_per_million_output_tokens: price === null ? null : costPerMillionTokensAtPeak(fleet, price, peakOut),
    ttft_ok: prefill <= w.ttft_s, tpot_ok: slo.planned_step_s <= w.tpot_s, efficiency: w.efficiency,
    headroom: w.headroom, prefix_hit_rate: w.prefix_hit_rate, uncached_prompt_tokens: w.prompt_tokens * (1 - w.prefix_hit_rate),
    binding: slo.batch === rep.max_batch ? "kv" : "tpot", kv_bytes_per_seq: rep.kv_bytes_per_seq,
    feasible: true, gpus_per_replica_pinned: w.gpus_per_replica,
    widened_because: widenedFrom === null ? null : widenedFrom.constraint, infeasible_because: null,
    shortfall_planned_s: widenedFrom === null ? null : widenedFrom.planned_s,
    shortfall_target_s: widenedFrom === null ? null : widenedFrom.target_s, widened_from: widenedFrom,
  };
}
