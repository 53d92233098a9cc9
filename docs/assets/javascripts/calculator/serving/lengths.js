// Prompt and output lengths (macros/engine/serving/lengths.py): fixed, jittered within a range ratio,
// lognormal, or replayed from a trace. Each has one draw(rng), a whole number >= 1.

// Python's round() of a float: the nearest whole number, halves to even.
export function roundHalfEven(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
}

export class Fixed {
  constructor(tokens) { this.tokens = tokens; }
  draw() { return this.tokens; }
  get mean() { return this.tokens; }
}

// Uniform whole numbers from floor(tokens * ratio) (at least 1) to tokens, both included.
export class RangeRatio {
  constructor(tokens, ratio) { this.tokens = tokens; this.ratio = ratio; }
  get low() { return Math.max(1, Math.trunc(this.tokens * this.ratio)); }
  draw(rng) { return rng.integer(this.low, this.tokens); }
  get mean() { return (this.low + this.tokens) / 2; }
}

export class Lognormal {
  constructor(meanTokens, cv) { this.meanTokens = meanTokens; this.cv = cv; }
  draw(rng) { return Math.max(1, roundHalfEven(rng.lognormal(this.meanTokens, this.cv))); }
  get mean() { return this.meanTokens; }
}

// A trace's lengths in order, repeating if more are read than it holds.
export class Replayed {
  constructor(tokens) { this.tokens = tokens; }
  draw() { throw new TypeError("a replayed length is read with at(i), not drawn"); }
  at(i) { return this.tokens[i % this.tokens.length]; }
  get mean() { return this.tokens.reduce((a, b) => a + b, 0) / this.tokens.length; }
}
