#!/usr/bin/env node
// The calculator's Node twin: the same flags and the same --json keys as gpu_math.py, computed by
// the JavaScript engine the site's calculator runs (docs/assets/javascripts/calculator/), so the
// JavaScript can be checked from the outside against the Python.
//
//   node tools/gpu_math.mjs --model llama-70b --gpu h100 --gpus 4 --json
//   node tools/gpu_math.mjs plan macros/data/designs/consumer-chat.toml [--variant fp8] --json
//
// The catalog comes from macros/data/ through `python3 -m macros.engine.export` (set PYTHON to use
// another interpreter), as the site's build exports it, with the --json keys to print: nothing is
// typed twice. A workload file is
// read and checked the same way. Errors: one line on stderr, exit 2.

import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { InputError, scenario } from "../docs/assets/javascripts/calculator/engine.js";
import { plan } from "../docs/assets/javascripts/calculator/planner.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const FLAGS = { "--model": "model", "--gpu": "gpu", "--gpus": "gpus", "--seq-len": "seq_len", "--batch": "batch",
  "--weights": "weights", "--kv": "kv", "--layout": "layout", "--price": "price", "--efficiency": "efficiency",
  "--reserve": "reserve" };
const INTEGER = new Set(["gpus", "seq_len", "batch"]);
const NUMBER = new Set(["price", "efficiency", "reserve"]);

class UsageError extends Error {}

function python(args) {
  try {
    return JSON.parse(execFileSync(process.env.PYTHON || "python3", ["-m", "macros.engine.export", ...args],
      { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  } catch (e) {
    throw new InputError((e.stderr || e.message).trim().replace(/^error: /, ""));
  }
}

function parse(argv) {
  const out = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--json") { out.json = true; continue; }
    if (!(flag in FLAGS)) throw new UsageError(`unrecognised argument ${flag}`);
    const name = FLAGS[flag], text = argv[++i];
    if (text === undefined) throw new UsageError(`argument ${flag}: expected one argument`);
    if (INTEGER.has(name)) {
      if (!/^\d+$/.test(text) || Number(text) <= 0) {
        throw new UsageError(`argument ${flag}: must be a positive whole number, got '${text}'`);
      }
      out[name] = Number(text);
    } else if (NUMBER.has(name)) {
      if (text.trim() === "" || Number.isNaN(Number(text))) throw new UsageError(`argument ${flag}: must be a number, got '${text}'`);
      out[name] = Number(text);
    } else out[name] = text;
  }
  return out;
}

function print(result, keys, json) {
  const picked = Object.fromEntries(keys.map((k) => [k, result[k]]));
  if (json) console.log(JSON.stringify(picked, null, 2));
  else for (const [k, v] of Object.entries(picked)) console.log(`${k.padEnd(32)} ${v}`);
}

function main(argv) {
  if (argv[0] === "plan") {
    const rest = argv.slice(1), json = rest.includes("--json");
    const args = rest.filter((a) => a !== "--json");
    if (args.length !== 1 && !(args.length === 3 && args[1] === "--variant")) {
      throw new UsageError("usage: plan FILE [--variant NAME] [--json]");
    }
    const w = python(["--workload", ...args]);
    const cat = python([]);
    print(plan(cat, w), cat.json_keys.plan, json);
    return;
  }
  const a = parse(argv);
  if (!a.model) throw new UsageError("--model is required (see gpu_math.py --list for the keys)");
  if (!a.gpu) throw new UsageError("--gpu is required (see gpu_math.py --list for the keys)");
  const cat = python([]);
  const s = scenario(cat, { ...a, reserve_bytes: a.reserve === undefined ? undefined : a.reserve * 1e9 });
  print(s, cat.json_keys.scenario, a.json);
}

try {
  main(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof InputError || e instanceof UsageError)) throw e;
  console.error(`gpu_math.mjs: error: ${e.message}`);
  process.exit(2);
}
