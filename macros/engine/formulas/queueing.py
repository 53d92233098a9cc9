"""Queueing napkins for one server: the utilisation, and the mean wait in queue with Poisson arrivals and
exponential (M/M/1) or fixed (M/D/1) service times. They sit beside the serving model's simulated
percentiles (macros/engine/serving/), which a batching engine needs: these are for the back of an envelope.

Pure functions in SI base units (see the package docstring): rates in requests per second, times in seconds.
"""

from __future__ import annotations

from ._array import Number

__all__ = ["utilisation", "mm1_wait_s", "md1_wait_s", "in_system"]


def utilisation(rate_per_s: Number, service_s: Number) -> Number:
    """rho = lambda * S: the share of time the server is busy. A queue is stable only below 1."""
    return rate_per_s * service_s


def mm1_wait_s(rate_per_s: Number, service_s: Number) -> Number:
    """rho * S / (1 - rho): M/M/1's mean wait in queue (exponential service times); infinite at rho >= 1."""
    rho = utilisation(rate_per_s, service_s)
    return float("inf") if rho >= 1 else rho * service_s / (1 - rho)


def md1_wait_s(rate_per_s: Number, service_s: Number) -> Number:
    """rho * S / (2 * (1 - rho)): M/D/1's mean wait in queue (every service the same length), half
    M/M/1's: the variance of the service times is what doubles the wait."""
    return mm1_wait_s(rate_per_s, service_s) / 2


def in_system(rate_per_s: Number, time_in_system_s: Number) -> Number:
    """L = lambda * W (Little's law): how many are in the system at once, from their arrival rate and the
    mean time each spends in it. It holds for any arrival pattern, averaged over a steady stretch."""
    return rate_per_s * time_in_system_s
