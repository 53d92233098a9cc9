// The shape search's twin (macros/engine/fleet/shapes.py, whose docstring says what it does and leaves out): every
// candidate replica shape's closed-loop curve under the fitted step model, each shape's best point within the
// mean targets, the chosen shape and its runner-up, and the Pareto front of tokens/s per GPU against tokens/s
// per user.

import { isMoe } from "../model/geometry.js";
import { lookup } from "../lookup.js";
import { InputError } from "../rules.js";
import { stepParams } from "../serving/calibration.js";
import { familyOf } from "../serving/families.js";
import { poolBlocks } from "../serving/kv_blocks.js";
import { roundHalfEven } from "../serving/lengths.js";
import { profile, rankLimits } from "../serving/profiles.js";
import { buildReplica, ranksOf } from "../serving/replica.js";
import { equilibrium } from "../serving/steady.js";
import { costs } from "../serving/step.js";

export const NODE_WIDTHS = [1, 2, 4, 8];
export const MAX_CONCURRENCY = 1024;
// 1, 2, 3, 4, 6, 8, 12, ... 1024: powers of two and the steps half-way between them (in log).
export const CONCURRENCIES = [...new Set([...Array.from({ length: 11 }, (_, i) => 2 ** i),
  ...Array.from({ length: 9 }, (_, i) => 3 * 2 ** i)])].sort((a, b) => a - b);
export const SEARCH_TOLERANCE = 1e-6;
export const TIE = 0.01;

export const shapeLabel = (s) => (s.layout === "tp" ? `TP${s.gpus}` : `DP-attention ${s.gpus}, EP ${s.ep}`);
const sameShape = (a, b) => a.gpus === b.gpus && a.layout === b.layout && a.ep === b.ep;

// TP over 1 to 8 GPUs; for a MoE model also attention-DP with EP over 2 to 8.
export function candidates(cat, model) {
  const shapes = NODE_WIDTHS.map((g) => ({ gpus: g, layout: "tp", ep: 1 }));
  if (isMoe(lookup("model", model, cat.models))) {
    shapes.push(...NODE_WIDTHS.filter((g) => g > 1).map((g) => ({ gpus: g, layout: "dp-attention", ep: g })));
  }
  return shapes;
}

// Every candidate's closed-loop curve, each shape's best point within the targets, the chosen shape and its
// runner-up: {results, points, pareto, chosen, runner_up, tied}. Throws InputError for a GPU in no family.
export function search(cat, model, gpu, weights, kv, engine, promptTokens, outputTokens, ttftS, tpotS) {
  const family = familyOf(cat, gpu).key;
  const values = cat.serving.calibration.values;
  const rows = [], refused = new Map();
  const shapes = candidates(cat, model);
  shapes.forEach((shape, n) => {
    let replica;
    try {
      replica = buildReplica(cat, model, gpu, shape.gpus, shape.layout, shape.ep, weights, kv);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      refused.set(n, e.message);
      return;
    }
    const prof = profile(cat, engine, gpu, model, weights);
    const held = poolBlocks(replica, prof.memory_fraction, prof.block_tokens) * prof.block_tokens;
    const most = Math.min(Math.floor(held / (promptTokens + outputTokens)), rankLimits(prof, ranksOf(replica))[1], MAX_CONCURRENCY);
    if (most < 1) {
      refused.set(n, "the weights leave no room for one sequence's KV cache");
      return;
    }
    for (const c of CONCURRENCIES) if (c <= most) rows.push({ shape, concurrency: c, replica });
  });
  const points = solve(cat, rows, family, engine, values, promptTokens, outputTokens, ttftS, tpotS, gpu, model, weights);
  const results = shapes.map((shape, n) => {
    const mine = points.filter((p) => sameShape(p.shape, shape));
    let best = null;
    for (const p of mine) if (p.meets && (best === null || p.output_tokens_per_s_per_gpu > best.output_tokens_per_s_per_gpu)) best = p;
    return { shape, best, lightest: mine.length ? mine[0] : null, does_not_fit: refused.has(n) ? refused.get(n) : null };
  });
  let ranked = results.filter((r) => r.best).sort((a, b) => b.best.output_tokens_per_s_per_gpu - a.best.output_tokens_per_s_per_gpu);
  if (ranked.length) {  // within the tie, the narrowest replica
    const top = ranked[0].best.output_tokens_per_s_per_gpu;
    let chosen = null;
    for (const r of ranked) {
      if (r.best.output_tokens_per_s_per_gpu >= (1 - TIE) * top && (chosen === null || r.shape.gpus < chosen.shape.gpus)) chosen = r;
    }
    ranked = [chosen, ...ranked.filter((r) => r !== chosen)];
  }
  const chosen = ranked[0] ?? null, runnerUp = ranked[1] ?? null;
  const tied = runnerUp !== null
    && runnerUp.best.output_tokens_per_s_per_gpu >= (1 - TIE) * chosen.best.output_tokens_per_s_per_gpu;
  return { results, points, pareto: pareto(points), chosen, runner_up: runnerUp, tied };
}

function solve(cat, rows, family, engine, values, prompt, output, ttftS, tpotS, gpu, model, weights) {
  if (!rows.length) return [];
  const profs = rows.map((r) => profile(cat, engine, gpu, model, weights, r.concurrency));
  const costsList = rows.map((r) => costs(r.replica, stepParams(values, family, engine, r.replica.attention)));
  const p = costsList[0].params;
  const setup = {
    concurrency: rows.map((r) => r.concurrency), prompt: rows.map(() => prompt), output: rows.map(() => output),
    mixed: profs.map((q) => (q.policy === "mixed" ? 1.0 : 0.0)), token_budget: profs.map((q, i) => rankLimits(q, ranksOf(rows[i].replica))[0]),
    admission_interval: profs.map((q) => q.admission_interval_steps), graph_max_batch: profs.map((q) => q.graph_max_batch),
    request_overhead_s: rows.map(() => p.request_overhead_s + p.prompt_token_overhead_s * prompt),
  };
  const eq = equilibrium(costsList, setup, SEARCH_TOLERANCE);
  return rows.map(({ shape, concurrency }, i) => ({
    shape, concurrency, tpot_s: eq.tpot_s[i], ttft_s: eq.ttft_s[i], tokens_per_s_per_user: 1 / eq.tpot_s[i],
    output_tokens_per_s_per_gpu: eq.output_tokens_per_s[i] / shape.gpus,
    meets: eq.tpot_s[i] <= tpotS && eq.ttft_s[i] <= ttftS,
  }));
}

// The points no other beats on both tokens/s per user and tokens/s per GPU, by per-user rate.
export function pareto(points) {
  const beats = (q, p) => q.tokens_per_s_per_user >= p.tokens_per_s_per_user
    && q.output_tokens_per_s_per_gpu >= p.output_tokens_per_s_per_gpu
    && (q.tokens_per_s_per_user !== p.tokens_per_s_per_user || q.output_tokens_per_s_per_gpu !== p.output_tokens_per_s_per_gpu);
  return points.filter((p) => !points.some((q) => beats(q, p)))
    .sort((a, b) => a.tokens_per_s_per_user - b.tokens_per_s_per_user);
}

function pointJson(p) {
  return p === null ? null : {
    shape: shapeLabel(p.shape), gpus_per_replica: p.shape.gpus, layout: p.shape.layout, ep: p.shape.ep,
    concurrency: p.concurrency, ttft_s: p.ttft_s, tpot_s: p.tpot_s, tokens_per_s_per_user: p.tokens_per_s_per_user,
    output_tokens_per_s_per_gpu: p.output_tokens_per_s_per_gpu };
}

// The search as `gpu_math.py shapes --json` prints it: null where there is nothing.
export function searchJson(s) {
  return {
    chosen: pointJson(s.chosen && s.chosen.best), runner_up: pointJson(s.runner_up && s.runner_up.best), tied: s.tied,
    shapes: s.results.map((r) => ({ shape: shapeLabel(r.shape), best: pointJson(r.best), lightest: pointJson(r.lightest),
      does_not_fit: r.does_not_fit })),
    pareto: s.pareto.map(pointJson),
  };
}

// The uncached prompt a workload's prefix cache leaves: round(prompt * (1 - hit)), at least 1.
export const uncachedPrompt = (w) => Math.max(1, roundHalfEven(w.prompt_tokens * (1 - w.prefix_hit_rate)));

// The search for a (completed) workload's model, GPU, formats, uncached prompt, output and mean targets.
export function forWorkload(cat, w, engine = "vllm") {
  return search(cat, w.model, w.gpu, w.weights, w.kv, engine, uncachedPrompt(w), w.output_tokens, w.ttft_s, w.tpot_s);
}
