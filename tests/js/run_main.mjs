// Runs gpu_math.mjs's command line in one process, for tests/js/test_autoscale_twin.py: stdin a JSON list of
// argument lists, stdout one {code, stdout, stderr} per list, each what the command prints when a user runs it
// (main() is the command line's own entry point). One process for many days: Node starts once and warms once.
import { readFileSync } from "node:fs";

import { main } from "../../tools/gpu_math.mjs";

const results = JSON.parse(readFileSync(0, "utf8")).map((args) => {
  const out = [], err = [];
  const code = main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
});
process.stdout.write(JSON.stringify(results));
