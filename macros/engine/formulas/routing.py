"""Routing for the prefix cache (the router design): what a placement policy earns in hit rate, how
long an LRU cache keeps a conversation, and what a load bound sends away from home.

Pure functions in SI base units (see the package docstring); hit rates and shares are fractions."""

from __future__ import annotations

import math

from ._array import Number

__all__ = ["spread_hit_rate", "lru_residency_s", "warm_probability", "home_load_cv", "clumped_gap_cv",
           "overflow_fraction"]


def spread_hit_rate(shared_fraction: Number, affine_fraction: Number, caches: Number) -> Number:
    """shared + affine / n: the prefix hit rate when the policy ignores where a request's prefix lives.

    The shared part (a system prompt every cache holds) hits anywhere; the affine part (one
    conversation's history, held by one cache) hits only when the request lands, by chance, on the
    one cache of n that holds it."""
    return shared_fraction + affine_fraction / caches


def lru_residency_s(cache_bytes: Number, insert_bytes_per_s: Number) -> Number:
    """C / r: how long an LRU cache of C bytes keeps an entry nobody touches, when new entries arrive
    at r bytes a second (the characteristic time of the Che approximation: after C bytes of newer
    entries, the untouched one is the least recent and goes)."""
    return cache_bytes / insert_bytes_per_s


def warm_probability(residency_s: Number, mean_gap_s: Number) -> Number:
    """1 - exp(-T / g): the chance the next turn finds its history still cached, when gaps between
    turns are exponential with mean g and the cache keeps an untouched entry for T."""
    if hasattr(residency_s, "shape") or hasattr(mean_gap_s, "shape"):
        import numpy as np

        return 1 - np.exp(-np.asarray(residency_s) / mean_gap_s)
    return 1 - math.exp(-residency_s / mean_gap_s)


def home_load_cv(in_flight: Number, burst: Number) -> Number:
    """sqrt(k / m): the coefficient of variation of one replica's home load when m requests are in
    flight on it on average and sessions arrive in clumps of k requests (a compound Poisson count:
    variance k * m, so sigma / mean = sqrt(k / m)). One request per session gives 1 / sqrt(m)."""
    return (burst / in_flight) ** 0.5


def clumped_gap_cv(burst: Number) -> Number:
    """sqrt(2k - 1): the coefficient of variation of a replica's arrival gaps when sessions send their requests in
    clumps of k that land together (Poisson clumps at rate r / k). A gap is 0 with probability (k - 1) / k and an
    exponential of mean k / r otherwise: mean 1 / r, second moment (1 / k) 2 (k / r)^2 = 2k / r^2, so a variance
    of (2k - 1) / r^2. One request a clump is Poisson's 1."""
    return (2 * burst - 1) ** 0.5


def _normal_tail(z: float) -> tuple[float, float]:
    """phi(z) and 1 - Phi(z) of the standard normal."""
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi), 0.5 * math.erfc(z / math.sqrt(2))


def overflow_fraction(load_bound: Number, cv: Number) -> Number:
    """E[(X - c)+] = v * phi(z) - (c - 1) * (1 - Phi(z)), z = (c - 1) / v: the share of home load a
    bounded-load consistent hash (Mirrokni, Thorup and Zadimoghaddam) sends on to the next replica,
    when each replica's home load, as a multiple of the mean, is normal with coefficient of
    variation v and capped at c times the mean. The normal loss function; 0 as c grows, v * phi(0)
    (about 0.4 v) at c = 1."""
    if hasattr(load_bound, "shape") or hasattr(cv, "shape"):
        import numpy as np

        return np.vectorize(overflow_fraction, otypes=[float])(load_bound, cv)
    z = (load_bound - 1) / cv
    density, tail = _normal_tail(z)
    return cv * density - (load_bound - 1) * tail
