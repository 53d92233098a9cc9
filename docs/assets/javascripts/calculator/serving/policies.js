// The scheduling policies (macros/engine/serving/policies.py): which work one engine step takes. DecodeFirst (vLLM
// V1, TensorRT-LLM): every running decode, then prefill chunks within the token budget; PrefillFirst (SGLang, ATOM):
// a prefill-only step whenever prompts can be admitted or a chunk continues. Each rank fills its own budget.

import { makePlan } from "./scheduler.js";

// Continuing chunks in admission order, then (when the scheduler looks at its queue) waiting prompts, each within
// its rank's budget (`budgets`, spent as they go); a rank stops at its first chunk or prompt that does not fit.
function fillChunks(state, now, budgets, admit) {
  const chunks = [];
  const taken = new Array(state.ranks).fill(0), stalled = new Array(state.ranks).fill(false);
  for (const s of [...state.prefilling]) {
    const k = state.rankOf(s);
    if (stalled[k]) continue;
    const n = state.takeChunk(s, budgets[k], taken[k] === 0);
    if (!n) {
      stalled[k] = true;
      if (stalled.every(Boolean)) break;
      continue;
    }
    chunks.push([s, n]);
    budgets[k] -= n;
    taken[k] += 1;
  }
  const openRanks = new Array(state.ranks).fill(true);
  // A full running cap refuses every rank: stop at once rather than close the ranks one scan at a time.
  while (admit && state.running.size < state.max_running) {
    const at = state.firstWaiting(openRanks);
    if (at === null) break;
    const k = state.rankOf(state.waiting[at]);
    const got = state.admit(now, budgets[k], taken[k] === 0, at);
    if (got === null) {
      openRanks[k] = false;
      continue;
    }
    chunks.push(got);
    budgets[k] -= got[1];
    taken[k] += 1;
  }
  return chunks;
}

// vLLM V1 and TensorRT-LLM: decodes first, then prefill chunks, in one step, within the token budget.
export class DecodeFirst {
  plan(state, now, admit) {
    state.makeRoomForDecode();
    const decode = state.decode_seqs > 0;
    const admitting = admit && !state.preempted_this_step;  // vLLM V1: `if not preempted_reqs`
    return makePlan(decode, fillChunks(state, now, state.rank_decodes.map((d) => state.rank_budget - d), admitting));
  }
}

// SGLang and ATOM: a prefill-only step whenever prompts can be admitted or a chunk continues.
export class PrefillFirst {
  plan(state, now, admit) {
    const chunks = fillChunks(state, now, new Array(state.ranks).fill(state.rank_budget), admit);
    if (chunks.length) return makePlan(false, chunks);
    state.makeRoomForDecode();
    return makePlan(state.decode_seqs > 0);
  }
}

export const POLICIES = { mixed: DecodeFirst, "prefill-first": PrefillFirst };
