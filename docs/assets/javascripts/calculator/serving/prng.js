// The simulator's random numbers (macros/engine/serving/prng.py, whose docstring specifies every
// operation): xoshiro128** on four unsigned 32-bit words (Math.imul and >>> 0 are exact), seeded
// through splitmix64 (BigInt, only here). uniform() and integer() draw exactly what Python draws;
// draws through Math.log, exp, sqrt, cos and ** agree with Python's math module to about 1e-16.

const M64 = (1n << 64n) - 1n;

// One splitmix64 step: [the new state, the output], both BigInt.
export function splitmix64(x) {
  x = (x + 0x9E3779B97F4A7C15n) & M64;
  let z = ((x ^ (x >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
  return [x, z ^ (z >> 31n)];
}

const rotl = (x, k) => ((x << k) | (x >>> (32 - k))) >>> 0;

// A seed as Python's Rng takes it: a whole number from 0 to 2^64 - 1 (a Number or a BigInt).
function seedBigInt(seed) {
  const ok = (typeof seed === "bigint" && seed >= 0n && seed <= M64)
    || (typeof seed === "number" && Number.isSafeInteger(seed) && seed >= 0);
  if (!ok) throw new RangeError(`seed must be a whole number from 0 to 2^64 - 1, got ${seed}`);
  return BigInt(seed);
}

export class Rng {
  constructor(seed = 0, state = null) {
    if (state === null) {
      const [x, first] = splitmix64(seedBigInt(seed));
      const second = splitmix64(x)[1];
      const low = (v) => Number(v & 0xFFFFFFFFn), high = (v) => Number(v >> 32n);
      state = [low(first), high(first), low(second), high(second)];
    }
    if (!state.some((w) => w !== 0)) throw new RangeError("xoshiro128** needs a state that is not all zero");
    this.s = state.slice();
  }

  nextU32() {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] = (s[2] ^ s[0]) >>> 0;
    s[3] = (s[3] ^ s[1]) >>> 0;
    s[1] = (s[1] ^ s[2]) >>> 0;
    s[0] = (s[0] ^ s[3]) >>> 0;
    s[2] = (s[2] ^ t) >>> 0;
    s[3] = rotl(s[3], 11);
    return result;
  }

  // 53 random bits: (a >>> 5) * 2^26 + (b >>> 6), over 2^53; every step is exact in a double.
  uniform() {
    const a = this.nextU32() >>> 5;
    const b = this.nextU32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  integer(lo, hi) { return lo + Math.floor(this.uniform() * (hi - lo + 1)); }

  exponential(mean) { return -mean * Math.log(1 - this.uniform()); }

  normal() {
    const u = this.uniform();
    const v = this.uniform();
    return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }

  gamma(shape, scale) {
    if (shape < 1) {
      const boosted = this.gamma(shape + 1, 1.0);
      return boosted * (1 - this.uniform()) ** (1 / shape) * scale;
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.normal();
      const v = (1 + c * x) ** 3;
      if (v <= 0) continue;
      const u = this.uniform();
      if (Math.log(1 - u) < x * x / 2 + d - d * v + d * Math.log(v)) return d * v * scale;
    }
  }

  lognormal(mean, cv) {
    const sigma2 = Math.log(1 + cv * cv);
    return Math.exp(Math.log(mean) - sigma2 / 2 + Math.sqrt(sigma2) * this.normal());
  }
}
