// The day's inputs beyond the workload (macros/engine/autoscale/inputs.py): data/autoscale.toml as the
// catalog carries it (checked by the Python that exported it), and a replica's cold start priced from it.

import { InputError } from "../rules.js";

export const SECONDS_PER_MINUTE = 60;
export const ALLOCATION_CLAIM = "instance-acquisition";

export const dayInputs = (cat) => cat.autoscale.inputs;

// Minutes before a replica started now serves: a start that ends inside a minute serves from the next one
// (rounded to 9 decimals first: 120.00000000000001 s is 2).
export const wholeMinutes = (seconds) => Math.ceil(Number((seconds / SECONDS_PER_MINUTE).toFixed(9)));

// Allocate, pull the image and load the weights over the path to storage (one after the other), start the
// engine: {allocation_s, image_pull_s, weight_load_s, engine_start_s, total_s, minutes}.
export function coldStart(cat, weightBytes, x) {
  const a = cat.autoscale;
  if (a.allocation_s === null || a.allocation_s === undefined) {
    throw new InputError(`claims.toml: [${ALLOCATION_CLAIM}] must give \`low\`, the seconds a cold start waits for an instance`);
  }
  const link = a.network_storage_bytes_per_s;
  const c = { allocation_s: a.allocation_s, image_pull_s: x.image_bytes / link, weight_load_s: weightBytes / link,
    engine_start_s: x.engine_start_s };  // formulas.transfer_time_s: bytes over the link
  c.total_s = c.allocation_s + c.image_pull_s + c.weight_load_s + c.engine_start_s;
  c.minutes = wholeMinutes(c.total_s);
  return c;
}
