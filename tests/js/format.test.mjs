// format.js (the browser's number formatting) against the shared table tests/vectors/format.json, which
// fmt.py must also follow (tests/text/test_format_vectors.py). The steps come from fmt.RULES, as the
// site's catalog.json carries them. Run from pytest: tests/js/test_vectors_node.py.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";

import * as format from "../../docs/assets/javascripts/calculator/format.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { cases } = JSON.parse(readFileSync(join(ROOT, "tests", "vectors", "format.json"), "utf8"));
const F = JSON.parse(execFileSync(process.env.PYTHON || "python3",
  ["-c", "import json; from macros.text.fmt import RULES; print(json.dumps(RULES))"], { cwd: ROOT, encoding: "utf8" }));
const NAMES = { tokens_per_s: "tokensPerS", flops_rate: "flopsRate" };

for (const c of cases) {
  test(`${c.fn}(${c.x})`, () => {
    assert.equal(format[NAMES[c.fn] ?? c.fn](F, c.x, ...c.args), c.out, c.why);
  });
}
