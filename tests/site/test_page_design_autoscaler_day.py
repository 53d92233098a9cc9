"""The autoscaler design's day of traffic (macros/site/pages/design_autoscaler_day.py): figures against
hand derivations from the workload file and data/autoscale.toml, its tables against its runs, the drawing's
series against the timeline, and the facts its sentences rest on.

Inputs: the design's 600 requests/s peak on 150 first-order replicas, 2,500-token prompts and 350-token
outputs, 15 % headroom; data/autoscale.toml's prompts 1.5 times as long in the afternoon, p95 SLO."""

from __future__ import annotations

import math

import pytest

from macros.engine.autoscale.fluid import POLICIES
from macros.engine.autoscale.signals import SIGNALS
from macros.site.pages import design_autoscaler_day as day


@pytest.fixture(scope="module")
def q():
    return day.model()


def test_the_figures_from_their_inputs(q):
    assert q.napkin_per_replica_per_s == pytest.approx(600 / 150)  # the planner's 150 replicas at the peak
    assert q.token_growth == pytest.approx((2500 * 1.5 + 350) / (2500 + 350))  # 4,100 / 2,850 = 1.44
    assert q.capacity_drop == pytest.approx(q.capacity_per_s / q.shifted_capacity_per_s)
    assert q.shed_allowed == pytest.approx(0.05)
    # The longer prompts stop at the target their percentile is nearer, as a share of it.
    shifted = q.reactive.shifted
    nearer = "TTFT" if shifted.ttft_s / 1.0 >= shifted.tpot_s / 0.04 else "TPOT"
    assert q.shift_binding == nearer
    assert q.controls.set_point == pytest.approx(1 / 1.15)
    # Utilisation reaches its set point where 1 - exp(-r W) = set point x (1 - exp(-capacity x W)).
    w, cap = q.reactive.planned.e2e_mean_s, q.capacity_per_s
    r = q.util_rate_at_set_point
    assert 1 - math.exp(-r * w) == pytest.approx((1 / 1.15) * (1 - math.exp(-cap * w)))
    assert q.busy_at_tenth == pytest.approx(1 - math.exp(-cap / 10 * w))


def test_the_tables_show_each_run(q):
    for key in POLICIES:
        run = q.policies[key].run
        assert f"| {day.NAMES[key]} | {run.gpu_hours:,.0f} |" in q.policy_table
    for key in SIGNALS:
        assert f"| {day.NAMES[key]} |" in q.signal_table
    assert q.signals["queue"] is not q.policies["reactive"]  # computed apart, and yet the same day:
    assert q.signals["queue"].run == q.policies["reactive"].run
    extra = q.pooled.cost - q.reactive.cost
    assert q.price_note.startswith("at $3.80 per GPU-hour (2026: ")  # prices.toml's H200, dated
    assert q.extra_cost == pytest.approx(extra) and q.extra_cost_share == pytest.approx(extra / q.reactive.cost)


def test_the_drawing_series_add_up_to_the_timeline(q):
    for key in POLICIES:
        s, run = q.series[key], q.policies[key].run
        assert len(s.hours) == 1440 // 5 and s.hours[1] == pytest.approx(5 / 60)
        # Each bin's mean rate x 300 s is its requests: the bins sum to the day's.
        assert sum(s.offered) * 300 == pytest.approx(run.offered_requests)
        assert sum(s.shed) * 300 == pytest.approx(run.shed_requests)
        assert max(s.replicas) == max(m.replicas for m in run.minutes)


def test_the_done_when_holds_on_todays_data(q):
    # Predictive with a warm pool beats reactive on SLO minutes at a stated cost, and request
    # count and utilisation misbehave. The page's sentences rest on these facts; the build checks them too.
    assert q.pool_wins.holds and q.extra_cost > 0
    assert q.count_fails.holds and q.util_wastes.holds


def test_the_policies_are_compared_on_ten_more_days_of_bursts(q):
    # The page's day is seed 1; seeds 2 to 11 draw ten more days of bursts (each forecast backtested on the next
    # seed), under the same reservation: the pool's wins, the ranges, and the two claims counted on them.
    import dataclasses

    from macros.engine.autoscale.run import autoscale

    x = q.reactive.inputs
    assert x.seed == 1 and q.other_seeds == "2 to 11" and q.other_count == 10
    days = [{p: autoscale(q.w, p, day.POLICY_SIGNAL, x=dataclasses.replace(x, seed=k),
                          reservation=q.controls.max_replicas).run.slo_violation_minutes for p in POLICIES}
            for k in range(2, 12)]
    assert q.other_days == days
    assert q.pool_wins_days == sum(d["warm-pool"] < d["reactive"] for d in days)
    assert q.late_range["reactive"] == (min(d["reactive"] for d in days), max(d["reactive"] for d in days))
    assert q.pool_never_worse.holds == all(d["warm-pool"] <= d["reactive"] for d in days)
    assert q.forecast_never_helps.holds == all(abs(d["predictive"] - d["reactive"]) <= max(2, d["reactive"] // 10)
                                               for d in days)


def test_the_kv_sentence_follows_its_minutes_against_queue_depth():
    # Within 5 minutes of queue depth's, a tie; more, worse (with both figures); fewer, better.
    assert day.kv_words(62, 60) == "KV occupancy does as well as queue depth only because"
    assert day.kv_words(208, 60) == ("KV occupancy does worse than queue depth, 208 minutes over the SLO against "
                                     "60, even though")
    assert day.kv_words(40, 60).startswith("KV occupancy does better than queue depth, 40 minutes")
    q = day.model()
    kv, queue = q.signals["kv"].run.slo_violation_minutes, q.signals["queue"].run.slo_violation_minutes
    assert q.kv_words == day.kv_words(kv, queue)
