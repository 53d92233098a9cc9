// Everything `gpu_math.py plan FILE --json` prints (answer.js): the answer, the napkin's derivation (planner.js),
// the simulation (planner_simulated.js) and the fleet options (fleet_options.js). The one place the Node command
// line, the tests and the planner page get the whole plan from.

import { answer, keys } from "./answer.js";
import { run } from "../serving/run.js";

export const planKeys = (cat) => keys(cat.json_keys.plan, cat.json_keys.plan_simulated, cat.json_keys.plan_fleet);

// `input`: a workload's flat fields (readWorkload's, or a form's). `runner(cat, request)` gives a simulated run's
// statistics (serving/run.js's run, or a page's cache of it). Returns {json (every key, in plan --json's order),
// napkin, simulated, shapes, options}.
export const planAll = (cat, input, runner = run) => answer(cat, input, runner);
