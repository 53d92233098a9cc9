// Runs whole plans through the JavaScript engine in one process, for tests/js/test_twin.py:
// stdin {catalog, cases: [{plan_all: {...}}], runs?}, stdout one result (every key plan --json prints) or {error}
// per case. With `runs` ([request, statistics] pairs: the runs Python's plans made), the plans read those
// statistics instead of simulating, and a run Python never made is an error naming its request: the plans'
// searches are then checked without the JavaScript simulator, which the run without `runs` checks too.
import { readFileSync } from "node:fs";

import { planAll } from "../../docs/assets/javascripts/calculator/fleet/plan_all.js";
import { run } from "../../docs/assets/javascripts/calculator/serving/run.js";
import { InputError } from "../../docs/assets/javascripts/calculator/rules.js";

const { catalog, cases, runs } = JSON.parse(readFileSync(0, "utf8"));
// A request's fields in a fixed order, each as JSON reads it (Python's 1.0 and JavaScript's 1 are one key).
const keyOf = (q) => JSON.stringify(Object.keys(q).sort().map((k) => [k, q[k]]));
const made = runs === undefined ? null : new Map(runs.map(([q, stats]) => [keyOf(q), stats]));
const fromPython = (cat, q) => {
  const stats = made.get(keyOf(q));
  if (stats === undefined) throw new Error(`the JavaScript plan asked for a run Python's did not: ${keyOf(q)}`);
  return stats;
};
const results = cases.map((c) => {
  try {
    return planAll(catalog, c.plan_all, made === null ? run : fromPython).json;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message };
  }
});
process.stdout.write(JSON.stringify(results));
