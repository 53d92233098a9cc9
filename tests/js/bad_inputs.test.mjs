// The shared table of bad inputs (tests/vectors/bad_inputs.json), read by Node's test runner, as
// tests/test_bad_inputs.py reads it for Python: each case gives exit code 2 and one line, and that line
// is the case's message, the same words Python prints. Run from pytest (tests/js/test_bad_inputs_node.py):
//   node --test tests/js/bad_inputs.test.mjs
//
// Command-line, workload and config cases run the Node twin's main() (tools/gpu_math.mjs); data-file cases
// check the edited file's entries with rules.js (the checks the browser applies to a custom model or GPU);
// scenario and workload cases call the JavaScript engine as the calculator and planner pages do.

import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import test, { after } from "node:test";
import { fileURLToPath } from "node:url";

import { InputError } from "../../docs/assets/javascripts/calculator/rules.js";
import { scenario } from "../../docs/assets/javascripts/calculator/model/scenario.js";
import { workload } from "../../docs/assets/javascripts/calculator/fleet/planner.js";
import { RuleError, checkEntry, shown } from "../../docs/assets/javascripts/calculator/rules.js";
import { catalog, main } from "../../tools/gpu_math.mjs";
import { readToml } from "../../tools/node_inputs.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { cases } = JSON.parse(readFileSync(join(ROOT, "tests", "vectors", "bad_inputs.json"), "utf8"));
const FLOATS = { nan: NaN, inf: Infinity, "-inf": -Infinity };
const SETS = { "gpus.toml": "gpu", "models.toml": "model", "precisions.toml": "precision", "prices.toml": "price",
  "claims.toml": "claim", "measurements.toml": "measurement" };

const decode = (v) => (v !== null && typeof v === "object" && !Array.isArray(v)
  ? ("$float" in v ? FLOATS[v.$float] : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]))) : v);

// The file a plan or config case reads (tests/test_bad_inputs.py's make_file).
function makeFile(c, folder) {
  const path = join(folder, c.kind === "plan" ? "w.toml" : "config.json");
  if (c.directory) mkdirSync(path);
  else if (c.hex !== undefined) writeFileSync(path, Buffer.from(c.hex, "hex"));
  else if (c.toml !== undefined || c.text !== undefined) writeFileSync(path, c.toml ?? c.text);
  else if (c.base !== undefined) {
    const config = JSON.parse(readFileSync(join(ROOT, "tests", "engine", "fixtures", "configs", `${c.base}.json`), "utf8"));
    for (const name of Object.keys(c.set)) config[name] = `@@${name}@@`;
    let text = JSON.stringify(config);
    for (const [name, value] of Object.entries(c.set)) text = text.replace(`"@@${name}@@"`, value);
    writeFileSync(path, text);
  }
  return path;
}

function argv(c, path) {
  if (c.kind === "plan") return ["plan", path, ...(c.args || [])];
  if (c.kind === "config") return ["--config", path, "--gpu", "h100"];
  return c.args;
}

function checkMessage(c, text, path) {
  if (c.message !== undefined) assert.equal(text, c.names_file ? `${path}: ${c.message}` : c.message);
  else for (const part of c.parts) assert.ok(text.includes(part), `${JSON.stringify(part)} missing from ${JSON.stringify(text)}`);
}

// A copy of macros/data with the case's one edit (without the simulations' memo, which no case reads: 12 MB
// copied per case was most of this file's time); returns the edited file.
const MEMO = join(ROOT, "macros", "data", "simulated");
function editData(c, folder) {
  cpSync(join(ROOT, "macros", "data"), join(folder, "data"), { recursive: true, filter: (src) => src !== MEMO });
  const file = join(folder, "data", c.file), [old, next] = c.replace;
  const text = readFileSync(file, "utf8");
  assert.ok(text.includes(old), `${JSON.stringify(old)} is not in ${c.file}: the vector needs updating`);
  writeFileSync(file, text.replace(old, next));
  return file;
}

// A data file's entries checked as specs.py checks them: the message Python's loader raises.
function loadData(c, file) {
  const { where, raw } = readToml(file), R = catalog().rules;
  for (const [key, entry] of Object.entries(raw)) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw new InputError(`${where}: [${key}] must be a table, got ${shown(entry)}`);
    }
    try {
      checkEntry(R, SETS[c.file], entry);
    } catch (e) {
      if (!(e instanceof RuleError)) throw e;
      throw new InputError(`${where}: [${key}] ${e.message}`);
    }
  }
}

function refused(run) {
  try { run(); } catch (e) { if (e instanceof InputError) return e.message; throw e; }
  return assert.fail("no error");
}

// Every case's file, made before the tests run in one temporary folder, removed after them.
const scratch = mkdtempSync(join(tmpdir(), "bad-inputs-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const paths = cases.map((c, n) => {
  const folder = join(scratch, String(n));
  mkdirSync(folder);
  if (c.kind === "data") return editData(c, folder);
  return c.kind === "plan" || c.kind === "config" ? makeFile(c, folder) : null;
});
cases.forEach((c, n) => {
  test(c.name, () => {
    const path = paths[n];
    if (["cli", "plan", "config"].includes(c.kind)) {
      const out = [], err = [];
      const code = main(argv(c, path), { out: (s) => out.push(s), err: (s) => err.push(s) });
      assert.equal(code, c.exit);
      assert.deepEqual(out, []);
      assert.equal(err.length, 1);
      assert.ok(!err[0].includes("\n"), err[0]);
      const match = /^(gpu_math\.mjs(?: plan)?): error: (.*)$/.exec(err[0]);
      assert.ok(match, err[0]);
      checkMessage(c, match[2], path);
    } else if (c.kind === "data") {
      checkMessage(c, refused(() => loadData(c, path)), path);
    } else if (c.kind === "scenario") {
      checkMessage(c, refused(() => scenario(catalog(), decode(c.input))), null);
    } else {
      assert.equal(c.kind, "workload");
      checkMessage(c, refused(() => workload(catalog(), decode(c.input))), null);
    }
  });
});

test("--json output has null where a figure does not exist", () => {
  const out = [];
  assert.equal(main(["--model", "llama-70b", "--gpu", "h100", "--price", "1e308", "--json"], { out: (s) => out.push(s), err: () => {} }), 0);
  const json = JSON.parse(out.join("\n"));
  assert.equal(json.price_per_gpu_hour, 1e308);
  assert.equal(json.cost_per_million_tokens, null);
});
