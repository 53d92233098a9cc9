// The engine's twin for the browser and Node (DESIGN §3 and §8): one model on one replica (scenario),
// and a workload on a fleet (plan). A line-for-line port of macros/engine (geometry, placement,
// scenario, planner), reading the presets from catalog.json, which the build exports from
// macros/data/ (macros/engine/export.py). tests/js/ checks it against the Python on random scenarios.
// Everything is in SI base units; nothing here formats a number. No dependencies.

import { InputError, RuleError, checkObject, checkValue, closeKeys, shown } from "./rules.js";
import { DEFAULT_ENGINE, decodeEstimate } from "./serving/estimate.js";

export { InputError } from "./rules.js";

// Python's float floor division (CPython's float_floor_div), so a max batch at an exact multiple
// rounds as the Python engine rounds it.
export function floorDiv(a, b) {
  let mod = a % b;
  let div = (a - mod) / b;
  if (mod && (b < 0) !== (mod < 0)) { mod += b; div -= 1; }
  if (!div) return 0;
  let floordiv = Math.floor(div);
  if (div - floordiv > 0.5) floordiv += 1;
  return floordiv;
}

export function lookup(kind, key, table) {
  if (Object.prototype.hasOwnProperty.call(table, key)) return table[key];
  const close = closeKeys(key, Object.keys(table));
  const hint = close.length ? ` Did you mean ${close.join(", ")}?` : "";
  throw new InputError(`unknown ${kind} ${shown(key)}.${hint} Valid: ${Object.keys(table).join(", ")}`);
}

// --- formulas (macros/engine/formulas) ----------------------------------------------------------

// Also the serving model's (serving/step.js): one formula in one place.
export const f = {
  expertsTouched: (E, k, b) => E * (1 - (1 - k / E) ** b),
  expertParams: (N, Na, E, k) => (N - Na) / (E - k),
  attendedTokens: (L, s, Lw, w) => (Lw ? (L - Lw) * s + Lw * Math.min(s, w) : L * s),
  causalPairs: (n, w) => {
    if (w === null || w === undefined) return n * (n + 1) / 2;
    const m = Math.min(n, w);
    return m * (m + 1) / 2 + (n - m) * m;
  },
  stepTime: (bytes, flops, g, B, P) => Math.max(bytes / (g * B), flops / (g * P)),
  // formulas.tp_allreduce_s: two ring all-reduces per layer of the tokens' BF16 activations, each plus a latency.
  tpAllreduceS: (layers, g, tokens, hidden, link, latency) =>
    2 * layers * (2 * (g - 1) / g * tokens * hidden * 2 / link + latency) * (g > 1 ? 1 : 0),
  // formulas.ep_alltoall_s: one expert-parallel dispatch or combine in one MoE layer.
  epAlltoallS: (tokens, k, hidden, g, link, latency) =>
    (tokens / g * k * hidden * 2 * (g - 1) / g / link + latency) * (g > 1 ? 1 : 0),
};

// --- the model's geometry (macros/engine/geometry.py) -------------------------------------------

export const isMla = (m) => m.kv_lora_rank !== null && m.kv_lora_rank !== undefined;
export const isMoe = (m) => m.experts !== null && m.experts !== undefined;
export const active = (m) => (m.active_params === null || m.active_params === undefined ? m.params : m.active_params);

export function dtypeBytes(cat, key) { return lookup("dtype", key, cat.precisions).bytes; }

export function kvBytesPerToken(cat, m, kv) {
  const k = dtypeBytes(cat, kv);
  if (isMla(m)) return m.layers * (m.kv_lora_rank + m.qk_rope_head_dim) * k;
  return 2 * m.layers * m.kv_heads * m.head_dim * k;
}

export function kvBytesPerSeq(cat, m, seqLen, kv) {
  return kvBytesPerToken(cat, m, kv) / m.layers
    * f.attendedTokens(m.layers, seqLen, m.sliding_window_layers || 0, m.sliding_window);
}

function paramsReadPerStep(m, batch) {
  if (!isMoe(m)) return m.params;
  const e = f.expertParams(m.params, active(m), m.experts, m.experts_per_token);
  return active(m) - m.experts_per_token * e + f.expertsTouched(m.experts, m.experts_per_token, batch) * e;
}

// (bytes per routed-expert weight, bytes per other weight): they differ only for a mixed-format
// checkpoint in its native format (GPT-OSS: MXFP4 experts, BF16 elsewhere).
function formats(cat, m, weights) {
  const w = dtypeBytes(cat, weights);
  if (isMoe(m) && weights === m.native_weights && m.native_nonexpert_weights) {
    return [w, dtypeBytes(cat, m.native_nonexpert_weights)];
  }
  return [w, w];
}

const routedParams = (m, touched) => touched * f.expertParams(m.params, active(m), m.experts, m.experts_per_token);

export function weightBytes(cat, m, weights) {
  const [ew, ow] = formats(cat, m, weights);
  if (ew === ow) return m.params * ew;
  const routed = routedParams(m, m.experts);
  return routed * ew + (m.params - routed) * ow;
}

function weightBytesRead(cat, m, batch, weights) {
  const [ew, ow] = formats(cat, m, weights);
  const read = paramsReadPerStep(m, batch);
  if (ew === ow) return read * ew;
  const routed = routedParams(m, f.expertsTouched(m.experts, m.experts_per_token, batch));
  return routed * ew + (read - routed) * ow;
}

function mlaField(m, name) {
  if (m[name] === null || m[name] === undefined) {
    throw new InputError(`${m.name}: models.toml gives no ${name}, which MLA's attention needs`);
  }
  return m[name];
}

export function attentionParams(m) {
  if (m.hidden_size === null || m.hidden_size === undefined) {
    throw new InputError(`${m.name}: models.toml gives no hidden_size, which the attention weights need`);
  }
  const d = m.hidden_size, H = m.query_heads;
  if (isMla(m)) {
    const rq = mlaField(m, "q_lora_rank"), nope = mlaField(m, "qk_nope_head_dim"), v = mlaField(m, "v_head_dim");
    const rope = m.qk_rope_head_dim, rkv = m.kv_lora_rank;
    return m.layers * (d * rq + rq * H * (nope + rope) + d * (rkv + rope) + rkv * H * (nope + v) + H * v * d);
  }
  return m.layers * (2 * d * H * m.head_dim + 2 * d * m.kv_heads * m.head_dim);
}

function coefficients(m) {
  if (!isMla(m)) { const c = 4 * m.query_heads * m.head_dim; return [c, c]; }
  const nope = m.qk_nope_head_dim || m.head_dim, v = m.v_head_dim || m.head_dim;
  return [2 * m.query_heads * (2 * m.kv_lora_rank + m.qk_rope_head_dim),
    2 * m.query_heads * (nope + m.qk_rope_head_dim + v)];
}

export function decodeAttentionFlopsPerSeq(m, seqLen) {
  return coefficients(m)[0] * f.attendedTokens(m.layers, seqLen, m.sliding_window_layers || 0, m.sliding_window);
}

export function prefillAttentionFlops(m, tokens) {
  const c = coefficients(m)[1], Lw = m.sliding_window_layers || 0;
  const full = (m.layers - Lw) * f.causalPairs(tokens);
  return Lw ? c * (full + Lw * f.causalPairs(tokens, m.sliding_window)) : c * full;
}

// --- compute dtype (macros/engine/lookup.py) -----------------------------------------------------

export function peakFlops(cat, g, weights) {
  const compute = lookup("dtype", weights, cat.precisions).compute;
  if (compute === "fp8" && g.fp8_flops) return g.fp8_flops;
  if (compute === "fp4" && g.fp4_flops) return g.fp4_flops;
  return g.bf16_flops;
}

// --- placement (macros/engine/placement.py) ------------------------------------------------------

export function place(cat, m, g, gpus, seqLen, weights, kv, reserve, layout) {
  if (!cat.limits.layouts.includes(layout)) {
    throw new InputError(`unknown layout '${layout}'. Valid: ${cat.limits.layouts.join(", ")}`);
  }
  const total = weightBytes(cat, m, weights);
  const kvSeq = kvBytesPerSeq(cat, m, seqLen, kv);
  if (layout === "dp-attention") {
    const attn = attentionParams(m) * formats(cat, m, weights)[1];
    const held = total + (gpus - 1) * attn;
    const budget = gpus * g.memory_bytes - held - gpus * reserve;
    const most = gpus * Math.max(floorDiv(budget / gpus, kvSeq), 0);
    return { layout, kvCopies: 1, held, attn, budget, maxBatch: most };
  }
  const copies = isMla(m) ? gpus : Math.max(1, gpus / m.kv_heads);
  const budget = gpus * g.memory_bytes - total - gpus * reserve;
  return { layout, kvCopies: copies, held: total, attn: null, budget,
    maxBatch: Math.max(floorDiv(budget, copies * kvSeq), 0) };
}

function chooseGpus(cat, m, g, seqLen, sequences, weights, kv, reserve, layout) {
  let n = 1;
  while (place(cat, m, g, n, seqLen, weights, kv, reserve, layout).maxBatch < sequences) {
    n *= 2;
    if (n > cat.limits.max_auto_gpus) {
      throw new InputError(`no replica of up to ${cat.limits.max_auto_gpus} ${g.name} holds ${sequences} sequence(s) `
        + `of ${m.name} under ${layout}: is the reserve larger than the GPU's memory?`);
    }
  }
  return n;
}

// --- one replica (macros/engine/scenario.py) -----------------------------------------------------

export function prefillFloor(cat, m, g, gpus, weights, tokens, cached = 0) {
  const attention = prefillAttentionFlops(m, cached + tokens) - prefillAttentionFlops(m, cached);
  return f.stepTime(weightBytes(cat, m, weights), 2 * active(m) * tokens + attention, gpus,
    g.bandwidth_bytes_per_s, peakFlops(cat, g, weights));
}

function allreduce(cat, m, g, gpus, tokens, layout) {
  if (layout !== "tp" || m.hidden_size === null || m.hidden_size === undefined) return null;
  return f.tpAllreduceS(m.layers, gpus, tokens, m.hidden_size, g.interconnect_bytes_per_s, cat.allreduce_latency_s);
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
  const kvSeq = kvBytesPerSeq(cat, m, seqLen, kv);
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
    active_params: active(m), weight_bytes: weightBytes(cat, m, weights), kv_bytes_per_token: kvBytesPerToken(cat, m, kv),
    kv_bytes_per_seq: kvSeq, kv_copies: where.kvCopies, kv_bytes_per_seq_group: where.kvCopies * kvSeq,
    memory_bytes: gpus * g.memory_bytes, reserve_bytes: gpus * reserve, kv_budget_bytes: where.budget, fits,
    max_batch: fits ? most : 0, gpu_bandwidth_bytes_per_s: g.bandwidth_bytes_per_s, gpu_peak_flops: peak,
    machine_balance: peak / g.bandwidth_bytes_per_s, efficiency, price_per_gpu_hour: price,
    weight_bytes_held: where.held,
  };
  for (const key of ["decode_bytes", "decode_flops", "decode_attention_flops", "decode_intensity", "bound",
    "decode_step_s", "planned_step_s", "decode_tokens_per_s", "decode_tokens_per_s_per_user",
    "planned_tokens_per_s", "tp_allreduce_s", "prefill_s", "cost_per_million_tokens"]) out[key] = null;
  Object.assign(out, { engine, ...estimate(cat, o, m, g, gpus, layout, weights, kv, b, seqLen, engine, fits) });
  if (!fits) return out;
  let weightsRead = weightBytesRead(cat, m, b, weights);
  if (where.attn !== null) weightsRead += (gpus - 1) * where.attn;  // each rank reads its own copy
  const moved = weightsRead + b * where.kvCopies * kvSeq;
  const attentionPerSeq = decodeAttentionFlopsPerSeq(m, seqLen);
  const flops = b * (2 * active(m) + attentionPerSeq);
  const step = f.stepTime(moved, flops, gpus, g.bandwidth_bytes_per_s, peak);
  const rate = b / step;
  Object.assign(out, {
    decode_bytes: moved, decode_flops: flops, decode_attention_flops: b * attentionPerSeq,
    decode_intensity: flops / moved, bound: flops / moved < out.machine_balance ? "memory" : "compute",
    decode_step_s: step, planned_step_s: step / efficiency, decode_tokens_per_s: rate,
    decode_tokens_per_s_per_user: 1 / step, planned_tokens_per_s: b / (step / efficiency),
    tp_allreduce_s: allreduce(cat, m, g, gpus, b, layout), prefill_s: prefillFloor(cat, m, g, gpus, weights, seqLen),
    cost_per_million_tokens: price === null ? null : price * gpus / 3600 / (rate * efficiency) * 1e6,
  });
  return out;
}
