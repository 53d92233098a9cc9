// The event loop (macros/engine/serving/sim.py): one replica serving a stream of requests, step by step,
// as continuous batching runs it; a stretch of identical decode steps is taken in one turn.

import { InputError } from "../rules.js";
import { ClosedLoop, requests } from "./arrivals.js";
import { apiLatencyS } from "./calibration.js";
import { heapPop, heapPush } from "./heap.js";
import { KvPool, poolBlocks } from "./kv_blocks.js";
import { POLICIES } from "./policies.js";
import { Rng } from "./prng.js";
import { ranksOf } from "./replica.js";
import { Scheduler } from "./scheduler.js";
import { costs, decodeRunS, decodeStepsUntil, stepTimeS } from "./step.js";
import { Sequence, request, requestRecord } from "./types.js";

// A workload the replica cannot serve at all (a request that can never fit its KV pool).
export class SimulationError extends InputError {}

// workload: {arrivals, prompt, output, requests, seed, prefix_hit_rate}
export const requestStream = (arrivals, prompt, output, count, seed = 0, prefixHitRate = 0.0) => ({
  arrivals, prompt, output, requests: count, seed, prefix_hit_rate: prefixHitRate });

function thin(points, most) {
  if (points.length <= most) return points;
  const stride = points.length / most;
  return Array.from({ length: most }, (_, i) => points[Math.trunc(i * stride)]);
}

const count = (n) => n.toLocaleString("en");

// timelinePoints: catalog serving.run.timeline_points (sim.TIMELINE_POINTS).
export function simulate(r, p, profile, w, timelinePoints = 1000) {
  const c = costs(r, p);
  const pool = new KvPool(poolBlocks(r, profile.memory_fraction, profile.block_tokens), profile.block_tokens);
  const state = new Scheduler(profile, pool, r.window, ranksOf(r));
  const policy = new POLICIES[profile.policy]();
  const todo = requests(w.arrivals, w.prompt, w.output, w.requests, new Rng(w.seed), w.prefix_hit_rate);
  const closed = w.arrivals instanceof ClosedLoop;
  let pending, later;
  if (closed) {
    pending = todo.slice(0, w.arrivals.concurrency);
    later = todo.slice(w.arrivals.concurrency);
  } else {
    pending = todo.slice();
    later = [];
  }
  let pendingHead = 0, laterHead = 0;  // the deques' fronts
  const sent = [];  // heap of [when it reaches the scheduler, id, request]
  let now = 0.0, area = 0.0, busy = 0.0, batchArea = 0.0, kvArea = 0.0;
  let inSystem = 0, steps = 0, lastDecodeEnd = 0.0;
  const records = [], timeline = [], itl = [];
  // The API server's queue and own work (one request at a time, in the order they are sent), its latency and
  // its time per prompt token.
  let apiFree = 0.0;
  const reaches = (q) => {
    const start = Math.max(apiFree, q.arrival_s);  // it waits for the requests sent before it
    apiFree = start + p.api_request_s;
    return start + apiLatencyS(p, q.prompt_tokens);
  };
  const every = profile.admission_interval_steps;

  for (;;) {
    while (pendingHead < pending.length && pending[pendingHead].arrival_s <= now) {
      const q = pending[pendingHead++];
      area += now - q.arrival_s;  // it has been in the system since it was sent
      inSystem += 1;
      heapPush(sent, [reaches(q), q.id, q]);
    }
    while (sent.length && sent[0][0] <= now) {
      const [at, , q] = heapPop(sent);
      state.waiting.push(new Sequence(q, at, 0, q.prompt_tokens, q.cached_tokens));
    }
    // The next moment something reaches the scheduler, or is sent and so starts on its way there.
    const heads = [...(sent.length ? [sent[0][0]] : []), ...(pendingHead < pending.length ? [pending[pendingHead].arrival_s] : [])];
    const nextVisible = heads.length ? Math.min(...heads) : null;
    if (!state.running.size && !state.waiting.length) {
      if (nextVisible === null) break;
      area += inSystem * (nextVisible - now);
      now = lastDecodeEnd = nextVisible;  // an idle spell is no gap between any stream's tokens
      continue;
    }
    const plan = policy.plan(state, now, !state.running.size || steps % every === 0);
    if (!plan.decode && !plan.chunks.length) {  // nothing runs, and nothing frees memory to change that
      const head = (state.waiting.length ? state.waiting[0] : state.running.values().next().value).request;
      throw new SimulationError(`request ${head.id} (${count(head.prompt_tokens)} prompt tokens) cannot fit the `
        + `replica's KV pool of ${count(pool.blocks)} blocks of ${pool.block_tokens} tokens`);
    }
    const nDec = plan.decode ? state.decode_seqs : 0;
    const graphed = !plan.chunks.length && nDec <= profile.graph_max_batch;
    let k, dt;
    if (plan.chunks.length) {
      k = 1;
      dt = stepTimeS(c, state.batch(plan), graphed);
    } else {
      k = state.stepsToNextFinish();
      if (state.waiting.length && state.running.size < state.max_running) k = Math.min(k, every - steps % every);
      k = Math.max(1, Math.min(k, state.stepsWithinBlocks()));
      if (nextVisible !== null) k = decodeStepsUntil(c, nDec, state.decode_context, k, nextVisible - now, graphed);
      dt = decodeRunS(c, nDec, state.decode_context, k, graphed);
    }
    const served = nDec + plan.chunks.length;
    const occupancy = state.reserves ? pool.occupancy
      : Math.min(1.0, (pool.used + state.decodeBlocksBound() - nDec / 2) / Math.max(pool.blocks, 1));
    timeline.push([now, state.running.size, occupancy, state.waiting.length]);
    area += inSystem * dt;
    busy += dt;
    batchArea += served * dt;
    kvArea += occupancy * dt;
    now += dt;
    steps += k;
    if (plan.decode) {
      // k - 1 gaps of one step; the first reaches back to the last decode step (or to when an idle replica woke)
      itl.push([now - dt - lastDecodeEnd + dt / k, nDec]);
      if (k > 1) itl.push([dt / k, (k - 1) * nDec]);
      lastDecodeEnd = now;
    }
    for (const s of state.finishStep(plan, k, now)) {
      const q = s.request;
      records.push(requestRecord(q.id, q.arrival_s, q.prompt_tokens, q.output_tokens, s.first_token_s - q.arrival_s,
        now - q.arrival_s, s.admitted_s - q.arrival_s, s.preemptions));
      inSystem -= 1;
      if (closed && laterHead < later.length) {
        const nxt = later[laterHead++];
        pending.push(request(nxt.id, now, nxt.prompt_tokens, nxt.output_tokens, nxt.cached_tokens));
      }
    }
  }
  return { records, duration_s: now, steps, preemptions: state.preemptions, in_system_area: area, busy_s: busy,
    batch_area: batchArea, kv_area: kvArea, kv_blocks: pool.blocks, timeline: thin(timeline, timelinePoints), itl };
}
