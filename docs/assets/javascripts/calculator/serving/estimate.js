// The calculator's estimate (macros/engine/serving/estimate.py): one decode step of a full batch under the
// fitted step model, with the band of its cross-validated error on the GPU (or its family).

import { InputError } from "../rules.js";
import { bandFor, paramsFor } from "./calibration.js";
import { familyOf } from "./families.js";
import { profile } from "./profiles.js";
import { buildReplica } from "./replica.js";
import { costs, stepTerms } from "./step.js";
import { stepBatch } from "./types.js";

export const DEFAULT_ENGINE = "vllm";

// decode_estimate: `model` a catalog key or a model object (a custom geometry), `gpu` a catalog key.
export function decodeEstimate(cat, model, gpu, gpus, layout, weights, kv, batch, context, engine = DEFAULT_ENGINE) {
  familyOf(cat, gpu);
  if (batch < 1) throw new InputError(`batch must be at least 1 for an estimate, got ${batch}`);
  const replica = buildReplica(cat, model, gpu, gpus, layout, 1, weights, kv);
  const prof = profile(cat, engine, gpu, replica.model, weights, batch);
  const graphed = batch <= prof.graph_max_batch;
  const terms = stepTerms(costs(replica, paramsFor(cat, gpu, engine, replica.attention)),
    stepBatch({ decode_seqs: batch, decode_context: batch * context }), graphed);
  let [p10, p90, source] = bandFor(cat, gpu);
  const measured = cat.serving.calibration.measured_models;
  if (!measured.includes(replica.model)) source += ` (none of ${replica.model})`;
  const step = terms.total_s;
  return { engine, step_s: step, low_s: step / p90, high_s: step / p10, band_from: source, graphed, terms };
}
