// Runs many cases through the JavaScript engine in one process, for tests/js/test_twin.py:
// stdin {catalog, cases: [{scenario: {...}} | {plan: {...}}]}, stdout one result or {error} per case.
import { readFileSync } from "node:fs";

import { InputError } from "../../docs/assets/javascripts/calculator/rules.js";
import { scenario } from "../../docs/assets/javascripts/calculator/scenario.js";
import { plan } from "../../docs/assets/javascripts/calculator/planner.js";

const { catalog, cases } = JSON.parse(readFileSync(0, "utf8"));
const results = cases.map((c) => {
  try {
    return c.scenario ? scenario(catalog, c.scenario) : plan(catalog, c.plan);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message };
  }
});
process.stdout.write(JSON.stringify(results));
