// One simulated run of one replica under a workload, as `gpu_math.py simulate` asks for it
// (macros/engine/serving/run.py): the replica and the engine's profile from the catalog, the fitted
// parameters, the requests from the arrival process, and the statistics keyed as its --json.

import { lookup } from "../lookup.js";
import { checkLayout } from "../model/placement.js";
import { InputError } from "../rules.js";
import { ClosedLoop, Gamma, Offline, Poisson, arrivalsName } from "./arrivals.js";
import { bandFor, paramsFor } from "./calibration.js";
import { poolBlocks } from "./kv_blocks.js";
import { Fixed, RangeRatio } from "./lengths.js";
import { summarize } from "./metrics.js";
import { LAUNCH_FLAGS, launched, profile } from "./profiles.js";
import { adapterMix } from "./adapters.js";
import { buildReplica } from "./replica.js";
import { simulate, requestStream } from "./sim.js";

const STATS = ["ttft_s", "tpot_s", "itl_s", "e2e_s", "queue_s"];

// A run request with run.py's defaults: {model, gpu, gpus, input_tokens, output_tokens, engine, layout, ep,
// weights, kv, concurrency, rate_per_s, burstiness, trace, range_ratio, prefix_hit_rate, requests, seed,
// offline, and the launch: max_batch, token_budget, chunked_prefill, kv_memory_fraction, graph_max_batch; and
// the unmerged adapters: adapters (0: none), adapter_popularity, adapter_rank, adapter_slice_bytes}.
export function runRequest(o) {
  return { engine: "vllm", layout: "tp", ep: 1, weights: null, kv: null, concurrency: null, rate_per_s: null,
    burstiness: null, trace: null, range_ratio: 1.0, prefix_hit_rate: 0.0, requests: null, seed: 0, offline: null,
    max_batch: null, token_budget: null, chunked_prefill: null, kv_memory_fraction: null, graph_max_batch: null,
    adapters: 0, adapter_popularity: 0.0, adapter_rank: 0, adapter_slice_bytes: 0.0, ...o };
}

// The arrival process, how many requests to run, and how many lead in before the statistics.
function arrivalsFor(cat, q) {
  const n0 = cat.serving.run;
  if ([q.concurrency, q.rate_per_s, q.trace, q.offline].filter((x) => x !== null).length !== 1) {
    throw new InputError("give one of --concurrency, --rate, --trace or --offline");
  }
  // Throughput over the whole run, as the benchmark counts it: no warm-up left out.
  if (q.offline !== null) return [new Offline(q.offline), q.offline, 0];
  if (q.concurrency !== null) {
    const n = q.requests || Math.max(n0.requests_per_concurrency * q.concurrency, n0.min_closed_loop_requests);
    // The first wave (one request per slot, all sent at once) is the warm-up a steady state never sees.
    return [new ClosedLoop(q.concurrency), n, Math.min(q.concurrency, n - 1)];
  }
  if (q.trace !== null) {
    const n = Math.min(q.requests || q.trace.arrivals_s.length, q.trace.arrivals_s.length);
    return [q.trace, n, 0];
  }
  const n = q.requests || n0.open_loop_requests;
  const process = q.burstiness === null || q.burstiness === 1.0 ? new Poisson(q.rate_per_s) : new Gamma(q.rate_per_s, q.burstiness);
  return [process, n, Math.floor(n / 10)];  // the first tenth fills an empty replica
}

// JSON has no NaN or infinity: a statistic with no samples is null (run.py's _finite).
function finite(x) {
  if (x !== null && typeof x === "object" && !Array.isArray(x)) {
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, finite(v)]));
  }
  return typeof x === "number" && !Number.isFinite(x) ? null : x;
}

// Python's f"{x:.0f}": halves to even.
const wholeText = (x) => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x)).toFixed(0);

// The simulation itself, for a page that wants the records too: {result, summary, replica, profile, ...}.
export function simulateRun(cat, q) {
  const m = lookup("model", q.model, cat.models), g = lookup("GPU", q.gpu, cat.gpus);
  checkLayout(cat, q.layout);
  const weights = q.weights === null ? m.native_weights : q.weights;
  const [arrivals, n, warmup] = arrivalsFor(cat, q);
  const prof = launched(profile(cat, q.engine, q.gpu, q.model, weights, q.concurrency), q);
  const kv = q.kv || prof.kv;
  const mix = q.adapters ? adapterMix(q.adapters, q.adapter_popularity, q.adapter_rank, q.adapter_slice_bytes) : null;
  const replica = buildReplica(cat, q.model, q.gpu, q.gpus, q.layout, q.ep, weights, kv, mix);
  if (poolBlocks(replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens < q.input_tokens) {
    const share = q.gpus * replica.memory_bytes * prof.memory_fraction;
    throw new InputError(`${m.name} in ${weights} holds ${wholeText(replica.weight_bytes_held / 1e9)} GB of weights, `
      + `which leaves no room for one ${q.input_tokens}-token prompt's KV in the ${wholeText(share / 1e9)} GB `
      + `${prof.name} takes of ${q.gpus} x ${g.name}: use more --gpus`);
  }
  const params = paramsFor(cat, q.gpu, q.engine, replica.attention);
  const lengths = q.range_ratio === 1 ? [new Fixed(q.input_tokens), new Fixed(q.output_tokens)]
    : [new RangeRatio(q.input_tokens, q.range_ratio), new RangeRatio(q.output_tokens, q.range_ratio)];
  const result = simulate(replica, params, prof, requestStream(arrivals, ...lengths, n, q.seed, q.prefix_hit_rate),
    cat.serving.run.timeline_points);
  return { result, summary: summarize(result, warmup), replica, profile: prof, arrivals, weights, kv };
}

// The run's statistics, keyed as gpu_math.py simulate's --json (catalog json_keys.simulate; SI units).
export function run(cat, q) {
  q = runRequest(q);
  const { result, summary: s, profile: prof, arrivals, weights, kv } = simulateRun(cat, q);
  const [low, high, basis] = bandFor(cat, q.gpu);
  const out = {
    model: q.model, gpu: q.gpu, gpus: q.gpus, layout: q.layout, ep: q.ep, engine: q.engine,
    launch: Object.fromEntries(Object.entries(LAUNCH_FLAGS).map(([flag, field]) => [flag, prof[field]])),
    weights_dtype: weights, kv_dtype: kv, kv_dtype_source: q.kv ? "given with --kv" : prof.sources.kv,
    arrivals: arrivalsName(arrivals), input_tokens: q.input_tokens, output_tokens: q.output_tokens,
    prefix_hit_rate: q.prefix_hit_rate, ...Object.fromEntries(STATS.map((k) => [k, s[k]])),
    output_tokens_per_s_per_gpu: s.output_tokens_per_s / q.gpus,
    input_tokens_per_s_per_gpu: s.input_tokens_per_s / q.gpus, requests_per_s: s.requests_per_s,
    mean_batch: s.mean_batch, kv_occupancy: s.kv_occupancy, kv_blocks: result.kv_blocks,
    preemptions: s.preemptions, requests: s.requests, warmup_requests: s.warmup_requests, seed: q.seed,
    tpot_band: { low: s.tpot_s.p50 / high, high: s.tpot_s.p50 / low }, band_basis: basis,
  };
  return finite(Object.fromEntries(cat.json_keys.simulate.map((k) => [k, out[k]])));
}
