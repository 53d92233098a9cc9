// The planner's and the day of traffic's JavaScript twin against the Python's answers on fixed inputs
// (tests/vectors/planner.json, written by tools/planner_vectors.py; pytest checks that file against the Python
// in tests/engine/test_planner_vectors.py). Whole numbers and words equal; every other number within 1e-9
// relative. Run from pytest (tests/js/test_vectors_node.py), or:
// PYTHON=.venv/bin/python node --test tests/js/planner.test.mjs

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";

import { drawnDay, lifts } from "../../docs/assets/javascripts/calculator/autoscale/day.js";
import { simulateDay, totals } from "../../docs/assets/javascripts/calculator/autoscale/fluid.js";
import { forecastError } from "../../docs/assets/javascripts/calculator/autoscale/run.js";
import { disaggregate } from "../../docs/assets/javascripts/calculator/fleet/disaggregated.js";
import { InputError } from "../../docs/assets/javascripts/calculator/rules.js";
import { paramsFor } from "../../docs/assets/javascripts/calculator/serving/calibration.js";
import { capacityAtSlo } from "../../docs/assets/javascripts/calculator/serving/capacity.js";
import { buildReplica } from "../../docs/assets/javascripts/calculator/serving/replica.js";
import { breakEvenBatch, speculativeStep } from "../../docs/assets/javascripts/calculator/serving/speculative.js";
import { costs } from "../../docs/assets/javascripts/calculator/serving/step.js";
import { search, searchJson } from "../../docs/assets/javascripts/calculator/fleet/shapes.js";
import { catalog } from "../../tools/gpu_math.mjs";
import { agree } from "./agree.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const V = JSON.parse(readFileSync(join(ROOT, "tests", "vectors", "planner.json"), "utf8"));
const cat = catalog();


for (const c of V.shapes) {
  test(`shapes: ${c.input.slice(0, 2).join(" on ")}, ${c.input[4]}`, () => {
    agree(c.output, searchJson(search(cat, ...c.input)), "shapes");
  });
}

for (const c of V.disaggregated) {
  test(`disaggregated: ${c.input.slice(0, 2).join(" on ")}, peak ${c.input[8]}`, () => {
    const d = disaggregate(cat, ...c.input);
    agree(c.output, d, "disaggregated");
  });
}

for (const c of V.speculative) {
  const [model, gpu, gpus, layout, weights, kv, engine, batches, context, k, a] = c.input;
  test(`speculative: ${model} on ${gpus} x ${gpu}, k ${k}, a ${a}`, () => {
    const r = buildReplica(cat, model, gpu, gpus, layout, layout === "dp-attention" ? gpus : 1, weights, kv);
    const cost = costs(r, paramsFor(cat, gpu, engine, r.attention));
    agree(c.output, { steps: batches.map((b) => speculativeStep(cost, b, context, k, a)),
      break_even_batch: breakEvenBatch(cost, context, k, a) }, "speculative");
  });
}

for (const c of V.capacity) {
  test(`capacity at the SLO: ${c.input.model} on ${c.input.gpus} x ${c.input.gpu}`, () => {
    if (c.error !== undefined) {
      assert.throws(() => capacityAtSlo(cat, c.input), (e) => e instanceof InputError && e.message === c.error);
    } else agree(c.output, capacityAtSlo(cat, c.input), "capacity");
  });
}

test("the day's bursts and the forecast's error", () => {
  const x = cat.autoscale.inputs;
  assert.deepEqual(lifts(x, V.bursts.seed).map((v) => v > 0), V.bursts.lifts.map((v) => v > 0));
  agree(V.bursts.lifts, lifts(x, V.bursts.seed), "lifts");
  const f = V.forecast_error;
  agree(f.p95, forecastError(drawnDay(f.peak, f.mean, x, x.seed + 1), 95), "forecast error");
});

for (const c of V.days) {
  test(`the day: ${c.input.controls.policy} on ${c.input.controls.signal}`, () => {
    const day = drawnDay(c.input.peak, c.input.mean, cat.autoscale.inputs);
    const run = simulateDay(day, c.input.controls, V.mixes.planned, V.mixes.shifted);
    for (const m of run.minutes) assert.equal(m.served + m.shed, m.offered);
    agree(c.output, { gpu_hours: run.gpu_hours, cold_starts: run.cold_starts, warm_starts: run.warm_starts,
      ...totals(run), replicas: run.minutes.map((m) => m.replicas), shed: run.minutes.map((m) => m.shed),
      warm_pool: run.minutes.map((m) => m.warm_pool) }, "day");
  });
}
