"""Queueing napkins for one server: the utilisation, the mean wait in queue with Poisson arrivals and
exponential (M/M/1) or fixed (M/D/1) service times, Kingman's approximation for any arrivals and service, the
wait's percentiles, Little's law, and Lindley's recursion (the exact waits of one first-come server on given
arrival times, which checks the napkins against a simulator's own arrivals). They sit beside the serving model's
simulated percentiles (macros/engine/serving/), which a batching engine needs: these are for the back of an
envelope, and chapter 6.5 (docs/guide/autoscaling.md) says how a replica maps onto them.

Pure functions in SI base units (see the package docstring): rates in requests per second, times in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._array import Number

__all__ = ["utilisation", "mm1_wait_s", "md1_wait_s", "kingman_wait_s", "wait_percentile_s", "in_system",
           "lindley_waits_s", "erlang_c", "mmc_wait_s", "mmc_wait_percentile_s", "servers_for_wait"]


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


def kingman_wait_s(rate_per_s: Number, service_s: Number, arrival_cv: Number, service_cv: Number) -> Number:
    """rho / (1 - rho) * (c_a^2 + c_s^2) / 2 * S: Kingman's approximation of one server's mean wait in queue,
    from the coefficients of variation (standard deviation over mean) of the gaps between arrivals, c_a, and of
    the service times, c_s. Poisson gaps have c_a = 1, a fixed service c_s = 0 (M/D/1) and an exponential one
    c_s = 1 (M/M/1); with Poisson arrivals it is exact (Pollaczek-Khinchine), otherwise exact as rho nears 1.
    Infinite at rho >= 1."""
    rho = utilisation(rate_per_s, service_s)
    if rho >= 1:
        return float("inf")
    return rho / (1 - rho) * (arrival_cv ** 2 + service_cv ** 2) / 2 * service_s


def wait_percentile_s(mean_wait_s: float, rho: float, percentile: float) -> float:
    """The p-th percentile (0 < p < 100) of the wait in queue, if an arrival finds the server busy with
    probability rho (exact for Poisson arrivals) and then waits an exponential time of mean W_q / rho (exact for
    M/M/1, the shape of the tail near saturation otherwise): (W_q / rho) ln(rho / (1 - p / 100)); 0 when
    rho <= 1 - p / 100, since that share of arrivals never waits. The p95: (W_q / rho) ln(20 rho)."""
    tail = 1 - percentile / 100
    if rho <= tail:
        return 0.0
    return mean_wait_s / rho * math.log(rho / tail)


def in_system(rate_per_s: Number, time_in_system_s: Number) -> Number:
    """L = lambda * W (Little's law): how many are in the system at once, from their arrival rate and the
    mean time each spends in it. It holds for any arrival pattern, averaged over a steady stretch."""
    return rate_per_s * time_in_system_s


def lindley_waits_s(arrivals_s: Sequence[float], service_s: float) -> list[float]:
    """Each arrival's wait in queue at one first-come server whose every service takes service_s, arrivals in
    time order: Lindley's recursion, W(n + 1) = max(0, W(n) + S - (A(n + 1) - A(n))), from an empty queue."""
    waits: list[float] = []
    wait = 0.0
    for n, at in enumerate(arrivals_s):
        if n:
            wait = max(0.0, wait + service_s - (at - arrivals_s[n - 1]))
        waits.append(wait)
    return waits


def erlang_c(servers: int, offered: float) -> float:
    """Erlang's C: the chance an arrival waits in an M/M/c queue of c servers offered a = lambda * S of load,
    (a^c / c!) * c / (c - a) / (sum_{k<c} a^k / k! + (a^c / c!) * c / (c - a)); 1 when a >= c (unstable).
    The terms are built by the ratio a / k, so no factorial overflows."""
    if offered >= servers:
        return 1.0
    term, partial = 1.0, 0.0
    for k in range(servers):
        partial += term
        term *= offered / (k + 1)
    tail = term * servers / (servers - offered)
    return tail / (partial + tail)


def mmc_wait_s(servers: int, rate_per_s: float, service_s: float) -> float:
    """C * S / (c - a): M/M/c's mean wait in queue, C = erlang_c(c, a) the chance of waiting at all (M/M/1's at
    c = 1, where C = rho); infinite at a >= c."""
    offered = utilisation(rate_per_s, service_s)
    return float("inf") if offered >= servers else erlang_c(servers, offered) * service_s / (servers - offered)


def mmc_wait_percentile_s(servers: int, rate_per_s: float, service_s: float, percentile: float) -> float:
    """The p-th percentile of M/M/c's wait in queue: wait_percentile_s with the chance of waiting C, since a
    waiting arrival waits an exponential time (of rate c/S - lambda): ln(C / (1 - p/100)) / (c/S - lambda)."""
    offered = utilisation(rate_per_s, service_s)
    if offered >= servers:
        return float("inf")
    return wait_percentile_s(mmc_wait_s(servers, rate_per_s, service_s), erlang_c(servers, offered), percentile)


def servers_for_wait(rate_per_s: float, service_s: float, percentile: float, wait_s: float) -> int:
    """The fewest servers (M/M/c) whose p-th percentile wait in queue is at most wait_s: at least enough for the
    load, then one more at a time. A negative wait_s fits no pool: ValueError."""
    if wait_s < 0:
        raise ValueError(f"servers_for_wait: no pool keeps a wait within {wait_s:g} s")
    servers = max(1, math.floor(rate_per_s * service_s) + 1)
    while mmc_wait_percentile_s(servers, rate_per_s, service_s, percentile) > wait_s:
        servers += 1
    return servers
