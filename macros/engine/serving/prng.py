"""The simulator's random numbers: xoshiro128** seeded through splitmix64, specified to the operation so
the JavaScript twin draws the same numbers (ARCHITECTURE.md, the serving model).

Generator (D. Blackman and S. Vigna, prng.di.unimi.it, xoshiro128starstar.c): 128 bits of state in four
unsigned 32-bit words s0..s3; each draw returns rotl(s1 * 5, 7) * 9 (mod 2^32), then
    t = s1 << 9;  s2 ^= s0;  s3 ^= s1;  s1 ^= s2;  s0 ^= s3;  s2 ^= t;  s3 = rotl(s3, 11).
Every operation is on 32-bit words, which JavaScript has exactly (Math.imul, >>> 0).

Seeding (Vigna's recommendation, splitmix64.c): x = seed (an unsigned 64-bit integer); each output is
    x += 0x9E3779B97F4A7C15;  z = x;  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB;  z ^ (z >> 31)            (all mod 2^64)
and the state is s0, s1 = the low and high words of the first output, s2, s3 those of the second
(JavaScript: BigInt, used only here).

Sampling, one draw of the generator at a time, in this order:
- uniform(): two draws a, b; ((a >>> 5) * 2^26 + (b >>> 6)) / 2^53, a double in [0, 1) with 53 random bits,
  exact in both languages;
- integer(lo, hi): lo + floor(uniform() * (hi - lo + 1)), inclusive of both ends;
- exponential(mean): -mean * log(1 - uniform());
- normal(): Box-Muller with two uniforms u, v (in that order): sqrt(-2 log(1 - u)) * cos(2 pi v); the
  sine twin is not kept, so every normal costs exactly two uniforms;
- gamma(shape, scale): Marsaglia and Tsang (2000): for shape >= 1, d = shape - 1/3, c = 1 / sqrt(9 d);
  repeat: x = normal(), v = (1 + c x)^3, retry if v <= 0; u = uniform(); accept d v when
  log(1 - u) < x^2 / 2 + d - d v + d log(v); for shape < 1, gamma(shape + 1) * (1 - uniform())^(1 / shape)
  (the gamma draw first);
- lognormal(mean, cv): sigma^2 = log(1 + cv^2), mu = log(mean) - sigma^2 / 2, exp(mu + sigma * normal()).
log, exp, sqrt, cos and pow are each runtime's own: Python's math module and JavaScript's Math agree
to the last bit on most arguments but are not required to, so draws through them agree to about 1e-16,
not always bitwise (uniform() and integer() are exact).
"""

from __future__ import annotations

import math

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


def splitmix64(x: int) -> tuple[int, int]:
    """One splitmix64 step: (the new state, the output)."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return x, z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M32


class Rng:
    """xoshiro128**: next_u32() and the sampling operations of the module docstring."""

    def __init__(self, seed: int = 0, state: tuple[int, int, int, int] | None = None) -> None:
        if state is None:
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= _M64:
                raise ValueError(f"seed must be a whole number from 0 to 2^64 - 1, got {seed!r}")
            x, first = splitmix64(seed)
            _, second = splitmix64(x)
            state = (first & _M32, first >> 32, second & _M32, second >> 32)
        if not any(state):
            raise ValueError("xoshiro128** needs a state that is not all zero")
        self.s = list(state)

    def next_u32(self) -> int:
        s = self.s
        result = (_rotl((s[1] * 5) & _M32, 7) * 9) & _M32
        t = (s[1] << 9) & _M32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 11)
        return result

    def uniform(self) -> float:
        a = self.next_u32() >> 5
        b = self.next_u32() >> 6
        return (a * 67108864 + b) / 9007199254740992

    def integer(self, lo: int, hi: int) -> int:
        return lo + math.floor(self.uniform() * (hi - lo + 1))

    def exponential(self, mean: float) -> float:
        return -mean * math.log(1 - self.uniform())

    def normal(self) -> float:
        u = self.uniform()
        v = self.uniform()
        return math.sqrt(-2 * math.log(1 - u)) * math.cos(2 * math.pi * v)

    def gamma(self, shape: float, scale: float) -> float:
        if shape < 1:
            boosted = self.gamma(shape + 1, 1.0)
            return boosted * (1 - self.uniform()) ** (1 / shape) * scale
        d = shape - 1 / 3
        c = 1 / math.sqrt(9 * d)
        while True:
            x = self.normal()
            v = (1 + c * x) ** 3
            if v <= 0:
                continue
            u = self.uniform()
            if math.log(1 - u) < x * x / 2 + d - d * v + d * math.log(v):
                return d * v * scale

    def lognormal(self, mean: float, cv: float) -> float:
        sigma2 = math.log(1 + cv * cv)
        return math.exp(math.log(mean) - sigma2 / 2 + math.sqrt(sigma2) * self.normal())
