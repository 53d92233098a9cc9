// What a plan adds beside the napkin's fleet and its simulated check (macros/engine/fleet/fleet_options.py): the
// replica shape the search chooses and its runner-up, disaggregated pools when the workload's [fleet] asks
// for them, and speculative decoding when it gives a draft length and an acceptance rate, under the keys
// `gpu_math.py plan --json` prints (null where a figure does not exist).

import { disaggregate } from "./disaggregated.js";
import { paramsFor } from "../serving/calibration.js";
import { buildReplica } from "../serving/replica.js";
import { breakEvenBatch, speculativeStep } from "../serving/speculative.js";
import { costs } from "../serving/step.js";
import { forWorkload, shapeLabel, uncachedPrompt } from "./shapes.js";

export const DISAGGREGATED = "disaggregated";

// The shape search for a completed workload `w`, its pools in disaggregated mode, and its speculative step at
// the napkin plan's shape and SLO batch: {workload, shapes, split, speculative, break_even_batch}.
export function options(cat, w, napkin) {
  const found = forWorkload(cat, w, w.engine);
  let split = null;
  if (w.mode === DISAGGREGATED) {
    const uncached = uncachedPrompt(w);
    // The whole prompt, of which the prefix cache holds the rest: the pools prefill `uncached` new tokens.
    split = disaggregate(cat, w.model, w.gpu, w.weights, w.kv, w.engine, w.prompt_tokens, w.prompt_tokens - uncached,
      w.output_tokens, w.peak_requests_per_s, w.ttft_s, w.tpot_s, w.headroom, false, found);
  }
  let spec = null, even = null;
  if (w.draft_tokens !== null && napkin.feasible) {
    // At the napkin's replica shape and SLO batch, every sequence at its mean context.
    const r = buildReplica(cat, w.model, w.gpu, napkin.gpus_per_replica, w.layout, 1, w.weights, w.kv);
    const c = costs(r, paramsFor(cat, w.gpu, w.engine, r.attention));
    const context = w.prompt_tokens + w.output_tokens / 2;
    spec = speculativeStep(c, Math.max(1, napkin.slo_batch), context, w.draft_tokens, w.acceptance);
    even = breakEvenBatch(c, context, w.draft_tokens, w.acceptance);
  }
  return { workload: w, shapes: found, split, speculative: spec, break_even_batch: even };
}

// Python's `a and b`: null (or the falsy value) stops the chain.
const and = (x, pick) => (x ? pick(x) : x ?? null);

export function optionsJson(cat, o) {
  const chosen = o.shapes.chosen, runner = o.shapes.runner_up, s = o.split, spec = o.speculative;
  const out = {
    mode: o.workload.mode,
    shape_search_best: chosen === null ? null : shapeLabel(chosen.shape),
    shape_search_best_output_tokens_per_s_per_gpu: chosen === null ? null : chosen.best.output_tokens_per_s_per_gpu,
    shape_search_runner_up: runner === null ? null : shapeLabel(runner.shape),
    shape_search_runner_up_output_tokens_per_s_per_gpu: runner === null ? null : runner.best.output_tokens_per_s_per_gpu,
    prefill_pool_replicas: and(s, (x) => and(x.prefill, (p) => p.replicas)),
    prefill_gpus_per_replica: and(s, (x) => and(x.prefill, (p) => p.shape.gpus)),
    decode_pool_replicas: and(s, (x) => and(x.decode, (p) => p.replicas)),
    decode_gpus_per_replica: and(s, (x) => and(x.decode, (p) => p.shape.gpus)),
    kv_transfer_s: and(s, (x) => x.kv_transfer_s), disaggregated_ttft_s: and(s, (x) => x.ttft_s),
    disaggregated_gpus: and(s, (x) => x.gpus), colocated_gpus: and(s, (x) => x.colocated_gpus),
    speculative_tokens_per_step: and(spec, (x) => x.tokens_per_step), speculative_speedup: and(spec, (x) => x.speedup),
    speculative_break_even_batch: o.break_even_batch,
  };
  return Object.fromEntries(cat.json_keys.plan_fleet.map((k) => [k, out[k]]));
}
