// Engine profiles (macros/engine/serving/profiles.py): an engine's defaults from engines.toml (via the
// catalog, checked by the Python that exported it), overridden by the first launch table that matches
// the GPU, the model and the weights.

import { InputError, shown } from "../rules.js";

const SETTINGS = ["token_budget", "block_tokens", "max_running", "graph_max_batch", "policy", "chunked_prefill",
  "admission_interval_steps", "preemption", "kv", "memory_fraction", "prefix_caching", "dp_limits"];
const CAPS = ["max_running", "graph_max_batch"];
const CONCURRENCY = "concurrency";
const CHECKPOINT = "checkpoint";  // the checkpoint's own KV quantisation (TensorRT-LLM's "auto")
const QUANTISED_KV_CHECKPOINTS = ["fp8", "nvfp4"];  // ModelOpt's FP8 and NVFP4 checkpoints quantise the KV to FP8

const matches = (launch, gpu, model, weights) => [["gpus", gpu], ["models", model], ["weights", weights]]
  .every(([key, value]) => (launch[key] === undefined ? true : launch[key].includes(value)));

// A cap of "concurrency" is the run's concurrency (the engine's default for an open loop); an interval
// list takes the last pair whose concurrency the run reaches.
function resolveSetting(value, concurrency, fallback) {
  if (value === CONCURRENCY) return concurrency !== null ? concurrency : resolveSetting(fallback, null, fallback);
  if (Array.isArray(value)) {
    let steps = value[0][1];
    for (const [start, n] of value) if (concurrency !== null && concurrency >= start) steps = n;
    return steps;
  }
  return value;
}

export function profile(cat, engine, gpu, model, weights, concurrency = null) {
  const table = cat.serving.engines;
  if (!Object.prototype.hasOwnProperty.call(table, engine)) {
    throw new InputError(`unknown engine ${shown(engine)}. Valid: ${Object.keys(table).join(", ")}`);
  }
  const base = table[engine];
  const settings = {}, sources = {};
  for (const name of SETTINGS) {
    settings[name] = base[name];
    sources[name] = `${base.name} default: ${base.sources[name]}`;
  }
  const launch = (base.launch || []).find((t) => matches(t, gpu, model, weights));
  if (launch !== undefined) {
    for (const name of SETTINGS) {
      if (name in launch) { settings[name] = launch[name]; sources[name] = `InferenceMAX launch: ${launch.source}`; }
    }
  }
  for (const name of [...CAPS, "admission_interval_steps"]) settings[name] = resolveSetting(settings[name], concurrency, base[name]);
  if (settings.kv === CHECKPOINT) settings.kv = QUANTISED_KV_CHECKPOINTS.includes(weights) ? "fp8" : "bf16";
  return { engine, name: base.name, sources, ...settings };
}

// [one rank's token budget, the replica's running cap] with `ranks` attention data-parallel ranks (rank_limits).
export function rankLimits(p, ranks) {
  if (p.dp_limits === "divided") {
    return [Math.max(Math.floor(p.token_budget / ranks), 1), Math.max(Math.floor(p.max_running / ranks), 1) * ranks];
  }
  return [p.token_budget, p.max_running * ranks];
}

// The launch settings a command line may set, as simulate's flags name them, and the profile's field each sets.
export const LAUNCH_FLAGS = { max_batch: "max_running", token_budget: "token_budget", chunked_prefill: "chunked_prefill",
  kv_memory_fraction: "memory_fraction", graph_max_batch: "graph_max_batch" };

// The profile with the launch settings given (null: the engine's), each one's source saying so (launched).
export function launched(p, given) {
  const chosen = {};
  for (const [flag, field] of Object.entries(LAUNCH_FLAGS)) {
    if (given[flag] !== null && given[flag] !== undefined) chosen[field] = given[flag];
  }
  if (!Object.keys(chosen).length) return p;
  const sources = { ...p.sources };
  for (const field of Object.keys(chosen)) sources[field] = "given on the command line";
  return { ...p, sources, ...chosen };
}
