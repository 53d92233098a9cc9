// Runs whole plans through the JavaScript engine in one process, for tests/js/test_twin.py:
// stdin {catalog, cases: [{plan_all: {...}}]}, stdout one result (every key plan --json prints) or {error} per case.
import { readFileSync } from "node:fs";

import { planAll } from "../../docs/assets/javascripts/calculator/fleet/plan_all.js";
import { InputError } from "../../docs/assets/javascripts/calculator/rules.js";

const { catalog, cases } = JSON.parse(readFileSync(0, "utf8"));
const results = cases.map((c) => {
  try {
    return planAll(catalog, c.plan_all).json;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message };
  }
});
process.stdout.write(JSON.stringify(results));
