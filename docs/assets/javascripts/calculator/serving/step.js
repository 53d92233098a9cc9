// The time of one engine step as a sum of named terms (macros/engine/serving/step.py, whose docstring
// explains each): per operator class the larger of its memory and compute time, summed over the classes,
// plus communication and the GPU's fixed costs; the step is the larger of that and the host's work, which
// runs beside it. The same operations in the same order as the Python.

import { epAlltoallS, expertsTouched } from "../formulas/moe.js";
import { tpAllreduceS } from "../formulas/roofline.js";
import { adaptersRead } from "./adapters.js";
import { fullLayers, ranksOf } from "./replica.js";
import { stepBatch } from "./types.js";

// Per-unit times: every byte over the replica's g * beta_mem * B, every FLOP over g * beta * P.
export function costs(r, p) {
  const mem = r.gpus * p.bw_fraction * r.bandwidth_bytes_per_s;
  return {
    replica: r, params: p, always_s: r.always_bytes / mem, expert_s: r.expert_bytes / mem,
    adapter_s: r.adapter_bytes / mem,
    gemm_s_per_token: r.dense_flops_per_token / (r.gpus * p.gemm_fraction * r.dense_peak_flops),
    attention_gemm_s_per_token: r.attention_flops_per_token / (r.gpus * p.gemm_fraction * r.dense_peak_flops),
    moe_s_per_row: r.moe_flops_per_token / Math.max(r.experts_per_token, 1) / (r.gpus * p.moe_fraction * r.moe_peak_flops),
    kv_s_per_token_layer: r.kv_copies * r.kv_bytes_per_token_layer / mem,
    decode_pair_s: r.decode_pair_flops * r.decode_tile_padding / (r.gpus * p.attn_fraction * r.attention_peak_flops),
    prefill_pair_s: r.prefill_pair_flops / (r.gpus * p.attn_fraction * r.attention_peak_flops),
    fixed_s: r.layers * p.layer_overhead_s, host_s: p.step_overhead_s, sequence_s: p.sequence_overhead_s,
    eager_s: r.layers * p.eager_layer_overhead_s,
  };
}

// The GPU's time, the classes' sum (StepTerms.gpu_s).
export function gpuS(t) {
  return Math.max(t.weights_s, t.gemm_s) + Math.max(t.experts_s, t.moe_s) + Math.max(t.kv_s, t.attention_s)
    + t.communication_s + t.fixed_s;
}

// The step: the GPU's time or the host's, whichever is longer (StepTerms.total_s).
export const totalS = (t) => Math.max(gpuS(t), t.host_s);

// Tensor parallelism's two ring all-reduces per layer; under attention data parallelism the MoE's
// exchanges (expert parallelism) or its all-gather and reduce-scatter (experts split by TP).
export function communicationS(r, hopLatencyS, tokens) {
  const ring = tpAllreduceS(r.layers, r.gpus, tokens, r.hidden, r.link_bytes_per_s, 2 * (r.gpus - 1) * hopLatencyS);
  const exchange = 2 * r.moe_layers * epAlltoallS(tokens, r.experts_per_token, r.hidden, r.gpus, r.link_bytes_per_s,
    (r.gpus - 1) * hopLatencyS);
  const dp = r.layout === "dp-attention" ? 1.0 : 0.0;
  const ep = r.ep > 1 ? 1.0 : 0.0;
  return (1 - dp) * ring + dp * (ep * exchange + (1 - ep) * r.moe_layers / r.layers / 2 * ring);
}

// The named terms of one step serving batch `b`; `graphed` says whether it replays a CUDA graph.
export function stepTerms(c, b, graphed = true) {
  const r = c.replica;
  const tokens = b.decode_seqs + b.prefill_tokens;
  // A dense model has no experts: u = 0 (max(E, 1) keeps 1 - k / E defined when k = E = 0).
  const experts = expertsTouched(Math.max(r.experts, 1), r.experts_per_token, tokens);
  const rowsEach = tokens * r.experts_per_token / Math.max(experts, 1e-9);
  const expertRows = experts * Math.ceil(rowsEach / r.moe_tile_rows) * r.moe_tile_rows;
  // The attention side's prefill, as the busiest rank's share of it on every rank (1x under tensor parallelism).
  const ranks = ranksOf(r);
  const spread = ranks * b.prefill_rank_share;
  const attentionTokens = b.decode_seqs + spread * b.prefill_tokens;
  const windowed = Math.min(b.decode_context, b.decode_seqs * r.window);
  const prefixWindowed = spread * Math.min(b.prefill_prefix_tokens, b.prefill_seqs * r.window);
  const full = fullLayers(r);
  const read = full * (b.decode_context + spread * b.prefill_prefix_tokens) + r.window_layers * (windowed + prefixWindowed);
  const decodePairs = full * b.decode_context + r.window_layers * windowed;
  const prefillPairs = spread * (full * b.prefill_pairs + r.window_layers * b.prefill_window_pairs);
  const t = {
    weights_s: c.always_s + adaptersRead(r, b.decode_seqs + b.prefill_seqs) * c.adapter_s + 0.0 * tokens,
    experts_s: experts * c.expert_s,
    kv_s: (read + attentionTokens * r.layers) * c.kv_s_per_token_layer,
    gemm_s: tokens * c.gemm_s_per_token + (attentionTokens - tokens) * c.attention_gemm_s_per_token,
    moe_s: expertRows * c.moe_s_per_row,
    attention_s: decodePairs * c.decode_pair_s + prefillPairs * c.prefill_pair_s,
    communication_s: communicationS(r, c.params.link_latency_s, tokens),
    fixed_s: c.fixed_s + c.eager_s * (1 - (graphed ? 1 : 0)),
    host_s: c.host_s + (b.decode_seqs + b.prefill_seqs) * c.sequence_s / ranks,
  };
  t.total_s = totalS(t);
  return t;
}

export const stepTimeS = (c, b, graphed = true) => stepTerms(c, b, graphed).total_s;

// A decode step of `seqs` sequences as a function of their total context: its time and its regime (which side
// of the attention class's max, of the window's min and of the GPU-or-host max). What does not read the context
// is worked out once per replica and batch (decode_step, memoized in c.decode_steps), the rest in stepTerms's
// order, so the times are stepTimeS's to the last bit.
export function decodeStep(c, seqs, graphed) {
  const memo = c.decode_steps ??= new Map();
  const name = `${seqs},${graphed}`;
  if (memo.has(name)) return memo.get(name);
  const r = c.replica;
  const fixed = stepTerms(c, stepBatch({ decode_seqs: seqs }), graphed);
  const head = Math.max(fixed.weights_s, fixed.gemm_s) + Math.max(fixed.experts_s, fixed.moe_s);
  const { communication_s: comm, fixed_s: fixedS, host_s: host } = fixed;
  const full = fullLayers(r), windowLayers = r.window_layers, window = r.window;
  const written = seqs * r.layers, kvPer = c.kv_s_per_token_layer, pairS = c.decode_pair_s;
  const at = (context) => {
    const pairs = full * context + windowLayers * Math.min(context, seqs * window);
    const kv = (pairs + written) * kvPer, attention = pairs * pairS;
    const gpu = head + Math.max(kv, attention) + comm + fixedS;
    return [Math.max(gpu, host), `${kv >= attention},${Boolean(window) && context <= seqs * window},${gpu >= host}`];
  };
  memo.set(name, at);
  return at;
}

function runS(step, seqs, context, steps) {
  const span = (a, b, ta, ra, tb, rb) => {
    if (ra === rb || b - a <= 1) return (b - a + 1) * (ta + tb) / 2;
    const m = Math.floor((a + b) / 2);
    const [tm, rm] = step(context + m * seqs);
    const [tn, rn] = step(context + (m + 1) * seqs);
    return span(a, m, ta, ra, tm, rm) + span(m + 1, b, tn, rn, tb, rb);
  };
  if (steps <= 0) return 0.0;
  return span(0, steps - 1, ...step(context), ...step(context + (steps - 1) * seqs));
}

// `steps` consecutive decode steps of the same sequences, the first at total context `context`, summed
// exactly as trapezoids over the stretches of one regime (decode_run_s).
export const decodeRunS = (c, seqs, context, steps, graphed = true) =>
  runS(decodeStep(c, seqs, graphed), seqs, context, steps);

// The fewest decode steps (at most `most`) whose run takes at least timeS: bisection on decodeRunS.
export function decodeStepsUntil(c, seqs, context, most, timeS, graphed = true) {
  const step = decodeStep(c, seqs, graphed);
  if (runS(step, seqs, context, most) < timeS) return most;
  let low = 1, high = most;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (runS(step, seqs, context, mid) >= timeS) high = mid;
    else low = mid + 1;
  }
  return low;
}
