// The day of traffic's twin on its own (node --test): admission control keeps served + shed = offered every
// minute, whatever the policy, on hand-made days small enough to check by hand.
import assert from "node:assert/strict";
import { test } from "node:test";

import { simulateDay, totals } from "../../docs/assets/javascripts/calculator/autoscale/fluid.js";

const mix = { capacity_per_s: 1, tokens_per_request: 1000, kv_occupancy: 0.5, e2e_s: 10 };
const controls = (policy) => ({ policy, signal: "queue", set_point: 1, cold_minutes: 2, warm_minutes: 0, hold_minutes: 1,
  min_replicas: 1, max_replicas: 10, slo_percentile: 95, forecast_error: 0.5, gpus_per_replica: 4 });

test("a step from 1 to 5 requests/s: the scaler lags by the cold start, and sheds what it cannot serve", () => {
  // Minutes 0-2 at 1 request/s (60 requests), 3-9 at 5 (300). One replica serves 60 a minute.
  const rates = [1, 1, 1, 5, 5, 5, 5, 5, 5, 5];
  const day = { rates_per_s: rates, forecast_per_s: rates.map(() => 1), shifted: rates.map(() => false) };
  const run = simulateDay(day, controls("reactive"), mix, mix);
  // Minute 3 sees 300 with 1 replica: serves 60, sheds 240; it orders 4 more, serving from 3 + 1 + 2 = minute 6.
  assert.deepEqual(run.minutes.slice(3, 7).map((m) => [m.replicas, m.served, m.shed]),
    [[1, 60, 240], [1, 60, 240], [1, 60, 240], [5, 300, 0]]);
  const t = totals(run);
  assert.equal(t.offered_requests, 3 * 60 + 7 * 300);
  assert.equal(t.shed_requests, 3 * 240);
  assert.equal(t.slo_violation_minutes, 3);
});

for (const policy of ["reactive", "predictive", "warm-pool"]) {
  test(`served + shed = offered, minute by minute (${policy})`, () => {
    const rates = Array.from({ length: 300 }, (_, m) => 3 + 2.5 * Math.sin(m / 20) + (m % 37 === 0 ? 4 : 0));
    const day = { rates_per_s: rates, forecast_per_s: rates.map((_, m) => 3 + 2.5 * Math.sin(m / 20)),
      shifted: rates.map((_, m) => m > 100 && m < 150) };
    const run = simulateDay(day, controls(policy), mix, { ...mix, capacity_per_s: 0.7 });
    for (const m of run.minutes) assert.equal(m.served + m.shed, m.offered);
    const t = totals(run);
    assert.equal(t.served_requests + t.shed_requests, t.offered_requests);
    assert.ok(t.shed_requests > 0 && t.served_requests > 0);
  });
}
