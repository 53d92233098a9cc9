// Continuous batching (macros/engine/serving/scheduler.py): the waiting queue (FCFS), the running batch
// and the KV pool, the decode batch kept as aggregates; a policy (policies.js) chooses each step's work from it;
// running out of blocks preempts the newest sequence to recompute it later, unless the engine reserves its blocks
// up front; a step that preempts admits no waiting prompt, and under prefix caching a preempted sequence recomputes
// only the blocks it lost.
// Under attention data parallelism each rank (request id mod g) schedules its own sequences under its own budget.

import { causalPairs } from "../formulas/roofline.js";
import { heapPop, heapPush } from "./heap.js";
import { rankLimits } from "./profiles.js";
import { stepBatch } from "./types.js";

const EVER = 2 ** 60;  // "no limit" in steps (Python's 1 << 60)
const WAITING_SCAN = 256;  // how deep admission looks into the queue for a sequence of a rank that still schedules

// The causal pairs of a chunk of n prompt tokens after `prefilled` cached: [full-attention layer, windowed layer].
export function chunkPairs(prefilled, n, window) {
  const full = causalPairs(prefilled + n) - causalPairs(prefilled);
  return [full, window ? causalPairs(prefilled + n, window) - causalPairs(prefilled, window) : 0.0];
}

export const makePlan = (decode, chunks = []) => ({ decode, chunks });  // chunks: [[sequence, new tokens], ...]

export class Scheduler {
  constructor(profile, pool, window = 0, ranks = 1) {
    this.profile = profile;
    this.pool = pool;
    this.window = window;
    this.ranks = ranks;  // attention data-parallel ranks, each scheduling its own sequences
    this.rank_decodes = new Array(ranks).fill(0);
    [this.rank_budget, this.max_running] = rankLimits(profile, ranks);
    this.waiting = [];  // FCFS; a preempted sequence goes back to the front
    this.running = new Map();  // admission order -> sequence, in admission order
    this.prefilling = [];  // running, not yet decoding, admission order
    this.decode_seqs = 0;
    this.decode_context = 0;
    this.decode_steps = 0;
    this.preemptions = 0;
    this.preempted_this_step = false;
    this.allocated = 0.0;  // blocks the pool has handed out, in all (a decode step's counted at batch / block)
    this.finishes = [];  // heap of [decode step, order, sequence]
    this.admitted = 0;
    // Decoding sequences by their context's phase in a block, (context_from - decode_from) mod block_tokens: with
    // the aggregate context, the decode batch's exact blocks in O(block_tokens), not O(batch).
    this.phases = new Array(pool.block_tokens).fill(0);
  }

  rankOf(s) { return s.request.id % this.ranks; }

  phaseOf(s) {
    const bt = this.pool.block_tokens;
    return (((s.context_from - s.decode_from) % bt) + bt) % bt;
  }

  get reserves() { return this.profile.preemption === "reserve"; }

  generated(s) { return s.generated + (s.decoding ? this.decode_steps - s.decode_from : 0); }

  context(s) { return s.context_from + this.decode_steps - s.decode_from; }

  startDecoding(s) {
    s.decoding = true;
    s.decode_from = this.decode_steps;
    s.context_from = s.target + 1;
    this.decode_seqs += 1;
    this.rank_decodes[this.rankOf(s)] += 1;
    this.decode_context += s.context_from;
    this.phases[this.phaseOf(s)] += 1;
    if (!this.reserves) {  // its blocks join the decode aggregate, counted from its context
      this.pool.giveBack(s.blocks);
      s.blocks = 0;
    }
    heapPush(this.finishes, [this.decode_steps + s.request.output_tokens - s.generated, s.order, s]);
  }

  stopDecoding(s) {
    s.generated = this.generated(s);
    this.decode_seqs -= 1;
    this.rank_decodes[this.rankOf(s)] -= 1;
    this.decode_context -= this.context(s);
    this.phases[this.phaseOf(s)] -= 1;
    s.decoding = false;
  }

  stepsToNextFinish() {
    while (this.finishes.length && !this.finishes[0][2].decoding) heapPop(this.finishes);  // preempted since
    return this.finishes.length ? this.finishes[0][0] - this.decode_steps : 0;
  }

  // An upper bound on the decode batch's blocks `stepsAhead` steps on: ceil(context / block) <= that + 1.
  decodeBlocksBound(stepsAhead = 0) {
    if (this.reserves) return 0.0;
    return (this.decode_context + stepsAhead * this.decode_seqs) / this.pool.block_tokens + this.decode_seqs;
  }

  // Decode steps that surely fit the pool (by the bound); 0 means check exactly first.
  stepsWithinBlocks() {
    if (this.reserves || !this.decode_seqs) return EVER;
    const room = (this.pool.free - this.decode_seqs) * this.pool.block_tokens - this.decode_context;
    return Math.max(0, Math.floor(room / this.decode_seqs) + 1);
  }

  // The decode batch's blocks, sum of ceil(context / block): the contexts' sum plus each one's padding to a whole
  // block, (-context) mod block, which a sequence's phase and the step count give.
  decodeBlocksExact() {
    const bt = this.pool.block_tokens, d = this.decode_steps;
    let padding = 0;
    this.phases.forEach((n, phase) => {
      if (n) padding += n * ((((-(phase + d)) % bt) + bt) % bt);
    });
    return (this.decode_context + padding) / bt;
  }

  makeRoomForDecode() {
    if (this.reserves || this.pool.used + this.decodeBlocksBound() <= this.pool.blocks) return;
    let need = this.decodeBlocksExact();
    while (this.decode_seqs && this.pool.used + need > this.pool.blocks) {
      const newest = [...this.running.values()].at(-1);
      if (newest.decoding) need -= this.pool.blocksFor(this.context(newest));
      this.preempt(newest);
    }
  }

  // Free the sequence's KV and queue it first, to prefill its prompt and output so far again, but for what
  // the prefix cache still holds of it when it is readmitted (the pool hands its blocks out next, tail first).
  preempt(s) {
    let cached;
    if (s.decoding) {
      this.stopDecoding(s);
      cached = s.request.prompt_tokens + s.generated - 1;  // the last token's KV is not written yet
    } else {
      this.prefilling.splice(this.prefilling.indexOf(s), 1);
      cached = s.prefilled;
    }
    this.pool.giveBack(s.blocks);
    s.blocks = 0;
    s.prefilled = 0;
    s.target = s.request.prompt_tokens + s.generated;
    if (this.profile.prefix_caching) {
      s.cached_blocks = Math.floor(Math.min(cached, s.target - 1) / this.pool.block_tokens);  // full blocks only
      s.evicted_after = this.allocated;
    }
    this.preempted_this_step = true;
    s.preemptions += 1;
    this.preemptions += 1;
    this.running.delete(s.order);
    this.waiting.unshift(s);
  }

  // Blocks for the sequence's next chunk (at most `budget` tokens): the tokens granted, 0 if none.
  takeChunk(s, budget, alone) {
    let n = s.remainingPrefill;
    if (n > budget) {
      if (this.profile.chunked_prefill) n = budget;
      else if (!(alone && n > this.rank_budget)) return 0;
    }
    const total = this.reserves ? s.target + s.request.output_tokens - s.generated : s.prefilled + n;
    const need = this.pool.blocksFor(total) - s.blocks;
    if (n <= 0 || !this.pool.take(need)) return 0;
    s.blocks += need;
    this.allocated += need;
    return n;
  }

  // The queue position of the first waiting sequence whose rank still schedules this step (at most WAITING_SCAN deep).
  firstWaiting(openRanks) {
    const most = Math.min(this.waiting.length, WAITING_SCAN);
    for (let i = 0; i < most; i++) if (openRanks[this.rankOf(this.waiting[i])]) return i;
    return null;
  }

  // The chunk of the waiting sequence at queue position `at` (the head), if the cap, the budget and the pool allow.
  admit(now, budget, alone, at = 0) {
    if (!this.waiting.length || this.running.size >= this.max_running || budget <= 0) return null;
    const s = this.waiting[at];
    if (s.cached_blocks && !s.prefilled) {  // what the prefix cache still holds of it
      const lost = Math.max(0, Math.floor(this.allocated - s.evicted_after));
      s.prefilled = Math.min(Math.max(0, s.cached_blocks - lost) * this.pool.block_tokens, s.target - 1);
    }
    const n = this.takeChunk(s, budget, alone);
    if (!n) {
      s.prefilled = 0;
      return null;
    }
    s.cached_blocks = 0;
    this.waiting.splice(at, 1);
    this.admitted += 1;
    s.order = this.admitted;
    this.running.set(s.order, s);
    this.prefilling.push(s);
    if (s.admitted_s === null) s.admitted_s = now;
    return [s, n];
  }

  // The step's aggregates: the decode batch's, and each chunk's pairs after its cached prefix.
  batch(plan) {
    let pairs = 0.0, windowPairs = 0.0, prefix = 0.0, tokens = 0.0;
    const rankTokens = new Array(this.ranks).fill(0);
    for (const [s, n] of plan.chunks) {
      const [full, windowed] = chunkPairs(s.prefilled, n, this.window);
      pairs += full;
      windowPairs += windowed;
      prefix += s.prefilled;
      tokens += n;
      rankTokens[this.rankOf(s)] += n;
    }
    return stepBatch({ decode_seqs: plan.decode ? this.decode_seqs : 0, decode_context: plan.decode ? this.decode_context : 0,
      prefill_tokens: tokens, prefill_seqs: plan.chunks.length, prefill_pairs: pairs, prefill_window_pairs: windowPairs,
      prefill_prefix_tokens: prefix, prefill_rank_share: tokens ? Math.max(...rankTokens) / tokens : 1.0 });
  }

  // Apply `steps` identical steps of `plan` ending at endS; the sequences now done, in order.
  finishStep(plan, steps, endS) {
    this.preempted_this_step = false;
    if (plan.decode) {
      this.decode_steps += steps;
      this.decode_context += steps * this.decode_seqs;
      this.allocated += steps * this.decode_seqs / this.pool.block_tokens;
    }
    const done = [];
    for (const [s, n] of plan.chunks) {
      s.prefilled += n;
      if (s.prefilled < s.target) continue;
      this.prefilling.splice(this.prefilling.indexOf(s), 1);
      s.generated += 1;  // the prefill step samples a token
      if (s.first_token_s === null) s.first_token_s = endS;
      if (s.generated >= s.request.output_tokens) done.push(s);
      else this.startDecoding(s);
    }
    while (this.finishes.length && this.finishes[0][0] <= this.decode_steps) {
      const s = heapPop(this.finishes)[2];
      if (s.decoding) {
        this.stopDecoding(s);
        done.push(s);
      }
    }
    for (const s of done) {
      this.pool.giveBack(s.blocks);
      s.blocks = 0;
      this.running.delete(s.order);
    }
    return done;
  }
}
