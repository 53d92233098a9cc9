// Looking up the catalog by key, and the compute dtype a weight format runs in (macros/engine/lookup.py).
// Every bad key is an InputError that lists the valid keys.

import { InputError, closeKeys, shown } from "./rules.js";

export function lookup(kind, key, table) {
  if (Object.prototype.hasOwnProperty.call(table, key)) return table[key];
  const close = closeKeys(key, Object.keys(table));
  const hint = close.length ? ` Did you mean ${close.join(", ")}?` : "";
  throw new InputError(`unknown ${kind} ${shown(key)}.${hint} Valid: ${Object.keys(table).join(", ")}`);
}

export function dtypeBytes(cat, key) { return lookup("dtype", key, cat.precisions).bytes; }

// The dtype the matmuls run in: FP8 and FP4 formats use their own peak where the GPU has that unit, and
// elsewhere run weight-only at BF16; INT8, INT4 and the 16-bit formats run at BF16.
export function computeDtype(cat, g, weights) {
  const compute = lookup("dtype", weights, cat.precisions).compute;
  if ((compute === "fp8" && g.fp8_flops) || (compute === "fp4" && g.fp4_flops)) return compute;
  return "bf16";
}

// The compute dtype's dense peak per GPU.
export function peakFlops(cat, g, weights) {
  return { fp8: g.fp8_flops, fp4: g.fp4_flops }[computeDtype(cat, g, weights)] ?? g.bf16_flops;
}
