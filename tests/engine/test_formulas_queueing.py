"""The formulas the practice problems added: the queueing napkins, the largest prefill chunk and the fleet's
replica load, each against values derived here by hand."""

from __future__ import annotations

import math

import pytest

from macros.engine import formulas as f


def test_mm1_and_md1_waits():
    # 2 requests/s of 0.25 s each: rho = 0.5; M/M/1 waits 0.5 x 0.25 / 0.5 = 0.25 s, M/D/1 half that.
    assert f.utilisation(2.0, 0.25) == 0.5
    assert math.isclose(f.mm1_wait_s(2.0, 0.25), 0.25) and math.isclose(f.md1_wait_s(2.0, 0.25), 0.125)
    # At rho = 0.9 the wait is nine service times under M/M/1: 0.9 x 0.1 / 0.1 = 0.9 s for S = 0.1 s.
    assert math.isclose(f.mm1_wait_s(9.0, 0.1), 0.9)
    assert f.mm1_wait_s(10.0, 0.1) == math.inf and f.md1_wait_s(12.0, 0.1) == math.inf  # saturated


def test_kingmans_approximation():
    # 2 requests/s of 0.25 s: rho = 0.5. Gaps with a coefficient of variation of 2 and a fixed service:
    # 0.5 / 0.5 x (2^2 + 0^2) / 2 x 0.25 = 1 x 2 x 0.25 = 0.5 s, four times M/D/1's 0.125 s.
    assert math.isclose(f.kingman_wait_s(2.0, 0.25, 2.0, 0.0), 0.5)
    # Poisson gaps (c_a = 1) and a service with c_s = 0.5: 1 x (1 + 0.25) / 2 x 0.25 = 0.15625 s.
    assert math.isclose(f.kingman_wait_s(2.0, 0.25, 1.0, 0.5), 0.15625)
    # With Poisson arrivals it is Pollaczek-Khinchine: a fixed service gives M/D/1, an exponential one M/M/1.
    assert math.isclose(f.kingman_wait_s(2.0, 0.25, 1.0, 0.0), f.md1_wait_s(2.0, 0.25))
    assert math.isclose(f.kingman_wait_s(2.0, 0.25, 1.0, 1.0), f.mm1_wait_s(2.0, 0.25))
    assert f.kingman_wait_s(4.0, 0.25, 2.0, 0.0) == math.inf  # rho = 1: saturated


def test_the_waits_percentile():
    # M/M/1 at rho = 0.5, S = 0.25 s: W_q = 0.25 s. Exactly, P(wait > t) = rho exp(-(1 - rho) t / S)
    # = 0.5 exp(-2 t), which is 0.05 at t = ln(10) / 2 = 1.1513 s; the rule: (0.25 / 0.5) ln(0.5 / 0.05), the same.
    assert math.isclose(f.wait_percentile_s(0.25, 0.5, 95), math.log(10) / 2)
    # The p99 at rho = 0.8 with a mean wait of 1 s: (1 / 0.8) ln(0.8 / 0.01) = 1.25 x ln 80 = 5.4775 s.
    assert math.isclose(f.wait_percentile_s(1.0, 0.8, 99), 1.25 * math.log(80))
    # At rho = 0.04 only 4 % of arrivals wait at all: the p95 waits nothing; at rho = 0.05 exactly, still nothing.
    assert f.wait_percentile_s(0.01, 0.04, 95) == 0.0 and f.wait_percentile_s(0.01, 0.05, 95) == 0.0


def test_lindleys_recursion():
    # One server of 1 s: arrivals at 0, 0.5, 0.7 and 5 s. The first waits 0; the second 0 + 1 - 0.5 = 0.5;
    # the third 0.5 + 1 - 0.2 = 1.3; the fourth max(0, 1.3 + 1 - 4.3) = 0.
    assert f.lindley_waits_s([0.0, 0.5, 0.7, 5.0], 1.0) == [0.0, 0.5, 1.3, 0.0]
    assert f.lindley_waits_s([], 1.0) == []


def test_largest_prefill_chunk():
    # 50 ms x 0.4 = 20 ms of floor; 20 ms x 4 x 989.4e12 / (2 x 70e9) = 565.4 tokens: 565 - 64 decodes = 501.
    assert f.largest_prefill_chunk(0.05, 0.4, 4, 989.4e12, 70e9, 64) == 501
    # Exactly 1,350 tokens a step (0.03 x 0.3 x 3e15 / (2 x 1e10), 1349.9999999999998 in floats) stays 1,350:
    # 1,350 - 50 decodes = 1,300, not 1,299.
    assert 0.03 * 0.3 * 1 * 3e15 / (2 * 1e10) < 1350
    assert f.largest_prefill_chunk(0.03, 0.3, 1, 3e15, 1e10, 50) == 1300


def test_replica_load_and_replicas():
    # 10,000 tokens/s over 2,500 a replica = 4; 50 requests/s x 0.1 s = 5; 9 x 1.2 = 10.8: 11 replicas.
    assert f.decode_replicas(10_000, 2_500) == 4 and math.isclose(f.prefill_replicas(50, 0.1), 5)
    assert f.replicas_for_load(9, 0.2) == 11
    assert f.replicas_for_load(10, 0.2) == 12  # 10 x 1.2 = 12.000000000000002 in floats: 12, not 13


def test_littles_law():
    # 3 requests/s, each 12 s in the system: 3 x 12 = 36 in it at once; tasks in flight are the same law.
    assert f.in_system(3, 12) == 36 and f.tasks_in_flight(3, 12) == 36


def test_erlang_c_against_its_closed_forms():
    # one server: an arrival waits with probability rho (M/M/1), 0.5 at a = 0.5
    assert f.erlang_c(1, 0.5) == pytest.approx(0.5)
    # two servers offered a = 1: (1/2 x 2/(2 - 1)) / (1 + 1 + 1) = 1/3
    assert f.erlang_c(2, 1.0) == pytest.approx(1 / 3)
    # three servers, a = 2: tail (8/6) x 3 = 4; partial 1 + 2 + 2 = 5; C = 4 / 9
    assert f.erlang_c(3, 2.0) == pytest.approx(4 / 9)
    assert f.erlang_c(2, 2.0) == 1.0  # at capacity every arrival waits


def test_the_mmc_wait_and_the_pool_it_sizes():
    # one server: M/M/c's mean wait is M/M/1's, rho S / (1 - rho) = 1 s at rho 0.5 and S = 1 s
    assert f.mmc_wait_s(1, 0.5, 1.0) == f.mm1_wait_s(0.5, 1.0) == 1.0
    # M/M/1 at rho 0.5, S = 1 s: P(W > t) = 0.5 e^{-(1 - 0.5) t}; the p95: ln(0.5 / 0.05) / 0.5 = 4.605 s
    assert f.mmc_wait_percentile_s(1, 0.5, 1.0, 95) == pytest.approx(math.log(10) / 0.5)
    # two servers, a = 1: C = 1/3, so ln((1/3) / 0.05) / (2 - 1) = 1.897 s
    assert f.mmc_wait_percentile_s(2, 1.0, 1.0, 95) == pytest.approx(math.log(20 / 3))
    # three servers at a = 1: C = (1/6 x 3/2) / (1 + 1 + 1/2 + 1/4) = 1/11, so ln((1/11) / 0.05) / 2 = 0.2989 s
    assert f.erlang_c(3, 1.0) == pytest.approx(1 / 11)
    assert f.mmc_wait_percentile_s(3, 1.0, 1.0, 95) == pytest.approx(math.log(20 / 11) / 2)
    # four: C = (1/24 x 4/3) / (1 + 1 + 1/2 + 1/6 + 1/18) = 1/49, fewer than 5 % wait at all: the p95 wait is 0
    assert f.erlang_c(4, 1.0) == pytest.approx(1 / 49)
    assert f.mmc_wait_percentile_s(4, 1.0, 1.0, 95) == 0.0
    assert f.mmc_wait_percentile_s(2, 2.0, 1.0, 95) == math.inf
    # the fewest servers whose p95 wait is at most 2 s at a = 1: one is unstable, two wait 1.897 s
    assert f.servers_for_wait(1.0, 1.0, 95, 2.0) == 2
    assert f.servers_for_wait(1.0, 1.0, 95, 0.0) == 4
    with pytest.raises(ValueError):
        f.servers_for_wait(1.0, 1.0, 95, -0.1)
