"""Chapter 6's page model (macros/site/pages/autoscaling.py) against figures derived by hand.

Inputs, from the data: the 70B preset (N = 70e9, KV 327,680 B per token, BF16 weights 140 GB) on
4 x H100 (3.35 TB/s, 989.4 TFLOP/s dense); 4,096-token sequences; workloads.toml's examples.
"""

from __future__ import annotations

import pytest

from macros.site.pages import autoscaling


@pytest.fixture(scope="module")
def q():
    return autoscaling.model()


def test_request_spread_and_kv_held(q):
    # 104,000 tokens hold 327,680 x 104,000 = 34.08 GB of KV; 25 tokens hold 8.19 MB.
    assert q.big_request_kv == 327_680 * 104_000
    assert q.small_request_kv == 327_680 * 25
    assert q.spread.token_ratio == pytest.approx(104_000 / 25)


def test_composite_signal(q):
    # max(0.93 / 0.85, 150 ms / 200 ms) = max(1.094, 0.75) = 1.094; ceil(10 x 1.094) = 11 replicas.
    assert q.kv_ratio == pytest.approx(0.93 / 0.85)
    assert q.queue_wait_ratio == pytest.approx(0.75)
    assert q.signal == pytest.approx(0.93 / 0.85)
    assert q.desired_replicas == 11
    assert (q.queue_wait_p95_ms, q.queue_wait_target_ms) == pytest.approx((150, 200))


def test_scale_up_and_warm_pool(q):
    # 140e9 B over 1.25 GB/s = 112 s; over 5 GB/s = 28 s.
    assert q.weight_load_network_s == pytest.approx(112)
    assert q.weight_load_nvme_s == pytest.approx(28)
    # 40 replicas forecast with 15% error: ceil(6) = 6 warm replicas.
    assert q.warm_replicas == 6


def test_fairness(q):
    # 10 x 100,000 = 1,000,000 tokens against 10 x 100 = 1,000: 1,000x the capacity.
    assert (q.tenant_big_total, q.tenant_small_total) == (1_000_000, 1_000)
    assert q.tenant_ratio == pytest.approx(1000)


def test_swap_against_recompute(q):
    # Swap 1,342,177,280 B each way at 64 GB/s: 2 x 20.97 ms = 41.9 ms. Recompute: prefill of
    # 4,096 tokens, (2 x 70e9 x 4,096 + causal attention 4 x 64 x 128 x 80 x 4,096 x 4,097 / 2)
    # / (4 x 989.4e12) = 150.5 ms. Swapping is 3.59x faster.
    assert q.swap_round_trip_s == pytest.approx(2 * 1_342_177_280 / 64e9)
    recompute = (2 * 70e9 * 4096 + 2_621_440 * 4096 * 4097 / 2) / (4 * 989.4e12)
    assert q.swap_speedup == pytest.approx(recompute / (2 * 1_342_177_280 / 64e9))


def test_gpu_utilisation_misleads(q):
    # At the full batch of 122 the step reads 140e9 + 122 x 1.342e9 = 303.7 GB for 122 x (2 x 70e9
    # + attention over 4,096 cached tokens, 4 x 64 x 128 x 80 x 4,096 = 1.074e10) FLOPs: intensity
    # 60.5 FLOP/B against a balance of 295.3, so 20.5% of peak compute.
    intensity = 122 * (2 * 70e9 + 2_621_440 * 4096) / (140e9 + 122 * 1_342_177_280)
    assert q.compute_used_full_batch == pytest.approx(intensity / (989.4e12 / 3.35e12))


def test_problem_signal_on_h200(q):
    p = q.problems
    # 4 x 141e9 - 140e9 - 16e9 = 408e9 B; 250 x 3,000 x 327,680 B = 245.76e9 B held: 60.2%
    assert p.replica.kv_budget_bytes == pytest.approx(408e9)
    assert p.kv_held == 250 * 3000 * 327_680
    assert p.occupancy == pytest.approx(245.76e9 / 408e9)
    # max(0.602 / 0.85, 300 / 200) = 1.5, the queue term; ceil(12 x 1.5) = 18
    assert p.kv_ratio == pytest.approx(245.76e9 / 408e9 / 0.85)
    assert p.signal == pytest.approx(1.5)
    assert p.desired_replicas == 18


def test_problem_warm_pool_and_load(q):
    p = q.problems
    # ceil(120 x 0.08 = 9.6) = 10 replicas of 8 GPUs; 80 x $3.80 x 24 = $7,296 a day
    assert (p.warm_replicas, p.warm_gpus) == (10, 80)
    assert p.warm_cost_per_day == pytest.approx(80 * 3.8 * 24)
    # DeepSeek-V3 in FP8: 671e9 B over 1.25e9 B/s = 536.8 s (8.95 minutes), over 5e9 B/s = 134.2 s
    assert p.big_load_network_s == pytest.approx(536.8)
    assert p.big_load_network_min == pytest.approx(536.8 / 60)
    assert p.big_load_nvme_s == pytest.approx(134.2)


def test_problem_long_preemption(q):
    p = q.problems
    # 32,768 tokens: 10,737,418,240 B each way at 64e9 B/s: 335.5 ms round trip; recompute
    # (2 x 70e9 x 32,768 + 2,621,440 x 32,768 x 32,769 / 2) / 3.9576e15 = 1.515 s: 4.51x
    swap = 2 * 10_737_418_240 / 64e9
    recompute = (2 * 70e9 * 32768 + 2_621_440 * 32768 * 32769 / 2) / (4 * 989.4e12)
    assert p.long_costs.swap_round_trip_s == pytest.approx(swap)
    assert p.long_costs.swap_speedup == pytest.approx(recompute / swap)
    assert p.long_costs.swap_speedup > q.swap_speedup  # the lead grows with the context


def test_which_term_of_the_signal_binds():
    from macros.site.pages.autoscaling import term_binds

    # 0.93 / 0.85 = 1.09 over its target while the queue is at 0.75: the KV term alone calls for replicas
    assert term_binds("kv", 0.93 / 0.85, 0.75).holds
    assert not term_binds("queue", 0.93 / 0.85, 0.75).holds
    # both above 1: neither binds alone, and a KV-only autoscaler would have moved too
    assert not term_binds("queue", 1.2, 1.5).holds


def test_forecast_band_and_warm_pool(q):
    b = q.band
    # the autoscaler design: a 600 requests/s peak (the forecast's curve peaks there), 15% headroom, so the
    # replicas run at 1 / 1.15 = 87.0% of their capacity within the SLO
    assert b.peak_forecast_per_s == pytest.approx(600)
    assert b.set_point == pytest.approx(1 / 1.15)
    # the forecast's replicas at the peak: ceil(600 / (capacity x 0.8696)); with the simulated capacity of
    # about 3.29 requests/s that is ceil(209.7) = 210
    need = 600 / (b.capacity_per_s / 1.15)
    assert need <= b.forecast_replicas < need + 1
    # the pool covers the forecast's error: ceil(replicas x error), 210 x 35.6% = 74.7 -> 75
    assert 0 < b.error < 1
    assert b.forecast_replicas * b.error <= b.warm_replicas < b.forecast_replicas * b.error + 1
    # the day's run holds at most that pool, and less where the reservation (serving, starting and pooled
    # together) leaves less room; the band is the forecast times (1 + error)
    assert b.pool_peak <= b.warm_replicas
    held = [m.replicas + m.starting + m.warm_pool for m in b.run.run.minutes]
    assert max(held) <= b.run.controls.max_replicas == b.reservation
    assert b.band_upper[0] == pytest.approx(b.forecast_binned[0] * (1 + b.error))
    assert len(b.forecast_binned) == len(b.series.hours) == 24 * 60 // 5
    # data/autoscale.toml's mix shift: from 15:00 for 3 hours, prompts 1.5 times longer
    assert (b.shift_start_hour, b.shift_end_hour, b.shift_prompt_scale) == (15, 18, 1.5)


# --- 6.5: queueing theory on the knee's replica (pages/_queueing.py) --------------------------------------


def test_queueing_worked_example_by_hand(q):
    import math

    qq, e = q.queue, q.queue.example
    s, rate = qq.service_s, e.rate_per_s
    # rho = lambda S; M/D/1: rho (S / 2) / (1 - rho), the residual S / 2; M/M/1 twice that (residual S)
    rho = rate * s
    assert e.rho == pytest.approx(rho) and e.residual_s == pytest.approx(s / 2)
    assert e.wait_s == pytest.approx(rho * (s / 2) / (1 - rho)) and e.mm1_wait_s == pytest.approx(2 * e.wait_s)
    assert e.queued == pytest.approx(rate * e.wait_s)  # Little's law on the queue alone
    # the p95 wait (W_q / rho) ln(20 rho); TTFT = overhead + wait + S, its mean and its p95
    assert e.wait_p95_s == pytest.approx(e.wait_s / rho * math.log(20 * rho))
    assert e.napkin_mean_s == pytest.approx(qq.overhead_s + e.wait_s + s)
    assert e.napkin_p95_s == pytest.approx(qq.overhead_s + e.wait_p95_s + s)
    # the example is 6.4's knee, and the anchor's 2,000-token prompt: 8,192 // 2,000 = 4 prompts fit a step
    assert e.is_knee and rate == q.knee.k.knee.rate_per_s
    assert (qq.prompt, qq.token_budget, qq.prompts_per_step) == (2000, 8192, 4)


def test_queueing_reads_the_sweeps_own_runs(q):
    # 6.5's table reads the runs the sweep made (no new simulation): each rate's p99 is the sweep's.
    from macros.site.pages import _queueing
    from macros.site.pages._sweep import anchor_sweep

    swept = anchor_sweep()
    base = _queueing.base_request(swept)
    for r, point in zip(q.queue.rates, swept.points, strict=True):
        assert r.rate_per_s == point.rate_per_s
        assert _queueing.poisson_run(base, r.rate_per_s)["ttft_s"]["p99"] == point.ttft_p99_s


def test_queueing_napkin_within_the_stated_tolerance_inside_its_range(q):
    qq = q.queue
    inside = [r for r in qq.rates if r.rho <= qq.max_rho]
    assert len(inside) >= 4 and inside[0] is qq.light and inside[-1] is qq.top
    assert all(abs(r.p95_error) <= qq.tolerance for r in inside)
    assert qq.worst_p95_error == max(abs(r.p95_error) for r in inside)
    # what the chapter says of the range's edge: the first rate past it that misses, misses by more than the tolerance
    if qq.overshoot:
        assert qq.overshoot.rho > qq.max_rho and abs(qq.overshoot.p95_error) > qq.tolerance
    # the p95's rise over the mean's, from the lightest rate to the last inside the range
    assert qq.sim_rise_ratio == pytest.approx((qq.top.sim_p95_s - qq.light.sim_p95_s)
                                              / (qq.top.sim_mean_s - qq.light.sim_mean_s))
    assert qq.p95_grows_faster.holds and qq.problems_within.holds and qq.sweep_within.holds and qq.shared_steps.holds


def test_kingman_rows_by_hand(q):
    qq = q.queue
    for b in qq.bursty:
        # c_a = 2, c_s = 0: rho / (1 - rho) x (4 + 0) / 2 x S = 4 x M/D/1's rho S / (2 (1 - rho))
        assert b.kingman_wait_s == pytest.approx(4 * b.md1_wait_s)
        assert b.md1_wait_s == pytest.approx(b.rho * qq.service_s / (2 * (1 - b.rho)))
    assert qq.kingman_factor == 4


def test_one_server_waits_on_the_simulators_own_arrivals():
    # The "one server, same arrivals" column replays the bursty run's arrival times: the simulator, run on the same
    # request, sends the same requests at the same times (and the statistics leave out the same first tenth).
    from dataclasses import replace

    from macros.engine.serving.arrivals import Gamma, requests
    from macros.engine.serving.lengths import Fixed
    from macros.engine.serving.prng import Rng
    from macros.engine.serving.run import simulate_run
    from macros.site.pages import _queueing
    from macros.site.pages._sweep import anchor_sweep

    swept = anchor_sweep()
    base = _queueing.base_request(swept)
    rate = _queueing.BURSTY_FRACTIONS[0] * swept.capacity_per_s
    run = simulate_run(replace(base, concurrency=None, rate_per_s=rate, burstiness=_queueing.BURSTY_CV,
                               requests=_queueing.BURSTY_REQUESTS))
    sent = [r.arrival_s for r in sorted(run.result.records, key=lambda r: r.id)]
    drawn = requests(Gamma(rate, _queueing.BURSTY_CV), Fixed(base.input_tokens), Fixed(base.output_tokens),
                     _queueing.BURSTY_REQUESTS, Rng(base.seed))
    assert sent == [d.arrival_s for d in drawn]
    assert run.summary.warmup_requests == _queueing.BURSTY_REQUESTS // 10
