// The serving model's fitted parameters (macros/engine/serving/calibration.py, data/calibration.toml via
// the catalog): per GPU family, per engine, and the band of the cross-validated TPOT ratio.

import { InputError, shown } from "../rules.js";
import { familyOf } from "./families.js";

// The parameters one replica runs with: the family's fractions times the engine's kernel share (at most 1),
// the experts' grouped GEMMs at the family's share of the dense GEMMs', and a layer's fixed cost the family's
// times the engine's factor (an MLA-and-MoE layer's a GQA one's times the shared ratio); the rest per family,
// per engine or shared ("all", whatever the key).
export function stepParams(values, family, engine, attention) {
  const pick = (name, key) => ("all" in values[name] ? values[name].all : values[name][key]);
  const shared = (name) => values[name].all;
  const layer = pick("layer_overhead_s", family) * pick("layer_factor", engine)
    * (attention === "mla" ? shared("mla_layer_ratio") : 1.0);
  const kernels = pick("kernel_fraction", engine);
  const gemm = Math.min(pick("gemm_fraction", family) * kernels, 1.0);
  return {
    bw_fraction: pick("bw_fraction", family), gemm_fraction: gemm, moe_fraction: gemm * pick("grouped_gemm_ratio", family),
    attn_fraction: Math.min(pick("attn_fraction", family) * kernels, 1.0),
    link_latency_s: pick("link_latency_s", family), step_overhead_s: pick("step_overhead_s", engine),
    sequence_overhead_s: pick("sequence_overhead_s", engine), layer_overhead_s: layer,
    eager_layer_overhead_s: shared("eager_layer_overhead_s"), request_overhead_s: pick("request_overhead_s", engine),
    prompt_token_overhead_s: shared("prompt_token_overhead_s"), api_request_s: shared("api_request_s"),
  };
}

// The API server's time on a request before the scheduler sees it, with no request queued ahead of it.
export const apiLatencyS = (p, promptTokens) =>
  p.request_overhead_s + p.api_request_s + p.prompt_token_overhead_s * promptTokens;

// The fitted parameters for `engine` serving a model with `attention` ("mla" or "gqa") on `gpu`.
export function paramsFor(cat, gpu, engine, attention) {
  const values = cat.serving.calibration.values, engines = Object.keys(values.kernel_fraction);
  if (!engines.includes(engine)) throw new InputError(`unknown engine ${shown(engine)}. Valid: ${engines.join(", ")}`);
  return stepParams(values, familyOf(cat, gpu).key, engine, attention);
}

// The models whose fitted runs are on one of `gpus`, sorted (Calibration.models_on).
const modelsOn = (cal, gpus) => [...new Set(gpus.flatMap((g) => cal.models_by_gpu[g] || []))].sort();

// [p10, p90] of the cross-validated ratio predicted / measured median TPOT on this GPU, and its basis.
export function bandFor(cat, gpu) {
  const cal = cat.serving.calibration, family = familyOf(cat, gpu);
  if (cal.measured_gpus.includes(gpu) && gpu in cal.bands) {
    return [...cal.bands[gpu], `its own runs of ${modelsOn(cal, [gpu]).join(" and ")}`];
  }
  const [low, high] = cal.bands[family.key] || [NaN, NaN];
  return [low, high, `its family's (${family.key}) runs of ${modelsOn(cal, family.gpus).join(" and ")}: ${gpu} has none`];
}
