// Speculative decoding under the step model (macros/engine/serving/speculative.py, whose docstring says what
// is priced and what is left out): a verify step of k + 1 tokens per sequence against a plain decode step,
// and the batch past which speculation stops paying.

import { ranksOf } from "./replica.js";
import { stepTimeS } from "./step.js";
import { stepBatch } from "./types.js";

// 1, 2, 3, 4, 6, 8, ... 4,096: the batches the break-even scan walks.
export const BATCHES = [...new Set([...Array.from({ length: 13 }, (_, i) => 2 ** i),
  ...Array.from({ length: 11 }, (_, i) => 3 * 2 ** i)])].sort((a, b) => a - b);

// formulas.speculative_tokens_per_step: (1 - a^(k+1)) / (1 - a), k + 1 at a = 1.
export const speculativeTokensPerStep = (a, k) => (a === 1 ? k + 1 : (1 - a ** (k + 1)) / (1 - a));

// `batch` sequences of `context` tokens, verifying `draftTokens` each: one decode token per sequence plus k
// prefill-like rows that attend to the whole context and read no KV of their own.
export function verifyBatch(r, batch, context, draftTokens) {
  const extra = batch * draftTokens;
  const window = r.window ? Math.min(context, r.window) : 0.0;
  return stepBatch({ decode_seqs: batch, decode_context: batch * context, prefill_tokens: extra, prefill_seqs: 0,
    prefill_pairs: extra * context, prefill_window_pairs: extra * window,
    prefill_rank_share: 1 / ranksOf(r) });  // each sequence's drafts on its own rank, the ranks even
}

// One verify step against a plain decode step: {batch, draft_tokens, acceptance, plain_step_s, verify_step_s,
// draft_s, tokens_per_step, tpot_s, speedup}.
export function speculativeStep(c, batch, context, draftTokens, acceptance, draftLayers = 1, graphed = true) {
  const r = c.replica;
  const plain = stepTimeS(c, stepBatch({ decode_seqs: batch, decode_context: batch * context }), graphed);
  const verify = stepTimeS(c, verifyBatch(r, batch, context, draftTokens), graphed);
  const s = { batch, draft_tokens: draftTokens, acceptance, plain_step_s: plain, verify_step_s: verify,
    draft_s: draftTokens * draftLayers / r.layers * plain, tokens_per_step: speculativeTokensPerStep(acceptance, draftTokens) };
  s.tpot_s = (s.verify_step_s + s.draft_s) / s.tokens_per_step;
  s.speedup = s.plain_step_s / s.tpot_s;
  return s;
}

// The smallest batch on BATCHES at which speculation no longer pays (speedup <= 1); null when it still pays
// at the largest. A scan: for a MoE model the speedup is not monotone in the batch.
export function breakEvenBatch(c, context, draftTokens, acceptance, draftLayers = 1) {
  return BATCHES.find((b) => speculativeStep(c, b, context, draftTokens, acceptance, draftLayers).speedup <= 1) ?? null;
}
