"""The day of traffic (macros/engine/autoscale/) against hand derivations: the fluid model on tiny days
whose answers follow from the rules in fluid.py's docstring, the signals' readings, the drawn day, the
cold start from the data, and the invariant served + shed = offered on every policy and signal."""

from __future__ import annotations

import dataclasses
import math

import pytest

from macros.engine.autoscale import day as days
from macros.engine.autoscale import inputs as day_inputs
from macros.engine.autoscale.fluid import POLICIES, Controls, simulate_day
from macros.engine.autoscale.reservation import day_reservation, forecastable
from macros.engine.autoscale.run import autoscale, forecast_error
from macros.engine.autoscale.signals import SIGNALS, Mix, busy_probability, demand_replicas
from macros.engine.fleet.workload_file import design
from macros.engine.lookup import InputError
from macros.engine.specs import DATA_DIR, SpecError

ONE = Mix(capacity_per_s=1.0, tokens_per_request=1000, kv_occupancy=0.25, e2e_s=10.0)  # 1 request/s per replica
N = 1440


def controls(**changes: object) -> Controls:
    base = Controls(policy="reactive", signal="queue", set_point=1.0, cold_minutes=0, warm_minutes=0,
                    hold_minutes=0, min_replicas=1, max_replicas=1000, slo_percentile=95, forecast_error=0.0,
                    gpus_per_replica=2)
    return dataclasses.replace(base, **changes)


def flat_day(rates: list[float], forecast: float | None = None) -> days.Day:
    return days.Day(tuple(rates), tuple([forecast if forecast is not None else rates[0]] * len(rates)),
                    (False,) * len(rates))


# --- the fluid model on hand-made days -------------------------------------------------------------

def test_constant_load_below_capacity_sheds_nothing_and_costs_replicas_times_24():
    # 10 requests/s at 1 request/s per replica, set point 0.5: ceil(10 / (1 x 0.5)) = 20 replicas from the
    # start, and the queue signal asks for the same 20 every minute. 600 offered a minute against 1,200.
    # GPU-hours = 20 replicas x 2 GPUs x 24 h = 960.
    run = simulate_day(flat_day([10.0] * N), controls(set_point=0.5), ONE, ONE)
    assert {m.replicas for m in run.minutes} == {20}
    assert run.shed_requests == 0 and run.slo_violation_minutes == 0
    assert run.offered_requests == run.served_requests == 600 * N
    assert run.gpu_hours == pytest.approx(20 * 2 * 24)
    assert run.cold_starts == 0


@pytest.mark.parametrize("cold", [0, 3, 7])
def test_a_cold_start_delays_capacity_by_exactly_its_minutes(cold):
    # 10 requests/s until minute 100, then 20: the scaler sees 20 after minute 100 and orders 10 more,
    # which serve from minute 100 + 1 + cold. Until then 10 replicas take 600 of 1,200 a minute.
    rates = [10.0] * 100 + [20.0] * (N - 100)
    run = simulate_day(flat_day(rates, 10.0), controls(cold_minutes=cold), ONE, ONE)
    serving = [m.replicas for m in run.minutes]
    assert serving[:101 + cold] == [10] * (101 + cold)
    assert serving[101 + cold:] == [20] * (N - 101 - cold)
    assert [m.shed for m in run.minutes[100:101 + cold]] == [600] * (1 + cold)
    assert run.shed_requests == 600 * (1 + cold) and run.slo_violation_minutes == 1 + cold
    assert run.cold_starts == 10
    # Starting replicas are paid for: 10 serving in minutes 0..100 + cold, 20 after, and 10 loading in
    # the cold minutes 101..100 + cold; 2 GPUs each.
    serving_minutes = 10 * (101 + cold) + 20 * (N - 101 - cold)
    assert run.gpu_hours == pytest.approx(2 * (serving_minutes + 10 * cold) / 60)


def test_scale_down_waits_for_the_hold_window():
    # 20 requests/s, then 10 from minute 50: with a 5-minute hold the target is the highest of the last six
    # minutes' (the minute just seen and five before), so it stays 20 through the decision after minute 54
    # (minutes 49..54, 49 at 20) and drops after minute 55: 10 serve from minute 56.
    rates = [20.0] * 50 + [10.0] * (N - 50)
    run = simulate_day(flat_day(rates, 20.0), controls(hold_minutes=5), ONE, ONE)
    serving = [m.replicas for m in run.minutes]
    assert serving[:56] == [20] * 56 and serving[56:] == [10] * (N - 56)


def test_the_warm_pool_serves_after_the_warm_start_and_refills_cold():
    # Forecast 10 requests/s: 10 replicas, pool ceil(10 x 0.5) = 5. A step to 14 after minute 100 takes 4
    # from the pool (warm start 1 minute: serving from minute 102, not 100 + 1 + 6 = 107 cold), and the
    # pool orders 4 cold ones to get back to 5.
    rates = [10.0] * 100 + [14.0] * (N - 100)
    c = controls(policy="warm-pool", cold_minutes=6, warm_minutes=1, forecast_error=0.5)
    run = simulate_day(flat_day(rates, 10.0), c, ONE, ONE)
    serving = [m.replicas for m in run.minutes]
    assert serving[101] == 10 and serving[102] == 14
    assert run.minutes[101].warm_pool == 1 and run.minutes[107].warm_pool == 5
    assert run.warm_starts == 4 and run.cold_starts == 4
    assert run.shed_requests == 2 * 4 * 60  # minutes 100 and 101 short by 4 replicas


def test_the_reservation_holds_serving_starting_and_pooled_replicas_together():
    # Forecast 10 requests/s, pool ceil(10 x 0.5) = 5, but a reservation of 12 leaves the pool 12 - 10 = 2.
    # A step to 14 after minute 100: the scaler wants 14, the reservation caps serving at 12; both pooled
    # replicas serve from minute 102 (warm start 1) and none is left to refill. From minute 102 on, 12 serve
    # 720 of the 840 offered a minute (120 shed, 14.3 %, over the SLO), and 12 replicas are held all day.
    rates = [10.0] * 100 + [14.0] * (N - 100)
    c = controls(policy="warm-pool", cold_minutes=6, warm_minutes=1, forecast_error=0.5, max_replicas=12)
    run = simulate_day(flat_day(rates, 10.0), c, ONE, ONE)
    assert run.minutes[0].warm_pool == 2 and run.minutes[0].replicas == 10
    assert [m.replicas for m in run.minutes[101:103]] == [10, 12]
    assert all(m.replicas + m.starting + m.warm_pool <= 12 for m in run.minutes)
    assert {m.warm_pool for m in run.minutes[102:]} == {0} and run.cold_starts == 0
    assert {m.shed for m in run.minutes[102:]} == {120} and run.minutes[102].late
    assert run.gpu_hours == pytest.approx(12 * 2 * 24)


def test_predictive_orders_a_cold_start_ahead_of_the_forecast():
    # The forecast steps from 10 to 20 at minute 200 and the load follows it exactly; with a 5-minute
    # cold start the predictive scaler orders after minute 194 (the forecast for minutes 195..200 holds
    # 20), so 20 serve from minute 200 and nothing is shed. Reactive sheds 10 x 60 for 1 + 5 minutes.
    rates = [10.0] * 200 + [20.0] * (N - 200)
    day = days.Day(tuple(rates), tuple(rates), (False,) * N)
    ahead = simulate_day(day, controls(policy="predictive", cold_minutes=5), ONE, ONE)
    assert ahead.minutes[199].replicas == 10 and ahead.minutes[200].replicas == 20
    assert ahead.shed_requests == 0
    late = simulate_day(day, controls(cold_minutes=5), ONE, ONE)
    assert late.shed_requests == 600 * 6


def test_a_minute_misses_the_slo_only_past_the_percentile():
    # 1 replica (1 request/s, 60 a minute): 63 offered sheds 3 = 4.8 % (within p95); 64 sheds 4 = 6.25 %.
    c = controls(min_replicas=1, max_replicas=1)
    run = simulate_day(flat_day([63 / 60, 64 / 60], 1.0), c, ONE, ONE)
    assert [m.shed for m in run.minutes] == [3, 4]
    assert [m.late for m in run.minutes] == [False, True]


# --- the signals ---------------------------------------------------------------------------------

def test_signals_read_demand_in_replicas():
    long = Mix(capacity_per_s=0.5, tokens_per_request=1500, kv_occupancy=0.3, e2e_s=12.0)
    # 8 requests/s of the long mix on 4 replicas: true load 8 / 0.5 = 16 replicas.
    assert demand_replicas("queue", 8, 4, long, ONE) == pytest.approx(16)
    # Requests read the planned capacity: 8 / 1 = 8, half the truth.
    assert demand_replicas("requests", 8, 4, long, ONE) == pytest.approx(8)
    # Tokens: 8 x 1,500 / (1 x 1,000) = 12.
    assert demand_replicas("tokens", 8, 4, long, ONE) == pytest.approx(12)
    # KV: occupancy min(1, 16 / 4 x 0.3) = 1 (full), over the planned 0.25: 4 x 1 / 0.25 = 16.
    assert demand_replicas("kv", 8, 4, long, ONE) == pytest.approx(16)
    # ... and on 8 replicas, min(1, 2 x 0.3) = 0.6: 8 x 0.6 / 0.25 = 19.2 (a linear reading, not the truth).
    assert demand_replicas("kv", 8, 8, long, ONE) == pytest.approx(19.2)
    # Utilisation: 1 - e^(-2 x 12) over 1 - e^(-1 x 10), on 4 replicas: about 4 x 1.0000454.
    assert demand_replicas("utilisation", 8, 4, long, ONE) == pytest.approx(
        4 * (1 - math.exp(-24)) / (1 - math.exp(-10)))
    with pytest.raises(ValueError, match="unknown signal"):
        demand_replicas("vibes", 8, 4, long, ONE)


def test_utilisation_is_near_full_long_before_capacity():
    # A tenth of capacity (0.1 request/s) with 10 s in the system: 1 - e^-1 = 63 %; at half, 1 - e^-5 = 99.3 %.
    assert busy_probability(0.1, 10) == pytest.approx(1 - math.exp(-1))
    assert busy_probability(0.5, 10) == pytest.approx(0.99326, abs=1e-5)


# --- the drawn day, the trace, the forecast's error ------------------------------------------------

def test_the_curve_peaks_at_the_peak_hour_and_troughs_twelve_hours_later():
    x = day_inputs.day_inputs()
    c = days.curve(600, 375, 14)  # trough 2 x 375 - 600 = 150
    assert c[14 * 60] == pytest.approx(600) and c[2 * 60] == pytest.approx(150)
    assert sum(c) / len(c) == pytest.approx(375)
    calm = dataclasses.replace(x, burst_chance_per_minute=0.0)
    assert days.lifts(calm, 1) == [0.0] * N
    assert days.lifts(x, 1) == days.lifts(x, 1) != days.lifts(x, 2)  # seeded
    shift = days.shifted_minutes(dataclasses.replace(x, shift_start_hour=23, shift_hours=2))
    assert shift[23 * 60] and shift[0] and shift[59] and not shift[60] and not shift[23 * 60 - 1]


def test_forecast_error_is_the_percentile_of_the_misses_above_it():
    # Twenty minutes: forecast 100; actual 100 in 17 and 110, 120, 150 in three. Misses sorted: 0 x 17,
    # 0.1, 0.2, 0.5; the 95th percentile by nearest rank is the ceil(0.95 x 20) = 19th: 0.2.
    rates = [100.0] * 17 + [110.0, 120.0, 150.0]
    assert forecast_error(days.Day(tuple(rates), (100.0,) * 20, (False,) * 20), 95) == pytest.approx(0.2)


@pytest.mark.parametrize("text, words", [
    ("1\nfast\n", "line 2: expected one rate"),
    ("1\n-2\n", "line 2: the rate must not be negative"),
    ("nan\n", "line 1: the rate must be a finite number"),
    ("requests_per_s\n\n", "no rates in the trace"),
])
def test_a_bad_trace_is_one_line_naming_the_line(tmp_path, text, words):
    path = tmp_path / "t.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=words):
        days.read_rate_trace(str(path))


def test_a_trace_with_its_header(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("requests_per_s\n1.5\n\n0\n")
    assert days.read_rate_trace(str(path)) == (1.5, 0.0)


# --- the data: the cold start, a bad file --------------------------------------------------------

def test_cold_start_from_the_data():
    # Llama-3.1-70B in FP8: 70,553,706,496 B over the 1.25 GB/s path = 56.44 s; the 10 GB image 8 s;
    # allocation 30 s (the instance-acquisition claim's low end); engine 30 s: 124.44 s, 3 whole minutes.
    cold = day_inputs.cold_start(70_553_706_496, day_inputs.day_inputs())
    assert cold.total_s == pytest.approx(30 + 8 + 70_553_706_496 / 1.25e9 + 30)
    assert cold.minutes == 3


def test_a_start_that_ends_inside_a_minute_serves_from_the_next():
    # 0 s: the next minute; 10 s (a warm start): one minute; 120 s: two; 121 s: three; (0.1 + 0.2) x 400 s,
    # 120.00000000000001 in floating point, is still two.
    assert [day_inputs.whole_minutes(s) for s in (0, 10, 120, 121, (0.1 + 0.2) * 400)] == [0, 1, 2, 3, 2]


def test_a_day_more_peaked_than_a_sinusoid_raises_its_cosine_to_a_power():
    # mean of ((1 + cos t) / 2) ** k over a period: k = 1, 1/2; k = 2, (1 + 2 x 0 + 1/2) / 4 = 3/8; k = 3,
    # Gamma(3.5) / (sqrt(pi) Gamma(4)) = (15/8) / 6 = 5/16. So a peak 8/3 of the mean is k = 2, 16/5 is k = 3.
    assert days.peakedness(8 / 3) == pytest.approx(2, rel=1e-9)
    assert days.peakedness(16 / 5) == pytest.approx(3, rel=1e-9)
    # 600 requests/s at the peak over a mean of 200 (3x): the peak at 14:00, zero at 02:00, the day's mean 200
    c = days.curve(600, 200, 14)
    assert c[14 * 60] == pytest.approx(600) and c[2 * 60] == pytest.approx(0, abs=1e-9)
    assert sum(c) / len(c) == pytest.approx(200, rel=1e-9) and min(c) >= 0
    # at twice the mean the two forms meet: the sinusoid down to zero is peak x (1 + cos) / 2, k = 1
    assert days.curve(600, 300, 14) == pytest.approx([600 * (1 + math.cos(2 * math.pi * (m / 60 - 14) / 24)) / 2
                                                      for m in range(N)])
    with pytest.raises(InputError, match="a peak 30 times the day's mean is more than 24"):
        days.curve(600, 20, 14)
    with pytest.raises(InputError, match="the day's mean rate must be positive"):
        days.curve(600, 0, 14)


def test_a_bad_autoscale_file_names_the_table_and_field(tmp_path):
    text = (DATA_DIR / "autoscale.toml").read_text().replace("burst_mean_minutes = 10", "burst_mean_minutes = -1")
    (tmp_path / "a.toml").write_text(text)
    with pytest.raises(SpecError, match=r"a.toml: \[day\] burst_mean_minutes must be a positive number"):
        day_inputs.load_day_inputs(tmp_path / "a.toml")
    (tmp_path / "b.toml").write_text(text.replace("-1", "10").replace("slo_percentile = 95", "slo_percentile = 96"))
    with pytest.raises(SpecError, match="slo_percentile must be one of 50, 90, 95, 99"):
        day_inputs.load_day_inputs(tmp_path / "b.toml")


# --- the worked design's day ---------------------------------------------------------------------

@pytest.mark.parametrize("policy", POLICIES)
def test_served_plus_shed_is_offered_on_every_run(policy):
    w = design("autoscaler")[0]
    for signal in SIGNALS:
        r = autoscale(w, policy, signal).run
        assert all(m.served + m.shed == m.offered and m.shed >= 0 for m in r.minutes), signal
        assert r.served_requests + r.shed_requests == r.offered_requests, signal


def test_the_day_s_reservation_is_the_fewest_replicas_that_serve_it_as_no_ceiling_does():
    # The search's answer against a scan of the twelve counts up to it, on the worked design's forecastable day
    # (no bursts): the minutes over the SLO fall (never rise) as the reservation grows, the answer's equal the
    # ceiling's, one fewer has more, and no minute holds more replicas than the reservation.
    w = design("autoscaler")[0]
    held = day_reservation(w, at_least=200)
    x = forecastable(day_inputs.day_inputs())
    assert x.burst_chance_per_minute == 0 and held.day.inputs == x
    late = [autoscale(w, "predictive", "queue", x=x, reservation=n).run.slo_violation_minutes
            for n in range(max(200, held.replicas - 11), held.replicas + 1)]
    assert late == sorted(late, reverse=True)
    assert late[-1] == held.unbounded.run.slo_violation_minutes < late[-2]
    assert held.below.run.slo_violation_minutes == late[-2]  # the day one replica fewer, which the page cites
    assert max(m.replicas + m.starting + m.warm_pool for m in held.day.run.minutes) <= held.replicas
    with pytest.raises(InputError, match="above the day's ceiling"):
        day_reservation(w, at_least=10_000)
    with pytest.raises(InputError, match="at least one replica"):
        autoscale(w, "reactive", reservation=0)


def test_unknown_policy_and_signal():
    w = design("autoscaler")[0]
    with pytest.raises(InputError, match="unknown policy 'eager'"):
        autoscale(w, "eager")
    with pytest.raises(InputError, match="unknown signal 'vibes'"):
        autoscale(w, "reactive", "vibes")


def test_the_price_is_the_workload_s_or_the_gpu_s_typical_dated():
    w = design("autoscaler")[0]
    own = autoscale(dataclasses.replace(w, price_per_gpu_hour=2.0), "reactive")
    assert (own.price_from, own.price_as_of) == ("workload", None)
    assert own.cost == pytest.approx(own.run.gpu_hours * 2.0)
    typical = autoscale(w, "reactive")  # H200: prices.toml's typical 3.80 USD, as of 2026
    assert (typical.price_from, typical.price_as_of, typical.price_per_gpu_hour) == ("prices.toml", "2026", 3.80)
