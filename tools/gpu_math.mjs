#!/usr/bin/env node
// The calculator's Node twin: the same flags, the same --json keys, the same exit codes and the same
// error messages as gpu_math.py, computed by the JavaScript engine the site's calculator runs
// (docs/assets/javascripts/calculator/), so the JavaScript can be checked from the outside against the Python.
//
//   node tools/gpu_math.mjs --model llama-70b --gpu h100 --gpus 4 --json
//   node tools/gpu_math.mjs --config path/to/config.json --gpu h100 --json
//   node tools/gpu_math.mjs plan macros/data/designs/consumer-chat.toml [--variant fp8] --json   (1 to 9 s)
//   node tools/gpu_math.mjs autoscale macros/data/designs/autoscaler.toml --policy warm-pool [--signal kv]
//     [--reservation N] --json
//   node tools/gpu_math.mjs simulate --model gpt-oss-120b --gpu b200 --gpus 2 --input-tokens 1024 \
//       --output-tokens 1024 --concurrency 64 [--engine vllm] --json
//
// Node reads its inputs itself (tools/node_inputs.mjs): the catalog from tools/gpu_math_catalog.json, which
// tools/node_catalog.py writes from macros/data/ (refused, with the make target to run, when the data has
// changed since), a workload file with smol-toml (the JavaScript then checks it against the rules, as the
// browser's planner would), and a config.json with hf_config.js. Errors: one line on stderr, exit 2.

import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { autoscale } from "../docs/assets/javascripts/calculator/autoscale/run.js";
import { readRateTrace } from "../docs/assets/javascripts/calculator/autoscale/day.js";
import { POLICIES } from "../docs/assets/javascripts/calculator/autoscale/fluid.js";
import { SIGNALS } from "../docs/assets/javascripts/calculator/autoscale/signals.js";
import { planAll, planKeys } from "../docs/assets/javascripts/calculator/fleet/plan_all.js";
import { readWorkload } from "../docs/assets/javascripts/calculator/fleet/planner.js";
import { InputError, parseText } from "../docs/assets/javascripts/calculator/rules.js";
import { scenario } from "../docs/assets/javascripts/calculator/model/scenario.js";
import { pyFloat, pyInt, pyRepr, readTrace } from "../docs/assets/javascripts/calculator/serving/arrivals.js";
import { run } from "../docs/assets/javascripts/calculator/serving/run.js";
import { readCatalog, readConfig, readToml } from "./node_inputs.mjs";

const HERE = fileURLToPath(import.meta.url);

// argparse's errors: gpu_math.py prints them with "(see --help)".
class UsageError extends Error {}

let cached = null;
export function catalog() { return (cached ??= readCatalog()); }

// argv as argparse reads it (allow_abbrev off): an option takes the next argument as its value unless
// that looks like another option (a dash, not a negative number, no space); --flag=value works too;
// arguments nobody takes are reported together at the end.
// `lenient`: return [values, unrecognized] instead of refusing the unrecognized at once (argparse reports
// them after its other checks).
function parseArgs(argv, valued, switches, positionals, lenient = false) {
  const out = {}, extra = [], free = [];
  const looksLikeOption = (a) => a.length > 1 && a[0] === "-" && !/^-\d+$|^-\d*\.\d+$/.test(a) && !a.includes(" ");
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    if (switches.includes(a)) out[a] = true;
    else if (valued.includes(flag)) {
      if (eq > 0) { out[flag] = a.slice(eq + 1); continue; }
      if (i + 1 >= argv.length || looksLikeOption(argv[i + 1])) throw new UsageError(`argument ${flag}: expected one argument`);
      out[flag] = argv[++i];
    } else if (looksLikeOption(a)) extra.push(a);
    else free.push(a);
  }
  if (free.length < positionals.length) {
    throw new UsageError(`the following arguments are required: ${positionals.slice(free.length).join(", ")}`);
  }
  extra.push(...free.slice(positionals.length));
  if (lenient) return [out, extra];
  if (extra.length) throw new UsageError(`unrecognized arguments: ${extra.join(" ")}`);
  positionals.forEach((name, n) => { out[name] = free[n]; });
  return out;
}

function print(io, result, keys, json) {
  const picked = Object.fromEntries(keys.map((k) => [k, result[k]]));
  if (json) io.out(JSON.stringify(picked, null, 2));  // Infinity and NaN print as null: always valid JSON
  else for (const [k, v] of Object.entries(picked)) io.out(`${k.padEnd(32)} ${v}`);
}

function planMain(argv, io) {
  const a = parseArgs(argv, ["--variant"], ["--json", "--help"], ["file"]);
  // The napkin's answer, the simulated one beside it, and the fleet options (a plan that simulates takes seconds).
  print(io, planAll(catalog(), fileWorkload(a)).json, planKeys(catalog()), a["--json"]);
}

// A workload file's fields, or its variant's (gpu_math.py's common.workload).
function fileWorkload(a) {
  const raw = readToml(a.file), cat = catalog();
  const { workload: w, variants } = readWorkload(cat, raw.raw, raw.where);
  if (a["--variant"] === undefined) return w;
  if (!(a["--variant"] in variants)) {
    throw new InputError(`${a.file}: no [variants.${a["--variant"]}] (has: ${Object.keys(variants).join(", ") || "none"})`);
  }
  return variants[a["--variant"]];
}

function autoscaleMain(argv, io) {
  const a = parseArgs(argv, ["--variant", "--policy", "--signal", "--trace", "--reservation"], ["--json", "--help"],
    ["file"]);
  const choice = (flag, values) => {
    if (a[flag] !== undefined && !values.includes(a[flag])) {
      throw new UsageError(`argument ${flag}: invalid choice: ${pyRepr(a[flag])} (choose from ${values.map(pyRepr).join(", ")})`);
    }
  };
  if (a["--policy"] === undefined) throw new UsageError("the following arguments are required: --policy");
  choice("--policy", POLICIES);
  choice("--signal", SIGNALS);
  const w = fileWorkload(a);
  let trace = null;
  if (a["--trace"] !== undefined) {
    let text;
    try {
      text = readFileSync(a["--trace"], "utf8");
    } catch (e) {
      throw new InputError(`${a["--trace"]}: cannot read the trace: ${STRERROR[e.code] ?? e.code}`);
    }
    trace = readRateTrace(a["--trace"], text);
  }
  let reservation = null;
  if (a["--reservation"] !== undefined) {  // argparse's type=int: an optional sign and digits, spaces around
    if (!/^\s*[+-]?\d+\s*$/.test(a["--reservation"])) {
      throw new UsageError(`argument --reservation: invalid int value: ${pyRepr(a["--reservation"])}`);
    }
    reservation = Number.parseInt(a["--reservation"], 10);
  }
  const result = autoscale(catalog(), w, a["--policy"], a["--signal"] ?? "queue", trace, undefined, reservation).json;
  if (a["--json"]) io.out(JSON.stringify(result, null, 2));
  else for (const [k, v] of Object.entries(result)) if (k !== "timeline") io.out(`${k.padEnd(36)} ${v}`);
}

function scenarioMain(argv, io) {
  const cat = catalog(), fields = cat.rules.scenario.fields;
  const flags = Object.values(fields).map((r) => r.flag);
  const a = parseArgs(argv, [...flags, "--config"], ["--json", "--list", "--help"], []);
  if (a["--help"]) { io.out(`usage: gpu_math.mjs [${[...flags, "--config"].join(" X] [")} X] [--list] [--json]`); return; }
  if (a["--list"]) {
    const list = { models: Object.entries(cat.models).map(([key, m]) => ({ key, name: m.name })),
      gpus: Object.entries(cat.gpus).map(([key, g]) => ({ key, name: g.name })) };
    if (a["--json"]) io.out(JSON.stringify(list, null, 2));
    else for (const { key, name } of [...list.models, ...list.gpus]) io.out(`${key.padEnd(20)} ${name}`);
    return;
  }
  const values = {};  // gpu_math.py's flag_values: the table's order, each error naming its flag
  for (const [field, rule] of Object.entries(fields)) {
    if (a[rule.flag] === undefined) continue;
    const value = parseText(cat.rules, rule, a[rule.flag], rule.flag);
    values[field] = rule.scale === undefined ? value : value * rule.scale;
  }
  if (a["--config"] !== undefined && a["--model"] !== undefined) throw new UsageError("give --model or --config, not both");
  if (a["--config"] === undefined && a["--model"] === undefined) {
    throw new UsageError("--model is required (see --list for the keys), or --config PATH/config.json");
  }
  if (a["--gpu"] === undefined) throw new UsageError("--gpu is required (see --list for the keys)");
  if (a["--config"] !== undefined) values.model = readConfig(cat, a["--config"]);
  print(io, scenario(cat, values), cat.json_keys.scenario, a["--json"]);
}

// gpu_math.py simulate's argument types (_positive_int, _positive, _ratio, _seed): the value, or the message.
const POSITIVE_INT = "must be a positive whole number";
const SIMULATE_TYPES = {
  "--gpus": "int", "--ep": "int", "--input-tokens": "int", "--output-tokens": "int", "--concurrency": "int",
  "--requests": "int", "--rate": "positive", "--burstiness": "positive", "--range-ratio": "ratio", "--seed": "seed",
  "--prefix-hit-rate": "share", "--offline": "int", "--max-batch": "int", "--token-budget": "int",
  "--kv-memory-fraction": "ratio", "--graph-max-batch": "int", "--adapters": "int", "--adapter-popularity": "positive",
  "--adapter-rank": "int", "--adapter-slice-bytes": "positive",
};
function simulateValue(kind, text) {
  const got = `, got ${pyRepr(text)}`, t = text.trim();
  if (kind === "int") {
    const v = pyInt(t);
    if (v === null || v <= 0) throw new Error(POSITIVE_INT + got);
    return v;
  }
  if (kind === "seed") {
    const v = pyInt(t) === null ? null : BigInt(t.replaceAll("_", ""));
    if (v === null || v < 0n || v >= 2n ** 64n) throw new Error(`must be a whole number from 0 to 2^64 - 1${got}`);
    return v;
  }
  const v = pyFloat(t);
  if (v === null) throw new Error(`must be a number${got}`);
  if (!Number.isFinite(v)) throw new Error(`must be a finite number${got}`);
  if (kind === "positive" && !(v > 0)) throw new Error(`must be a positive number${got}`);
  if (kind === "ratio" && !(v > 0 && v <= 1)) throw new Error(`must be a number in (0, 1]${got}`);
  if (kind === "share" && !(v >= 0 && v <= 1)) throw new Error(`must be a number between 0 and 1${got}`);
  return v;
}

const SIMULATE_REQUIRED = ["--model", "--gpu", "--gpus", "--input-tokens", "--output-tokens"];
const LOAD = ["--concurrency", "--rate", "--trace", "--offline"];  // one of them, required
const LAUNCH = ["--max-batch", "--token-budget", "--chunked-prefill", "--kv-memory-fraction", "--graph-max-batch"];
const ADAPTERS = ["--adapters", "--adapter-popularity", "--adapter-rank", "--adapter-slice-bytes"];  // all or none
const SIMULATE_FLAGS = [...SIMULATE_REQUIRED, "--layout", "--ep", "--weights", "--kv", "--engine", "--range-ratio",
  "--prefix-hit-rate", ...LOAD, "--burstiness", ...LAUNCH, ...ADAPTERS, "--requests", "--seed"];

// A trace file as read_trace reads it, an unreadable one named with the operating system's words.
const STRERROR = { ENOENT: "No such file or directory", EACCES: "Permission denied", EISDIR: "Is a directory",
  ENOTDIR: "Not a directory" };
function traceFile(path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new InputError(`${path}: cannot read the trace: ${STRERROR[e.code] ?? e.code}`);
  }
  return readTrace(path, text);
}

function simulateMain(argv, io) {
  const [a, extra] = parseArgs(argv, SIMULATE_FLAGS, ["--json", "--help"], [], true);
  if (a["--help"]) { io.out(`usage: gpu_math.mjs simulate ${SIMULATE_FLAGS.map((x) => `[${x} X]`).join(" ")} [--json]`); return; }
  const v = {};
  let load = null;
  for (const flag of Object.keys(a)) {  // in the order given, as argparse converts and checks them
    if (LOAD.includes(flag)) {
      if (load !== null && load !== flag) throw new UsageError(`argument ${flag}: not allowed with argument ${load}`);
      load = flag;
    }
    const layouts = catalog().limits.layouts;
    if (flag === "--layout" && !layouts.includes(a[flag])) {
      throw new UsageError(`argument --layout: invalid choice: ${pyRepr(a[flag])} (choose from ${layouts.map(pyRepr).join(", ")})`);
    }
    if (flag === "--chunked-prefill" && !["on", "off"].includes(a[flag])) {
      throw new UsageError(`argument --chunked-prefill: invalid choice: ${pyRepr(a[flag])} (choose from 'on', 'off')`);
    }
    try {
      v[flag] = SIMULATE_TYPES[flag] ? simulateValue(SIMULATE_TYPES[flag], a[flag]) : a[flag];
    } catch (e) {
      throw new UsageError(`argument ${flag}: ${e.message}`);
    }
  }
  const missing = SIMULATE_REQUIRED.filter((flag) => v[flag] === undefined);
  if (missing.length) throw new UsageError(`the following arguments are required: ${missing.join(", ")}`);
  if (load === null) throw new UsageError(`one of the arguments ${LOAD.join(" ")} is required`);
  if (extra.length) throw new UsageError(`unrecognized arguments: ${extra.join(" ")}`);
  if (v["--burstiness"] !== undefined && v["--rate"] === undefined) throw new UsageError("--burstiness goes with --rate");
  const lora = ADAPTERS.filter((flag) => v[flag] !== undefined).length;
  if (lora && lora < ADAPTERS.length) {
    throw new UsageError(`${ADAPTERS.slice(0, -1).join(", ")} and ${ADAPTERS.at(-1)} go together`);
  }
  const given = (flag, fallback = null) => (v[flag] === undefined ? fallback : v[flag]);
  const trace = v["--trace"] === undefined ? null : traceFile(v["--trace"]);
  const result = run(catalog(), {
    model: v["--model"], gpu: v["--gpu"], gpus: v["--gpus"], input_tokens: v["--input-tokens"],
    output_tokens: v["--output-tokens"], engine: given("--engine", "vllm"), layout: given("--layout", "tp"),
    ep: given("--ep", 1), weights: given("--weights"), kv: given("--kv"), concurrency: given("--concurrency"),
    rate_per_s: given("--rate"), burstiness: given("--burstiness"), trace, range_ratio: given("--range-ratio", 1.0),
    requests: given("--requests"), seed: given("--seed", 0n), prefix_hit_rate: given("--prefix-hit-rate", 0.0),
    offline: given("--offline"), max_batch: given("--max-batch"), token_budget: given("--token-budget"),
    chunked_prefill: v["--chunked-prefill"] === undefined ? null : v["--chunked-prefill"] === "on",
    kv_memory_fraction: given("--kv-memory-fraction"), graph_max_batch: given("--graph-max-batch"),
    ...(lora ? { adapters: v["--adapters"], adapter_popularity: v["--adapter-popularity"],
      adapter_rank: v["--adapter-rank"], adapter_slice_bytes: v["--adapter-slice-bytes"] } : {}),
  });
  // A seed past 2^53 is printed whole, as Python prints it: JSON.stringify cannot write a BigInt.
  const seed = result.seed;
  result.seed = "@@seed@@";
  const text = JSON.stringify(result, null, 2).replace('"@@seed@@"', String(seed));
  if (a["--json"]) io.out(text);
  else for (const [k, x] of Object.entries(result)) io.out(`${k.padEnd(28)} ${k === "seed" ? seed : JSON.stringify(x)}`);
}

// Runs the command line; returns the exit code. `io.out` and `io.err` each take one line.
export function main(argv, io = { out: (s) => console.log(s), err: (s) => console.error(s) }) {
  const prog = ["plan", "simulate", "autoscale"].includes(argv[0]) ? `gpu_math.mjs ${argv[0]}` : "gpu_math.mjs";
  try {
    if (argv[0] === "plan") planMain(argv.slice(1), io);
    else if (argv[0] === "simulate") simulateMain(argv.slice(1), io);
    else if (argv[0] === "autoscale") autoscaleMain(argv.slice(1), io);
    else scenarioMain(argv, io);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) io.err(`${prog}: error: ${e.message} (see --help)`);
    else if (e instanceof InputError) io.err(`${prog}: error: ${e.message}`);
    else throw e;
    return 2;
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(HERE)) process.exitCode = main(process.argv.slice(2));
