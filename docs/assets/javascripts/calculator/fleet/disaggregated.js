// Disaggregated prefill and decode (macros/engine/fleet/disaggregated.py, whose docstring derives each pool and
// says what it leaves out): a prefill pool and a decode pool, each at its fewest GPUs over the candidate
// shapes, the KV cache moved between them, and the colocated fleet from the shape search beside them.

import { causalPairs } from "../formulas/roofline.js";
import { isMla } from "../model/geometry.js";
import { lookup } from "../lookup.js";
import { InputError } from "../rules.js";
import { apiLatencyS, paramsFor } from "../serving/calibration.js";
import { poolBlocks } from "../serving/kv_blocks.js";
import { roundHalfEven } from "../serving/lengths.js";
import { profile, rankLimits } from "../serving/profiles.js";
import { buildReplica, ranksOf } from "../serving/replica.js";
import { costs, stepTimeS } from "../serving/step.js";
import { stepBatch } from "../serving/types.js";
import { candidates, search } from "./shapes.js";

const poolGpus = (p) => p.replicas * p.shape.gpus;

function shapeCosts(cat, model, gpu, shape, weights, kv, engine) {
  const r = buildReplica(cat, model, gpu, shape.gpus, shape.layout, shape.ep, weights, kv);
  return costs(r, paramsFor(cat, gpu, engine, r.attention));
}

// A prompt-only step of `tokens` new tokens, whole prompts of `prompt` new tokens after `cached` (one a rank).
export function prefillStepS(c, tokens, prompt, cached) {
  const prompts = tokens / prompt;
  const window = c.replica.window || null;
  const pairs = (causalPairs(cached + prompt) - causalPairs(cached)) * prompts;
  const windowPairs = window ? (causalPairs(cached + prompt, window) - causalPairs(cached, window)) * prompts : 0;
  return stepTimeS(c, stepBatch({ prefill_tokens: tokens, prefill_seqs: Math.max(1, roundHalfEven(prompts)),
    prefill_pairs: pairs, prefill_window_pairs: windowPairs, prefill_prefix_tokens: cached * prompts,
    prefill_rank_share: 1 / Math.min(Math.max(prompts, 1.0), ranksOf(c.replica)) }), false);
}

// One prompt alone on the replica: its chunks of at most `budget` tokens, each attending to everything before it.
export function promptTimeS(c, prompt, cached, budget) {
  let done = 0, total = 0.0;
  while (done < prompt) {
    const chunk = Math.min(budget, prompt - done);
    total += prefillStepS(c, chunk, chunk, cached + done);
    done += chunk;
  }
  return total;
}

function prefillPool(cat, model, gpu, shape, weights, kv, engine, prompt, cached, peak, budgetS, headroom) {
  const c = shapeCosts(cat, model, gpu, shape, weights, kv, engine);
  const prof = profile(cat, engine, gpu, model, weights);
  const budget = rankLimits(prof, ranksOf(c.replica))[0];  // a prompt runs on one rank
  if (poolBlocks(c.replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens < cached + prompt) return null;
  const alone = promptTimeS(c, prompt, cached, budget);
  const together = Math.max(1, Math.floor(budget / prompt));
  const service = together > 1 ? prefillStepS(c, together * prompt, prompt, cached) / together : alone;
  if (alone >= budgetS) return null;
  for (let n = Math.max(1, Math.ceil(peak * service * (1 + headroom))); ; n++) {  // M/D/1 at the batched service time
    const rho = peak / n * service;
    if (rho < 1 && alone + rho * service / (2 * (1 - rho)) <= budgetS) {
      return { shape, replicas: n, requests_per_s_per_replica: 1 / service, utilisation: rho, step_s: alone, batch: together };
    }
  }
}

function decodePool(cat, model, gpu, shape, weights, kv, engine, prompt, output, peak, tpotS, headroom) {
  const c = shapeCosts(cat, model, gpu, shape, weights, kv, engine);
  const prof = profile(cat, engine, gpu, model, weights);
  const held = poolBlocks(c.replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens;
  const most = Math.min(Math.floor(held / (prompt + output)), rankLimits(prof, ranksOf(c.replica))[1]);
  const step = (b) => stepTimeS(c, stepBatch({ decode_seqs: b, decode_context: b * (prompt + output / 2) }),
    b <= prof.graph_max_batch);
  if (most < 1 || step(1) > tpotS) return null;
  let low = 1, high = most;  // step(low) meets the target; find the largest batch that does
  while (low < high) {
    const mid = Math.floor((low + high + 1) / 2);
    if (step(mid) <= tpotS) low = mid; else high = mid - 1;
  }
  const rate = low / (Math.max(output - 1, 1) * step(low));
  const n = Math.ceil(peak * (1 + headroom) / rate);
  return { shape, replicas: n, requests_per_s_per_replica: rate, utilisation: peak / (n * rate), step_s: step(low), batch: low };
}

// One prompt's KV cache (one copy), sent by the prefill replica's GPUs in parallel over their links.
export function kvTransferS(cat, model, gpu, prefill, weights, kv, tokens, sameNode) {
  const r = buildReplica(cat, model, gpu, prefill.gpus, prefill.layout, prefill.ep, weights, kv);
  const link = sameNode ? lookup("GPU", gpu, cat.gpus).interconnect_bytes_per_s : cat.nic_bandwidth_bytes_per_s;
  return tokens * r.layers * r.kv_bytes_per_token_layer / (prefill.gpus * link);  // formulas.transfer_time_s
}

// A pool of one shape, or null when the shape cannot hold the model at all.
function fits(pool, ...args) {
  try {
    return pool(...args);
  } catch (e) {
    if (e instanceof InputError) return null;
    throw e;
  }
}

const fewest = (pools) => pools.reduce((best, p) => (best === null || poolGpus(p) < poolGpus(best)
  || (poolGpus(p) === poolGpus(best) && p.shape.gpus < best.shape.gpus) ? p : best), null);

// Both pools, the transfer, and the colocated fleet for the same peak (from `colocated`, the shape search for
// the same workload, when the caller has it): {prefill, decode, kv_transfer_s, same_node, ttft_s, gpus,
// colocated_gpus, colocated_shape, wins}.
export function disaggregate(cat, model, gpu, weights, kv, engine, promptTokens, cachedTokens, outputTokens,
  peakRequestsPerS, ttftS, tpotS, headroom, sameNode = false, colocated = null) {
  const fresh = promptTokens - cachedTokens;
  const shapes = candidates(cat, model);
  const transfer = shapes.map((s) => kvTransferS(cat, model, gpu, s, weights, kv, promptTokens, sameNode));
  const overhead = paramsFor(cat, gpu, engine, isMla(lookup("model", model, cat.models)) ? "mla" : "gqa");
  const fixed = apiLatencyS(overhead, promptTokens);
  const prefills = shapes.map((s, i) => fits(prefillPool, cat, model, gpu, s, weights, kv, engine, fresh, cachedTokens,
    peakRequestsPerS, ttftS - fixed - transfer[i], headroom)).filter((p) => p);
  const decodes = shapes.map((s) => fits(decodePool, cat, model, gpu, s, weights, kv, engine, promptTokens, outputTokens,
    peakRequestsPerS, tpotS, headroom)).filter((p) => p);
  const prefill = fewest(prefills), decode = fewest(decodes);
  const transferOf = (shape) => transfer[shapes.indexOf(shape)];
  let ttft = null;
  if (prefill !== null) {
    const wait = prefill.utilisation / prefill.requests_per_s_per_replica / (2 * (1 - prefill.utilisation));
    ttft = fixed + wait + prefill.step_s + transferOf(prefill.shape);
  }
  const together = (colocated || search(cat, model, gpu, weights, kv, engine, fresh, outputTokens, ttftS, tpotS)).chosen;
  let colocatedGpus = null;
  if (together !== null) {
    const perReplica = together.best.output_tokens_per_s_per_gpu * together.shape.gpus / outputTokens;
    colocatedGpus = Math.ceil(peakRequestsPerS * (1 + headroom) / perReplica) * together.shape.gpus;
  }
  const gpus = prefill === null || decode === null ? null : poolGpus(prefill) + poolGpus(decode);
  return { prefill, decode, kv_transfer_s: prefill ? transferOf(prefill.shape) : transfer[0], same_node: sameNode,
    ttft_s: ttft, gpus, colocated_gpus: colocatedGpus, colocated_shape: together ? together.shape : null,
    wins: gpus === null || colocatedGpus === null ? null : gpus < colocatedGpus };
}
