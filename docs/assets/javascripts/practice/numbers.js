// The reader's key numbers, read forgivingly and checked against the page's band (each number's value, low
// and high come from macros/site/pages/_round_figures.py, in SI units: a count, bytes, seconds or US dollars).
// Plain data, no DOM. "1,608", "1.6k", "~1600 GPUs", "786 MB", "0.79GB", "0.4 s", "400 ms", "$96.5k a day"
// all read; what cannot be read gets a message that says how to write it.

const EXAMPLES = { count: "1,608 or 1.6k", bytes: "786 MB or 0.79 GB", seconds: "0.4 s or 400 ms",
                   usd: "$96,500 or $96.5k" };
const COUNT_SCALE = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9 };
const BYTE_POWER = { "": 0, k: 1, kilo: 1, m: 2, mega: 2, g: 3, giga: 3, t: 4, tera: 4, p: 5, peta: 5 };
const BYTE_UNIT = /^(kilo|mega|giga|tera|peta|[kmgtp]?)(i?)(?:b|bytes?)$|^([kmgtp])$/i;
const TIME_SCALE = { s: 1, sec: 1, secs: 1, second: 1, seconds: 1, ms: 1e-3, msec: 1e-3, millisecond: 1e-3,
                     milliseconds: 1e-3, us: 1e-6, "µs": 1e-6, "μs": 1e-6, microsecond: 1e-6, microseconds: 1e-6,
                     min: 60, mins: 60, minute: 60, minutes: 60 };
const HEDGES = /^(?:~|≈|about|around|approx\.?|approximately|roughly|circa|ca\.)\s*/i;
// A whole part with thousands separators ("1,608", "1 608") or without, then a decimal part after a point
// or a comma with one or two digits ("0.4", "0,4"), then an exponent ("1.6e3").
const WHOLE = /(\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d+)?/.source;
const NUMBER = new RegExp(`^${WHOLE}(?:\\.(\\d+)|,(\\d{1,2})(?!\\d))?(?:e([+-]?\\d+))?`, "i");
const SCIENTIFIC = /^\d[\d.,]*e[+-]?\d/i;
const RANGE = /^\$?[\d.,]+\s*[a-zµμ]*\s*(?:-|–|—|\bto\b)\s*\$?\d/i;

function unreadable(unit, why) {
  return { ok: false, error: `${why} Write it as ${EXAMPLES[unit]}.` };
}

// The number at the start of `text` and the text after it, or null.
function leadingNumber(text) {
  const m = NUMBER.exec(text);
  if (!m || (!m[1] && !m[2] && !m[3])) return null;
  const whole = (m[1] || "0").replace(/[, \u00a0\u202f]/g, "");
  const value = Number(`${whole}.${m[2] || m[3] || "0"}`) * 10 ** Number(m[4] || 0);
  return { value, rest: text.slice(m[0].length).trim() };
}

// The unit's word after the number: its scale to SI, and the text after it; or what is wrong with it.
function unitScale(unit, rest) {
  const word = (rest.match(/^[a-zµμ]+/i) || [""])[0];
  const after = rest.slice(word.length).trim();
  const lower = word.toLowerCase();
  const isTime = lower in TIME_SCALE || word in TIME_SCALE;
  if (unit === "count" || unit === "usd") {
    if (lower in COUNT_SCALE) return { scale: COUNT_SCALE[lower], after };
    if (BYTE_UNIT.test(word) || isTime) {
      return { error: `“${word}” is a unit; ${unit === "usd" ? "a cost is in dollars" : "a count has none"}.` };
    }
    return { scale: 1, after: rest };  // "GPUs", "USD", "a day": words, not a unit
  }
  if (unit === "bytes") {
    const b = BYTE_UNIT.exec(word);
    if (!b) return { error: word ? `“${word}” is not a unit of memory.` : "Give its unit." };
    const prefix = (b[1] || b[3] || "").toLowerCase();
    return { scale: (b[2] ? 1024 : 1000) ** BYTE_POWER[prefix], after };
  }
  if (!word) return { error: "Give its unit." };
  if (!isTime) return { error: `“${word}” is not a unit of time.` };
  return { scale: TIME_SCALE[lower] ?? TIME_SCALE[word], after };
}

// { ok: true, value } in SI units, or { ok: false, error } saying how to write it.
export function parseNumber(text, unit) {
  let t = String(text || "").trim().replace(/\s+/g, " ");
  if (!t) return { ok: false, error: "Nothing entered." };
  t = t.replace(HEDGES, "");
  if (unit === "usd") t = t.replace(/^(?:US\s?\$|\$|USD\s?)/i, "");
  if (/^[-−]/.test(t)) return unreadable(unit, "A negative number cannot be right here.");
  if (!SCIENTIFIC.test(t) && RANGE.test(t)) {
    return unreadable(unit, "Give one number, not a range (its middle, if you like).");
  }
  const found = leadingNumber(t);
  if (!found) return unreadable(unit, `“${String(text).trim()}” does not start with a number.`);
  const s = unitScale(unit, found.rest);
  if (s.error) return unreadable(unit, s.error);
  if (/^[,.\s]*\d/.test(s.after)) return unreadable(unit, `“${s.after}” after the number cannot be read.`);
  const value = found.value * s.scale;
  if (!Number.isFinite(value)) return unreadable(unit, "That number is too large.");
  return { ok: true, value };
}

// Where a value falls against the page's band: within it, or below or above it, and how far from the page's.
export function checkNumber(number, value) {
  const ratio = number.value ? value / number.value : null;
  if (value < number.low) return { within: false, side: "below", ratio };
  if (value > number.high) return { within: false, side: "above", ratio };
  return { within: true, side: null, ratio };
}

function sig3(x) { return Number(x.toPrecision(3)); }

function si(x, units) {
  let i = 0;
  while (i < units.length - 1 && sig3(x) >= 1000) { x /= 1000; i += 1; }
  return `${sig3(x).toLocaleString("en-US")} ${units[i]}`;
}

// A value as the reader should recognise it: "1,608", "786 MB", "400 ms", "$96,500".
export function formatNumber(value, unit) {
  if (unit === "bytes") return si(value, ["B", "kB", "MB", "GB", "TB", "PB"]);
  if (unit === "seconds") {
    if (value >= 1) return `${sig3(value).toLocaleString("en-US")} s`;
    if (value >= 1e-3) return `${sig3(value * 1e3)} ms`;
    return `${sig3(value * 1e6)} µs`;
  }
  if (unit === "usd") return `$${(value >= 100 ? Math.round(sig3(value)) : sig3(value)).toLocaleString("en-US")}`;
  return (Number.isInteger(value) ? value : sig3(value)).toLocaleString("en-US");
}

// "2.4×" or "0.42×" the page's value.
export function timesWords(ratio) {
  return `${Number(ratio.toPrecision(ratio >= 10 ? 3 : 2)).toLocaleString("en-US")}×`;
}
