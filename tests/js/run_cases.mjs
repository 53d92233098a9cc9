// Runs many cases through the JavaScript engine in one process, for tests/js/test_twin.py:
// stdin {catalog, cases: [{scenario: {...}} | {plan: {...}} | {plan_all: {...}}]}, stdout one result or {error}
// per case (plan_all: every key plan --json prints).
import { readFileSync } from "node:fs";

import { InputError, scenario } from "../../docs/assets/javascripts/calculator/engine.js";
import { planAll } from "../../docs/assets/javascripts/calculator/plan_all.js";
import { plan } from "../../docs/assets/javascripts/calculator/planner.js";

const { catalog, cases } = JSON.parse(readFileSync(0, "utf8"));
const results = cases.map((c) => {
  try {
    if (c.plan_all) return planAll(catalog, c.plan_all).json;
    return c.scenario ? scenario(catalog, c.scenario) : plan(catalog, c.plan);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message };
  }
});
process.stdout.write(JSON.stringify(results));
