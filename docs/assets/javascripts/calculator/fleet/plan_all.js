// Everything `gpu_math.py plan FILE --json` prints, joined as its plan_main joins it: the napkin's fleet
// (planner.js), the simulated answer beside it (planner_simulated.js) and the fleet options (fleet_options.js).
// The one place the Node command line, the tests and the planner page get the whole plan from.

import { options, optionsJson } from "./fleet_options.js";
import { plan, workload } from "./planner.js";
import { simulatedJson, simulatedPlan } from "./planner_simulated.js";
import { run } from "../serving/run.js";

export const planKeys = (cat) => [...cat.json_keys.plan, ...cat.json_keys.plan_simulated, ...cat.json_keys.plan_fleet];

// `input`: a workload's flat fields (readWorkload's, or a form's). `runner(cat, request)` gives a simulated run's
// statistics (serving/run.js's run, or a page's cache of it). Returns {json (every key, in plan --json's order),
// napkin, simulated, options}.
export function planAll(cat, input, runner = run) {
  const napkin = plan(cat, input), full = workload(cat, input);
  const simulated = simulatedPlan(cat, full, napkin, runner), extra = options(cat, full, napkin);
  const joined = { ...napkin, ...simulatedJson(cat, simulated), ...optionsJson(cat, extra) };
  return { json: Object.fromEntries(planKeys(cat).map((k) => [k, joined[k]])), napkin, simulated, options: extra };
}
