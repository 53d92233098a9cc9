// Python's answer against the JavaScript's, recursively, for the twins' vector tests: the same keys and
// lengths, whole numbers and words equal (a whole number within REL, for one Python printed as a float),
// every other number within REL relative; Python's null stands for a NaN. `worst` is the largest relative
// disagreement seen, which the tests print.

import assert from "node:assert/strict";

export const REL = 1e-9;
export const seen = { worst: 0 };

export function agree(py, js, where) {
  if (py === null) {
    assert.ok(js === null || Number.isNaN(js), `${where}: Python null (NaN), JavaScript ${js}`);
  } else if (typeof py === "number" && !Number.isInteger(py)) {
    assert.equal(typeof js, "number", `${where}: JavaScript ${js}`);
    const rel = py === js ? 0 : Math.abs(py - js) / Math.max(Math.abs(py), Math.abs(js));
    seen.worst = Math.max(seen.worst, rel);
    assert.ok(rel <= REL, `${where}: Python ${py}, JavaScript ${js} (relative ${rel})`);
  } else if (typeof py === "number") {
    assert.ok(py === js || Math.abs(py - js) <= REL * Math.abs(py), `${where}: Python ${py}, JavaScript ${js}`);
  } else if (Array.isArray(py)) {
    assert.equal(js.length, py.length, `${where}: length`);
    py.forEach((x, i) => agree(x, js[i], `${where}[${i}]`));
  } else if (typeof py === "object") {
    assert.deepEqual(Object.keys(js).sort(), Object.keys(py).sort(), `${where}: keys`);
    for (const k of Object.keys(py)) agree(py[k], js[k], `${where}.${k}`);
  } else {
    assert.equal(js, py, where);
  }
}
