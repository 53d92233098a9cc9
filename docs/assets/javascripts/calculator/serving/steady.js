// The closed loop's equilibrium under the same step model (macros/engine/serving/steady.py, whose docstring
// derives each line): TPOT, TTFT and throughput of a client keeping C requests in flight, solved by damped
// fixed-point iteration over every configuration at once. The configurations share one stopping rule, as
// numpy's arrays do in the Python, so each one stops at the same iteration and the answers agree to the bit.

import { causalPairs } from "../formulas/roofline.js";
import { ranksOf } from "./replica.js";
import { stepTimeS } from "./step.js";
import { stepBatch } from "./types.js";

export const ITERATIONS = 200;
export const TOLERANCE = 1e-9;
export const DAMPING = 0.3;
export const SETTLE = 40;

const clip = (x, low, high) => Math.min(Math.max(x, low), high);

// A step carrying `tokens` new prompt tokens (`prompts` prompts of `prompt` tokens, each in `chunks` chunks, on
// min(prompts, ranks) ranks evenly) beside `decode` decoding sequences (steady.py's _prefill).
function steadyPrefillS(c, decode, context, tokens, prompts, prompt, chunks) {
  const window = c.replica.window;
  const pairs = causalPairs(prompt) / chunks * prompts;
  const windowPairs = causalPairs(prompt, Math.max(window, 1)) / chunks * prompts;
  const prefix = (prompt - prompt / chunks) / 2 * prompts;
  return stepTimeS(c, stepBatch({ decode_seqs: decode, decode_context: context, prefill_tokens: tokens,
    prefill_seqs: prompts, prefill_pairs: pairs, prefill_window_pairs: windowPairs, prefill_prefix_tokens: prefix,
    prefill_rank_share: 1 / Math.min(prompts, ranksOf(c.replica)) }),
  0.0);
}

// One configuration's new iterate: [tpot, ttft, decode batch] from the old one (row i of the setup).
function iterate(c, s, i, tpot, ttft) {
  const C = s.concurrency[i], P = s.prompt[i], nOut = s.output[i], mixed = s.mixed[i], budget = s.token_budget[i];
  const e2e = ttft + (nOut - 1) * tpot;
  const X = C / e2e;
  const b = clip(C * (nOut - 1) * tpot / e2e, 1.0, C);
  const context = b * (P + nOut / 2);
  const ranks = ranksOf(c.replica);
  const tD = stepTimeS(c, stepBatch({ decode_seqs: b, decode_context: context }), (b <= s.graph_max_batch[i]) * 1.0);
  // Mixed: a chunk of q tokens beside the decodes, P / q chunk steps per prompt; under attention data parallelism
  // each rank fills its own budget, and the chunks due within a decode step's time share one.
  const q = Math.min(P, Math.max(budget - b / ranks, 1.0));
  const chunks = P / q;
  const sharing = clip(X * chunks * tD, 1.0, ranks);
  const tM = steadyPrefillS(c, b, context, sharing * q, sharing, P, chunks);
  const nP = Math.min(X * chunks / sharing, 0.95 / tM);
  const steps = nP + (1 - nP * tM) / tD;
  const tpotMixed = 1 / steps;
  const residualMixed = (nP * tM ** 2 + (steps - nP) * tD ** 2) / 2;
  const rho = nP * tM;
  const oneAtATime = (budget - b / ranks) < 2 * P;
  const queueMixed = oneAtATime ? rho * chunks * tM / (2 * (1 - rho)) : 0.0;
  const ttftMixed = residualMixed + queueMixed + chunks * tM;
  // Prefill-first: k prompts share a prefill-only step, decode stops for it.
  const interval = s.admission_interval[i];
  const m = Math.max(X * interval * tD, 1e-9);
  const k = clip(m / (1 - Math.exp(-m)), 1.0, Math.max(ranks * budget / P, 1.0));
  const tP = steadyPrefillS(c, 0.0 * b, 0.0 * b, k * P, k, P, Math.max(P / budget, 1.0));
  const load = Math.min(X * tP / k, 0.95);
  const tpotFirst = tD / (1 - load);
  const nD = (1 - load) / tD;
  const residualFirst = (nD * tD ** 2 + X / k * tP ** 2) / 2;
  const ttftFirst = residualFirst + (interval - 1) / 2 * tD + tP;
  // The API server's own work, one request at a time: when the cycle is shorter than C of it, its queue.
  const api = c.params.api_request_s;
  const newTpot = mixed * tpotMixed + (1 - mixed) * tpotFirst;
  const newTtft = s.request_overhead_s[i] + api + mixed * ttftMixed + (1 - mixed) * ttftFirst;
  return [newTpot, newTtft + Math.max(C * api - (newTtft + (nOut - 1) * newTpot), 0.0), b];
}

// `costsList`: one step-cost object per configuration; `s`: arrays over the configurations (ClosedLoopSetup's
// fields: concurrency, prompt, output, mixed, token_budget, admission_interval, graph_max_batch,
// request_overhead_s). Returns arrays {tpot_s, ttft_s, requests_per_s, output_tokens_per_s, decode_batch}.
export function equilibrium(costsList, s, tolerance = TOLERANCE) {
  const n = costsList.length;
  const tpot = new Array(n).fill(0.01), ttft = new Array(n).fill(0.1), b = new Array(n).fill(0);
  for (let it = 0; it < ITERATIONS; it++) {
    const next = costsList.map((c, i) => iterate(c, s, i, tpot[i], ttft[i]));
    let moveTpot = -Infinity, moveTtft = -Infinity;
    for (let i = 0; i < n; i++) {  // np.max propagates NaN: so does Math.max
      moveTpot = Math.max(moveTpot, Math.abs(next[i][0] / tpot[i] - 1));
      moveTtft = Math.max(moveTtft, Math.abs(next[i][1] / ttft[i] - 1));
    }
    const step = moveTpot + moveTtft;
    const keep = it < SETTLE ? DAMPING : 1 - (1 - DAMPING) * SETTLE / it;
    for (let i = 0; i < n; i++) {
      tpot[i] = keep * tpot[i] + (1 - keep) * next[i][0];
      ttft[i] = keep * ttft[i] + (1 - keep) * next[i][1];
      b[i] = next[i][2];
    }
    if (step < tolerance) break;
  }
  const X = tpot.map((t, i) => s.concurrency[i] / (ttft[i] + (s.output[i] - 1) * t));
  return { tpot_s: tpot, ttft_s: ttft, requests_per_s: X, output_tokens_per_s: X.map((x, i) => x * s.output[i]),
    decode_batch: b };
}
