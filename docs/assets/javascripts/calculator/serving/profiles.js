// Engine profiles (macros/engine/serving/profiles.py): an engine's defaults from engines.toml (via the
// catalog, checked by the Python that exported it), overridden by the first launch table that matches
// the GPU, the model and the weights.

import { InputError, shown } from "../rules.js";

const SETTINGS = ["token_budget", "block_tokens", "max_running", "graph_max_batch", "policy", "chunked_prefill",
  "admission_interval_steps", "preemption", "kv", "memory_fraction"];
const CAPS = ["max_running", "graph_max_batch"];
const CONCURRENCY = "concurrency";

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
  return { engine, name: base.name, sources, ...settings };
}
