// GPU families (macros/engine/serving/families.py, data/gpu_families.toml via the catalog): a GPU with no
// measured runs takes its family's fitted parameters, and its family's tensor-core tiles.

import { InputError, shown } from "../rules.js";

// The family of a GPU key, as {key, name, gpus, mma_rows, moe_rows}; an error naming the families if none.
export function familyOf(cat, gpu) {
  const families = cat.serving.families;
  for (const [key, fam] of Object.entries(families)) if (fam.gpus.includes(gpu)) return { key, ...fam };
  const known = Object.entries(families).map(([key, fam]) => `${key}: ${fam.gpus.join(", ")}`).join("; ");
  throw new InputError(`GPU ${shown(gpu)} is in no family of gpu_families.toml, so the serving model has no parameters `
    + `for it (families: ${known})`);
}

// A family's tile rows for a GPU (mma_rows or moe_rows); 1 for a GPU in no family.
export function tileRows(cat, gpu, field) {
  const fam = Object.values(cat.serving.families).find((x) => x.gpus.includes(gpu));
  return fam ? fam[field] : 1;
}
