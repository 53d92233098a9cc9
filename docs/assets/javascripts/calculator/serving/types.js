// The nouns the simulator passes around (macros/engine/serving/types.py), as plain objects: a request,
// a sequence in the engine (the scheduler's mutable view of a request in flight), the batch of one step,
// and a finished request's record.

export function request(id, arrivalS, promptTokens, outputTokens, cachedTokens = 0) {
  return { id, arrival_s: arrivalS, prompt_tokens: promptTokens, output_tokens: outputTokens, cached_tokens: cachedTokens };
}

export class Sequence {
  constructor(req, queuedS, order, target = 0, prefilled = 0) {
    this.request = req;
    this.queued_s = queuedS;
    this.order = order;  // admission order: preemption takes the newest first
    this.target = target;  // tokens to prefill
    this.prefilled = prefilled;  // of them, in the KV cache
    this.generated = 0;  // output tokens, as of decode_from
    this.blocks = 0;  // KV blocks held outside the decode aggregate
    this.decoding = false;
    this.decode_from = 0;
    this.context_from = 0;
    this.admitted_s = null;
    this.first_token_s = null;
    this.preemptions = 0;
    this.cached_blocks = 0;  // after a preemption under prefix caching: its full blocks, in the cache until reused
    this.evicted_after = 0.0;  // the pool's blocks handed out, in all, when they were freed
  }

  get remainingPrefill() { return this.target - this.prefilled; }
}

// One step's aggregates; the fields a caller leaves out are 0 (the busiest rank's share of the prefill, 1).
export function stepBatch(o = {}) {
  return { decode_seqs: 0, decode_context: 0, prefill_tokens: 0, prefill_seqs: 0, prefill_pairs: 0,
    prefill_window_pairs: 0, prefill_prefix_tokens: 0, prefill_rank_share: 1.0, ...o };
}

export function requestRecord(id, arrivalS, promptTokens, outputTokens, ttftS, e2eS, queueS, preemptions) {
  return { id, arrival_s: arrivalS, prompt_tokens: promptTokens, output_tokens: outputTokens, ttft_s: ttftS,
    e2e_s: e2eS, queue_s: queueS, preemptions };
}

// (E2E - TTFT) / (output - 1), as the benchmark client computes it; 0 for one-token outputs.
export const tpotS = (r) => (r.output_tokens > 1 ? (r.e2e_s - r.ttft_s) / (r.output_tokens - 1) : 0.0);
