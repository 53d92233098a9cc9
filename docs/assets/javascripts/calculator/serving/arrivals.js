// Where requests come from (macros/engine/serving/arrivals.py): a closed loop at a concurrency, or
// open-loop arrivals (Poisson, gamma with a coefficient of variation, a replayed trace). Draws, request by
// request: prompt length, output length, then (open loop) the gap to the next request.

import { InputError } from "../rules.js";
import { Replayed } from "./lengths.js";
import { request } from "./types.js";

export class ClosedLoop {
  constructor(concurrency) { this.concurrency = concurrency; }
}

// Every request queued at time 0 (MLPerf Offline, the engines' throughput benchmarks): a closed loop as deep as the run.
export class Offline extends ClosedLoop {}

export class Poisson {
  constructor(ratePerS) { this.rate_per_s = ratePerS; }
  gap(rng) { return rng.exponential(1 / this.rate_per_s); }
}

// Gamma gaps with mean 1 / rate and coefficient of variation cv: shape 1 / cv^2, scale cv^2 / rate.
export class Gamma {
  constructor(ratePerS, cv) { this.rate_per_s = ratePerS; this.cv = cv; }
  gap(rng) {
    const shape = 1 / (this.cv * this.cv);
    return rng.gamma(shape, 1 / (this.rate_per_s * shape));
  }
}

export class Trace {
  constructor(arrivalsS, prompts, outputs) { this.arrivals_s = arrivalsS; this.prompts = prompts; this.outputs = outputs; }
}

// The arrival process's name as the Python class is named (run's "arrivals" key).
export const arrivalsName = (a) => (a instanceof Offline ? "Offline" : a instanceof ClosedLoop ? "ClosedLoop" : a instanceof Poisson ? "Poisson"
  : a instanceof Gamma ? "Gamma" : "Trace");

// The first `count` requests; a closed loop's arrival times are placeholders the simulator sets.
// Prompt tokens served from the prefix cache (cached_tokens): the share, rounded down after rounding to 1e-6
// (so 0.29 x 100 is 29, not 28), and never the whole prompt.
export function cachedTokens(promptTokens, prefixHitRate) {
  return Math.min(Math.floor(Number((promptTokens * prefixHitRate).toFixed(6))), promptTokens - 1);
}

export function requests(arrivals, prompt, output, count, rng, prefixHitRate = 0.0) {
  if (arrivals instanceof Trace) {
    const n = Math.min(count, arrivals.arrivals_s.length);
    const p = new Replayed(arrivals.prompts), o = new Replayed(arrivals.outputs);
    return Array.from({ length: n }, (_, i) => request(i, arrivals.arrivals_s[i], p.at(i), o.at(i),
      cachedTokens(p.at(i), prefixHitRate)));
  }
  const out = [];
  let t = 0.0;
  for (let i = 0; i < count; i++) {
    const pr = prompt.draw(rng), ou = output.draw(rng);
    out.push(request(i, t, pr, ou, cachedTokens(pr, prefixHitRate)));
    if (!(arrivals instanceof ClosedLoop)) t += arrivals.gap(rng);
  }
  return out;
}

// Python's float() and int() of a stripped field, as far as a trace and a flag need: decimal text only;
// null where Python raises ValueError.
const FLOAT_TEXT = /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
const SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;
const INT_TEXT = /^[+-]?\d+(?:_\d+)*$/;
export function pyFloat(text) {
  if (SPECIAL.test(text)) return /nan/i.test(text) ? NaN : (text[0] === "-" ? -Infinity : Infinity);
  if (!FLOAT_TEXT.test(text)) return null;
  return Number(text.replaceAll("_", ""));
}
export const pyInt = (text) => (INT_TEXT.test(text) ? Number(text.replaceAll("_", "")) : null);

// Python's repr() of a line of text: single quotes unless it holds one and no double quote.
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\r/g, "\\r")
    .replace(new RegExp(quote, "g"), `\\${quote}`);
  return quote + body + quote;
}

// Python's format(x, "g"): six significant figures, trailing zeros dropped, an exponent outside 1e-4..1e6.
export function formatG(x) {
  if (x === 0) return "0";
  const [mant, e] = x.toExponential(5).split("e");
  const digits = Number(e);
  if (digits < -4 || digits >= 6) {
    const m = mant.replace(/\.?0+$/, "");
    return `${m}e${digits < 0 ? "-" : "+"}${String(Math.abs(digits)).padStart(2, "0")}`;
  }
  return Number(x.toPrecision(6)).toString();
}

// A trace file's text (read_trace): one request per line, `arrival_s,input_tokens,output_tokens`, a header
// line naming them skipped; anything else is one InputError naming the file and the line.
export function readTrace(path, text) {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length && lines[lines.length - 1] === "") lines.pop();  // splitlines() keeps no empty last line
  const times = [], prompts = [], outputs = [];
  lines.forEach((line, index) => {
    const n = index + 1;
    if (!line.trim() || (n === 1 && line.replaceAll(" ", "") === "arrival_s,input_tokens,output_tokens")) return;
    const parts = line.split(",").map((p) => p.trim());
    const t = pyFloat(parts[0]), p = parts.length > 1 ? pyInt(parts[1]) : null, o = parts.length > 2 ? pyInt(parts[2]) : null;
    if (t === null || p === null || o === null || parts.length !== 3 || !(t >= 0 && p > 0 && o > 0) || t === Infinity) {
      throw new InputError(`${path}: line ${n}: expected arrival_s,input_tokens,output_tokens (a time >= 0 `
        + `and two whole numbers > 0), got ${pyRepr(line)}`);
    }
    if (times.length && t < times[times.length - 1]) {
      throw new InputError(`${path}: line ${n}: arrival ${formatG(t)} s is before the previous line's `
        + `${formatG(times[times.length - 1])} s`);
    }
    times.push(t);
    prompts.push(p);
    outputs.push(o);
  });
  if (!times.length) throw new InputError(`${path}: no requests in the trace`);
  return new Trace(times, prompts, outputs);
}
