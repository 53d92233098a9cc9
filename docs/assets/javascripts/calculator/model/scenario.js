// One model on one replica of g GPUs (macros/engine/model/scenario.py): every figure of the memory budget, the
// decode floor and the planned step, the calculator's --json. The arithmetic is in formulas/, the geometry
// in geometry.js, the placement in placement.js. Everything is in SI base units; nothing here formats a number.

import * as roofline from "../formulas/roofline.js";
import {
  active, decodeAttentionFlopsPerSeq, modelKvBytesPerSeq, kvBytesPerToken, prefillAttentionFlops, modelWeightBytes,
  weightBytesRead,
} from "./geometry.js";
import { dtypeBytes, lookup, peakFlops } from "../lookup.js";
import { chooseGpus, place } from "./placement.js";
import { InputError, RuleError, checkObject, checkValue } from "../rules.js";
import { DEFAULT_ENGINE, decodeEstimate } from "../serving/estimate.js";


export function prefillFloor(cat, m, g, gpus, weights, tokens, cached = 0) {
  const attention = prefillAttentionFlops(m, cached + tokens) - prefillAttentionFlops(m, cached);
  return roofline.prefillTimeS(active(m), tokens, modelWeightBytes(cat, m, weights), gpus, peakFlops(cat, g, weights),
    g.bandwidth_bytes_per_s, attention);
}

function allreduce(cat, m, g, gpus, tokens, layout) {
  if (layout !== "tp" || m.hidden_size === null || m.hidden_size === undefined) return null;
  return roofline.tpAllreduceS(m.layers, gpus, tokens, m.hidden_size, g.interconnect_bytes_per_s, cat.allreduce_latency_s);
}

// One of scenario()'s inputs, checked against rules.toml's `scenario` set (scenario.py's _arg).
function arg(cat, field, value) { return checkValue(cat.rules, cat.rules.scenario.fields[field], value, field); }

// A model or GPU handed in as an object (a custom one) passes the rules a data file's entry passes;
// the catalog's own entries passed them when the build loaded them.
function checkGivenEntry(cat, set, entry, table) {
  if (entry.key !== undefined && table[entry.key] === entry) return;
  try {
    checkObject(cat.rules, set, entry);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(`${entry.name}: ${e.message}`);
  }
}

// A custom model or GPU is an object with the catalog entry's fields; a string is a catalog key.
function resolve(cat, kind, field, value, table) {
  return value !== null && typeof value === "object" ? value : lookup(kind, arg(cat, field, value), table);
}

const ESTIMATE_KEYS = ["estimated_step_s", "estimated_step_low_s", "estimated_step_high_s",
  "estimated_tokens_per_s_per_user", "estimated_output_tokens_per_s_per_gpu", "estimate_band_from"];

// The fitted step model's decode step for the same batch and context (Scenario.estimate): its figures, or
// why there are none (null for the rest).
function estimate(cat, o, m, g, gpus, layout, weights, kv, b, seqLen, engine, fits) {
  const none = (why) => ({ ...Object.fromEntries(ESTIMATE_KEYS.map((k) => [k, null])), estimate_unavailable: why });
  if (!fits) return none("the batch does not fit");
  const known = cat.gpus[g.key];
  const custom = typeof o.gpu !== "string"
    && !(known && Object.keys(known).every((k) => known[k] === g[k]));
  if (custom) return none(`${g.name} is a custom GPU: the serving model has no fitted parameters for it`);
  let e;
  try {
    e = decodeEstimate(cat, typeof o.model === "string" ? o.model : m, typeof o.gpu === "string" ? o.gpu : g.key,
      gpus, layout, weights, kv, b, seqLen, engine);
  } catch (err) {
    if (err instanceof InputError) return none(err.message);
    throw err;
  }
  return {
    estimated_step_s: e.step_s, estimated_step_low_s: e.low_s, estimated_step_high_s: e.high_s,
    estimated_tokens_per_s_per_user: 1 / e.step_s, estimated_output_tokens_per_s_per_gpu: b / e.step_s / gpus,
    estimate_band_from: e.band_from, estimate_unavailable: null,
  };
}

export function scenario(cat, o) {
  const d = cat.defaults;
  const m = resolve(cat, "model", "model", o.model, cat.models), g = resolve(cat, "GPU", "gpu", o.gpu, cat.gpus);
  checkGivenEntry(cat, "model", m, cat.models);
  checkGivenEntry(cat, "gpu", g, cat.gpus);
  const weights = o.weights === undefined || o.weights === null ? m.native_weights : arg(cat, "weights", o.weights);
  const seqLen = arg(cat, "seq_len", o.seq_len ?? d.seq_len);
  if (seqLen > m.max_context) {  // a RuleError names the input, so a form puts the message beside it
    throw new RuleError("seq_len", `${m.name} supports at most ${m.max_context.toLocaleString("en")} tokens of context, got `
      + `${seqLen.toLocaleString("en")}`);
  }
  const batch = o.batch === undefined || o.batch === null ? null : arg(cat, "batch", o.batch);
  const reserve = arg(cat, "reserve_bytes", o.reserve_bytes ?? d.reserve_bytes);
  const efficiency = arg(cat, "efficiency", o.efficiency ?? d.efficiency);
  const layout = arg(cat, "layout", o.layout ?? d.layout);
  dtypeBytes(cat, weights);
  const kv = arg(cat, "kv", o.kv ?? d.kv);
  dtypeBytes(cat, kv);
  const peak = peakFlops(cat, g, weights);
  let price = null;
  if (o.price !== undefined && o.price !== null) price = arg(cat, "price", o.price);
  else if (typeof o.gpu === "string" && cat.prices[o.gpu]) price = cat.prices[o.gpu].typical;

  const chosen = o.gpus === undefined || o.gpus === null;
  const gpus = chosen ? chooseGpus(cat, m, g, seqLen, batch || 1, weights, kv, reserve, layout) : arg(cat, "gpus", o.gpus);
  const where = place(cat, m, g, gpus, seqLen, weights, kv, reserve, layout);
  const kvSeq = modelKvBytesPerSeq(cat, m, seqLen, kv);
  const most = where.maxBatch, fits = most >= 1;
  if (batch !== null && fits && batch > most) {
    const need = chooseGpus(cat, m, g, seqLen, batch, weights, kv, reserve, layout);
    throw new RuleError("batch", `batch ${batch} does not fit: ${gpus} x ${g.name} hold at most ${most} sequences of `
      + `${seqLen.toLocaleString("en")} tokens; ${need} GPUs would hold them, or use a smaller batch`);
  }
  const b = fits ? (batch || most) : (batch || 0);
  const engine = arg(cat, "engine", o.engine ?? DEFAULT_ENGINE);
  const out = {
    model: typeof o.model === "string" ? o.model : (m.key ?? "custom"), gpu: typeof o.gpu === "string" ? o.gpu : (g.key ?? "custom"),
    gpus, layout, seq_len: seqLen, batch: b, weights_dtype: weights, kv_dtype: kv, params: m.params,
    active_params: active(m), weight_bytes: modelWeightBytes(cat, m, weights), kv_bytes_per_token: kvBytesPerToken(cat, m, kv),
    kv_bytes_per_seq: kvSeq, kv_copies: where.kvCopies, kv_bytes_per_seq_group: where.kvCopies * kvSeq,
    memory_bytes: gpus * g.memory_bytes, reserve_bytes: gpus * reserve, kv_budget_bytes: where.budget, fits,
    max_batch: fits ? most : 0, gpu_bandwidth_bytes_per_s: g.bandwidth_bytes_per_s, gpu_peak_flops: peak,
    machine_balance: roofline.machineBalance(peak, g.bandwidth_bytes_per_s), efficiency, price_per_gpu_hour: price,
    weight_bytes_held: where.held,
  };
  for (const key of ["decode_bytes", "decode_flops", "decode_attention_flops", "decode_intensity", "bound",
    "decode_step_s", "planned_step_s", "decode_tokens_per_s", "decode_tokens_per_s_per_user",
    "planned_tokens_per_s", "tp_allreduce_s", "prefill_s", "cost_per_million_tokens"]) out[key] = null;
  Object.assign(out, { engine, ...estimate(cat, o, m, g, gpus, layout, weights, kv, b, seqLen, engine, fits) });
  if (!fits) return out;
  let weightsRead = weightBytesRead(cat, m, b, weights);
  if (where.attn !== null) weightsRead += (gpus - 1) * where.attn;  // each rank reads its own copy
  const moved = roofline.decodeStepBytes(weightsRead, b, where.kvCopies * kvSeq);
  const attentionPerSeq = decodeAttentionFlopsPerSeq(m, seqLen);
  const flops = roofline.decodeStepFlops(active(m), b, attentionPerSeq);
  const step = roofline.stepFloorS(moved, flops, gpus, g.bandwidth_bytes_per_s, peak);
  const planned = roofline.plannedTimeS(step, efficiency);
  const rate = roofline.tokensPerS(b, step);
  Object.assign(out, {
    decode_bytes: moved, decode_flops: flops, decode_attention_flops: b * attentionPerSeq,
    decode_intensity: roofline.intensity(flops, moved),
    bound: roofline.isMemoryBound(flops, moved, out.machine_balance) ? "memory" : "compute",
    decode_step_s: step, planned_step_s: planned, decode_tokens_per_s: rate,
    decode_tokens_per_s_per_user: 1 / step, planned_tokens_per_s: roofline.tokensPerS(b, planned),
    tp_allreduce_s: allreduce(cat, m, g, gpus, b, layout), prefill_s: prefillFloor(cat, m, g, gpus, weights, seqLen),
    cost_per_million_tokens: price === null ? null : roofline.costPerMillionTokens(price, gpus, rate, efficiency),
  });
  return out;
}
