// What a run measured, from its per-request records (macros/engine/serving/metrics.py): nearest-rank
// percentiles over the requests after a warm-up, throughput over every request (as a benchmark client
// reports it), Little's law, goodput. Sums run left to
// right from 0, as Python 3.11's sum() does.

import { tpotS } from "./types.js";

export const PERCENTILES = [50, 90, 95, 99];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

// The p-th percentile (0 < p <= 100) of values sorted ascending, by nearest rank.
export function nearestRank(sortedValues, p) {
  if (!sortedValues.length) return NaN;
  return sortedValues[Math.max(0, Math.ceil(p / 100 * sortedValues.length) - 1)];
}

// The ps-th percentiles (ascending) of [value, weight] pairs, each standing for `weight` observations: one sort
// and one pass for every p.
export function weightedRanks(pairs, ps) {
  const ordered = pairs.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const total = sum(ordered.map(([, w]) => w));
  const out = [];
  let seen = 0.0, k = -1;
  for (const p of ps) {
    const threshold = p / 100 * total;
    while ((k < 0 || seen < threshold) && k + 1 < ordered.length) { k += 1; seen += ordered[k][1]; }
    out.push(k >= 0 && seen >= threshold ? ordered[k][0] : ordered.length ? ordered[ordered.length - 1][0] : NaN);
  }
  return out;
}

// mean, p50, p90, p95, p99.
export function stats(values) {
  const ordered = values.slice().sort((a, b) => a - b);
  const out = { mean: ordered.length ? sum(ordered) / ordered.length : NaN };
  for (const p of PERCENTILES) out[`p${p}`] = nearestRank(ordered, p);
  return out;
}

export const reported = (result, warmup) => result.records.filter((r) => r.id >= warmup);

// The run's latency statistics over the requests sent after the first `warmup`, its throughput over all.
export function summarize(result, warmup = 0) {
  const rows = reported(result, warmup);
  const all = result.records;
  let start = Infinity, end = -Infinity;  // no spread: a run of many requests would overflow the call stack
  for (const r of all) { start = Math.min(start, r.arrival_s); end = Math.max(end, r.arrival_s + r.e2e_s); }
  const span = end - start;
  const itl = result.itl;
  const itlStats = { mean: itl.length ? sum(itl.map(([g, w]) => g * w)) / sum(itl.map(([, w]) => w)) : NaN };
  weightedRanks(itl, PERCENTILES).forEach((x, i) => { itlStats[`p${PERCENTILES[i]}`] = x; });
  return {
    requests: rows.length, warmup_requests: all.length - rows.length,
    ttft_s: stats(rows.map((r) => r.ttft_s)), tpot_s: stats(rows.filter((r) => r.output_tokens > 1).map(tpotS)),
    itl_s: itlStats, e2e_s: stats(rows.map((r) => r.e2e_s)), queue_s: stats(rows.map((r) => r.queue_s)),
    requests_per_s: all.length / span, output_tokens_per_s: sum(all.map((r) => r.output_tokens)) / span,
    input_tokens_per_s: sum(all.map((r) => r.prompt_tokens)) / span,
    mean_batch: result.busy_s ? result.batch_area / result.busy_s : 0.0,
    kv_occupancy: result.busy_s ? result.kv_area / result.busy_s : 0.0, preemptions: result.preemptions,
    littles_law_l: result.in_system_area / result.duration_s,
    littles_law_lambda_w: all.length / result.duration_s * sum(all.map((r) => r.e2e_s)) / all.length,
  };
}

// Share of requests meeting every SLO given (null: not checked).
export function goodput(rows, ttftS = null, tpotSlo = null, e2eS = null) {
  const good = (r) => (ttftS === null || r.ttft_s <= ttftS) && (tpotSlo === null || tpotS(r) <= tpotSlo)
    && (e2eS === null || r.e2e_s <= e2eS);
  return rows.length ? rows.filter(good).length / rows.length : NaN;
}
