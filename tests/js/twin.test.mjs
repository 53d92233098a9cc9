// The engine's JavaScript twin (docs/assets/javascripts/calculator/: scenario.js, planner.js and the modules they
// import) against the Python's answers (tests/vectors/twin.json, written by tools/twin_vectors.py; pytest
// checks that file against the Python in tests/js/test_twin.py): every figure within 1e-9 relative (whole
// numbers below 2^31, the counts, exactly), every refusal in the same words. Run from pytest
// (tests/js/test_vectors_node.py), or: node --test tests/js/twin.test.mjs

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";

import { plan } from "../../docs/assets/javascripts/calculator/fleet/planner.js";
import { InputError } from "../../docs/assets/javascripts/calculator/rules.js";
import { scenario } from "../../docs/assets/javascripts/calculator/model/scenario.js";
import { catalog } from "../../tools/gpu_math.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const vectors = JSON.parse(readFileSync(join(ROOT, "tests", "vectors", "twin.json"), "utf8"));

function same(want, got, where) {
  if (typeof want === "number" && typeof got === "number") {
    if (Number.isInteger(want) && Number.isInteger(got) && Math.abs(want) < 2 ** 31) assert.equal(got, want, where);
    else assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(Math.abs(want), Math.abs(got)) + 1e-300,
      `${where}: Python ${want}, JavaScript ${got}`);
  } else {
    assert.deepEqual(got, want, where);
  }
}

function check(run, keys, want, where) {
  let got;
  try {
    got = run();
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    assert.ok(!Array.isArray(want), `${where}: JavaScript refused (${e.message}), Python gave figures`);
    assert.equal(e.message, want.error, where);
    return;
  }
  assert.ok(Array.isArray(want), `${where}: Python refused (${want.error}), JavaScript gave figures`);
  keys.forEach((key, n) => same(want[n], got[key], `${where}: ${key}`));
}

vectors.scenarios.forEach((c, n) => {
  test(`scenario ${n}`, () => check(() => scenario(catalog(), c.input), vectors.scenario_keys, c.output,
    `scenario ${n} ${JSON.stringify(c.input)}`));
});

vectors.plans.forEach((c, n) => {
  test(`plan ${n}: ${c.input.name}`, () => check(() => plan(catalog(), c.input), vectors.plan_keys, c.output,
    `plan ${n} (${c.input.name})`));
});
