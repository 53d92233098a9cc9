// Runs many `gpu_math.mjs simulate` command lines in one Node process, for tests/js/test_simulate_twin.py:
// stdin a JSON list of argument lists, stdout [{code, out, err}] per list, as the command line prints them.
import { readFileSync } from "node:fs";

import { main } from "../../tools/gpu_math.mjs";

const results = JSON.parse(readFileSync(0, "utf8")).map((argv) => {
  const out = [], err = [];
  const code = main(["simulate", ...argv], { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join("\n"), err: err.join("\n") };
});
process.stdout.write(JSON.stringify(results));
