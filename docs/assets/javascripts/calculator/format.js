// The only place the browser turns a number into a string: macros/text/fmt.py's rule, with its steps and
// figures from catalog.json's "format" (fmt.RULES), so a form shows what a page shows. Round to the
// significant figures first, then pick the unit from the rounded value (999.6e9 B is "1 TB", never
// "1,000 GB"); every tie away from zero on the float's exact value (toPrecision and toFixed do exactly
// that, as fmt.py's Decimal rounding does). tests/vectors/format.json holds the two to the same strings.
// `F` below is catalog.format.

export function roundSig(x, sig) {
  return x === 0 || !Number.isFinite(x) ? x : Number(x.toPrecision(sig));
}

// x with `decimals` decimals and thousands separators (fmt._fixed); no sign on a zero.
function fixed(x, decimals) {
  let text = Math.abs(x).toFixed(decimals);
  if (Number(text) !== 0 && x < 0) text = `-${text}`;
  const [whole, part] = text.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return part === undefined ? grouped : `${grouped}.${part}`;
}

// A plain number to at most `sig` significant figures, thousands separators, no trailing zeros.
export function num(F, x, sig = F.sig) {
  const r = roundSig(x, sig);
  if (r === 0) return "0";
  const text = fixed(r, Math.max(0, sig - 1 - Math.floor(Math.log10(Math.abs(r)))));
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

export function count(F, x) { return fixed(x, 0); }

export function si(F, x, unit, sig = F.sig) {
  if (x === 0) return `0 ${unit}`;
  const r = roundSig(Math.abs(x), sig);
  for (const [scale, prefix] of F.si) if (r >= scale) return `${x < 0 ? "-" : ""}${num(F, r / scale, sig)} ${prefix}${unit}`;
  return `${num(F, x, sig)} ${unit}`;
}

export function seconds(F, x, sig = F.sig) {
  const r = roundSig(x, sig);
  for (const [scale, unit] of F.time) if (Math.abs(r) >= scale) return `${num(F, r / scale, sig)} ${unit}`;
  return `${num(F, x / 1e-9, sig)} ns`;
}

export function ms(F, x, sig = F.sig) { return `${num(F, x * 1e3, sig)} ms`; }

export function usd(F, x, sig = F.sig) {
  // to the cent below usd_whole_from, rounded once (11.65 -> "$11.65"); whole dollars to `sig` figures above
  const r = roundSig(x, sig);
  const cents = Math.abs(r) < F.usd_whole_from;
  return `${r < 0 ? "-" : ""}$${fixed(Math.abs(cents ? x : r), cents ? 2 : 0)}`;
}

export function pct(F, x, sig = F.sig) { return `${num(F, x * 100, sig)}%`; }

export function times(F, x, sig = F.sig) { return `${num(F, x, sig)}×`; }

export function tokensPerS(F, x, sig = F.sig) { return `${num(F, x, sig)} tokens/s`; }

// A FLOP rate in TFLOP/s, as datasheets print it, to four figures (fmt.flops_rate).
export function flopsRate(F, x, sig = 4) {
  return Math.abs(x) >= 1e12 && Math.abs(x) < 1e16 ? `${num(F, x / 1e12, sig)} TFLOP/s` : si(F, x, "FLOP/s", sig);
}
