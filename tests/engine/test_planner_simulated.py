"""The planner's simulated answer (macros/engine/fleet/planner_simulated.py): the search's boundary re-simulated
from outside, an exact queueing limit, Little's law against the command line, percentile targets in a
workload file, and `gpu_math.py plan --json` with the simulated keys."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, gpu_math

from macros.engine.fleet import answer, fleet_options, planner, planner_simulated
from macros.engine.fleet.planner import plan
from macros.engine.fleet.planner_simulated import ONE_AT_A_TIME, simulated_plan
from macros.engine.fleet.workload_file import Target, Workload, WorkloadError, design, load_workload_file
from macros.engine.serving.calibration import params_for
from macros.engine.serving.metrics import PERCENTILES
from macros.engine.serving.profiles import profile
from macros.engine.serving.replica import build_replica
from macros.engine.serving.run import RunRequest, run
from macros.engine.serving.steady_state import steady_requests
from macros.engine.serving.step import costs, step_time_s
from macros.engine.serving.types import StepBatch

# Llama-3.1-8B on one H100: cheap to simulate (a search is a handful of runs of 1,000 short requests).
SMALL = Workload(name="small", model="llama-3.1-8b", gpu="h100", gpus_per_replica=1, peak_requests_per_s=120.0,
                 prompt_tokens=500, output_tokens=50, ttft_s=0.5, tpot_s=0.05, ttft_p95_s=0.15, tpot_p95_s=0.02)


def _cli(*args: str) -> str:
    """gpu_math.py ARGS's standard output (its main() in this process), which must exit 0."""
    out = gpu_math(*args)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _outside(w: Workload, replicas: int, requests: int | None = None, seed: int = 0) -> dict:
    """One replica of `replicas` at peak, simulated afresh (no cache) from the workload's own fields, as
    `gpu_math.py simulate --rate peak/n --requests N --seed S` runs it (N: the default 1,000)."""
    return run(RunRequest(model=w.model, gpu=w.gpu, gpus=w.gpus_per_replica, input_tokens=w.prompt_tokens,
                          output_tokens=w.output_tokens, weights=w.weights, kv=w.kv,
                          rate_per_s=w.peak_requests_per_s / replicas, burstiness=w.burstiness,
                          prefix_hit_rate=w.prefix_hit_rate, requests=requests, seed=seed))


def _ran(c: planner_simulated.Check) -> int:
    return c.stats["requests"] + c.stats["warmup_requests"]


def test_the_chosen_count_meets_the_p95s_at_peak_and_one_fewer_does_not():
    s = simulated_plan(plan(SMALL))
    assert s.feasible and s.replicas is not None and s.replicas > 1
    # Each re-simulated with as many requests as the search ran it (a run that met while filling ran longer), one
    # fewer on the draw it missed on (seed 0's, or a confirming seed's).
    chosen = _outside(SMALL, s.replicas, _ran(s.chosen))
    fewer = _outside(SMALL, s.below.replicas, _ran(s.below), s.below.seed)
    assert s.below.replicas == s.replicas - 1
    assert chosen["ttft_s"]["p95"] <= 0.15 and chosen["tpot_s"]["p95"] <= 0.02
    assert fewer["ttft_s"]["p95"] > 0.15 or fewer["tpot_s"]["p95"] > 0.02
    # The plan reports the run it chose, and the GPUs are its replicas of one GPU.
    assert (s.as_json()["ttft_p95_s"], s.as_json()["tpot_p95_s"]) == (chosen["ttft_s"]["p95"], chosen["tpot_s"]["p95"])
    assert s.gpus == s.replicas
    # It names as binding a target that one replica fewer misses.
    assert s.binding in (Target("ttft", 95, 0.15), Target("tpot", 95, 0.02))
    assert planner_simulated.slack(fewer, s.binding) > 0


def test_with_regular_arrivals_the_boundary_is_where_the_replica_saturates():
    # D/D/1, exact: outputs of one token and prompts of exactly vLLM's token budget (8,192), so each request
    # is one prefill step of fixed length D served alone; arrivals almost regular (gaps' coefficient of
    # variation 0.001: within 0.4 % of their mean over 1,000 draws). While a replica's gap peak / n is longer
    # than D, no request waits and every TTFT is the server's overhead + D; once it is shorter, the queue grows
    # by (D - gap) a request. At peak = 10.5 / D that is n > 10.5: 11 replicas (load 0.955) meet a p95 of
    # 1.5 x (overhead + D), and 10 (load 1.05) miss it by far: the 950th request waits about 0.05 D x 950.
    prof = profile("vllm", "h100", "llama-3.1-8b", "bf16")
    replica = build_replica("llama-3.1-8b", "h100", 1)
    params = params_for("h100", "vllm", replica.attention)
    p = prof.token_budget
    d = step_time_s(costs(replica, params), StepBatch(prefill_tokens=p, prefill_seqs=1,
                                                      prefill_pairs=p * (p + 1) / 2), graphed=False)
    # the API server's latency, its own work (no request queued ahead: the gaps are far longer) and tokenising
    overhead = params.request_overhead_s + params.api_request_s + params.prompt_token_overhead_s * p
    w = Workload(name="D/D/1", model="llama-3.1-8b", gpu="h100", gpus_per_replica=1, peak_requests_per_s=10.5 / d,
                 prompt_tokens=p, output_tokens=1, ttft_s=10.0, tpot_s=1.0, burstiness=0.001,
                 ttft_p95_s=1.5 * (overhead + d))
    s = simulated_plan(plan(w))
    assert s.replicas == 11 and s.below is not None and s.below.replicas == 10
    assert s.chosen is not None
    assert s.chosen.stats["ttft_s"]["p99"] == pytest.approx(overhead + d, rel=1e-9)
    assert s.below.stats["ttft_s"]["p95"] > 0.05 * d * 900


def test_live_concurrency_is_the_rate_times_the_mean_time_in_the_system(tmp_path: Path):
    # Little's law, checked against a run of the command line: `simulate` at the plan's per-replica rate gives
    # the mean end-to-end latency W; the plan's live concurrency must be rate x W (to 1 %), and it is a number
    # of requests, not the SLO batch.
    path = tmp_path / "w.toml"
    path.write_text(SMALL_FILE)
    out = json.loads(_cli("plan", str(path), "--json"))
    rate = out["simulated_requests_per_s_per_replica"]
    assert rate == pytest.approx(40.0 / out["replicas"], rel=1e-12)
    again = json.loads(_cli("simulate", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "1", "--input-tokens",
                            "500", "--output-tokens", "50", "--kv", "bf16", "--rate", repr(rate), "--json"))
    assert out["live_concurrency_per_replica"] == pytest.approx(rate * again["e2e_s"]["mean"], rel=0.01)
    assert (out["ttft_p95_s"], out["tpot_p95_s"]) == (again["ttft_s"]["p95"], again["tpot_s"]["p95"])


def test_a_loose_ttft_target_gets_a_run_long_enough_to_show_a_queue_that_grows():
    # 400 requests/s against a 20 s p95 TTFT: 1,000 requests at 400 / n a second arrive within 1,000 n / 400 s,
    # too short for an overloaded replica's queue to reach 20 s, so each run spans 20 x 20 s of arrivals
    # (400 / n x 400 requests). Then the chosen count is one that keeps up: a run twice as long, simulated
    # afresh, still meets the target (a replica that could not keep up would wait twice as long).
    w = dataclasses.replace(SMALL, peak_requests_per_s=400.0, ttft_p95_s=20.0, tpot_p95_s=0.5)
    s = simulated_plan(plan(w))
    assert s.replicas is not None and s.chosen is not None and s.chosen.rate_per_s is not None
    assert planner_simulated.requests_for(w, s.chosen.rate_per_s) == math.ceil(400 / s.replicas * 20 * 20)
    longer = run(dataclasses.replace(planner_simulated.run_request(w, 1, s.chosen.rate_per_s),
                                     requests=2 * math.ceil(400 / s.replicas * 400)))
    assert longer["ttft_s"]["p95"] <= 20.0
    # At the small workload's own 150 ms the default 1,000 requests already span long enough.
    assert planner_simulated.requests_for(SMALL, 40.0) is None


def test_a_run_that_meets_while_still_filling_is_run_again_longer():
    # 26.3 requests/s, each 8 s in the system: Little's law puts 26.3 x 8 = 210.4 in it; a warm-up of a tenth
    # spanning two lives needs 20 x 210.4 = 4,208 requests, in whole thousands 5,000. A run of 1,000 has too few.
    stats = {"requests": 900, "warmup_requests": 100, "e2e_s": {"mean": 8.0}}
    assert steady_requests(stats, 26.3) == 5000
    # 5,000 have them; past 50,000 the run stops at the cap, and once there it is not run again.
    assert steady_requests({**stats, "requests": 4500, "warmup_requests": 500}, 26.3) is None
    assert steady_requests(stats, 500.0) == 50_000  # 20 x 500 x 8 = 80,000
    assert steady_requests({**stats, "requests": 45_000, "warmup_requests": 5_000}, 500.0) is None
    # A replica that holds a hundred-odd long answers at once: the search's chosen run was lengthened past the
    # default 1,000 requests, and has the lives it needs (its warm-up spans two of its own requests' lives).
    w = dataclasses.replace(SMALL, peak_requests_per_s=400.0, output_tokens=400, ttft_p95_s=0.5, tpot_p95_s=0.04)
    c = simulated_plan(plan(w)).chosen
    assert c is not None and 1000 < _ran(c) and _ran(c) >= 20 * c.rate_per_s * c.stats["e2e_s"]["mean"]


def test_a_target_one_request_alone_misses_is_an_answer_not_an_error():
    # A 1 ms p95 TTFT: the API server's own latency is longer, so no count meets it.
    s = simulated_plan(plan(dataclasses.replace(SMALL, ttft_p95_s=0.001)))
    assert (s.feasible, s.infeasible_because, s.replicas, s.gpus) == (False, ONE_AT_A_TIME, None, None)
    assert s.evidence is not None and Target("ttft", 95, 0.001) in s.evidence.misses
    j = answer.answer(plan(s.workload)).json
    assert (j["feasible"], j["replicas"], j["gpus"], j["cost_per_day"]) == (False, None, None, None)
    assert j["ttft_p95_s"] is None and j["live_concurrency_per_replica"] is None
    assert j["napkin_feasible"] is True and j["napkin_replicas"] > 0  # the napkin, which ignores the server, has one


def test_with_mean_targets_alone_the_answer_meets_the_means():
    # No percentile target: the means are the targets the serving model's answer meets (mean TTFT <= 100 ms,
    # mean TPOT <= 15 ms), and one replica fewer misses one of them.
    w = dataclasses.replace(SMALL, ttft_s=0.1, tpot_s=0.015, ttft_p95_s=None, tpot_p95_s=None)
    assert w.targets == (Target("ttft", None, 0.1), Target("tpot", None, 0.015))
    s = simulated_plan(plan(w))
    assert s.feasible and s.replicas is not None and s.replicas > 1
    # one fewer misses on the draw the search found it missing on (seed 0's, or a confirming seed's)
    chosen, fewer = _outside(w, s.replicas), _outside(w, s.below.replicas, _ran(s.below), s.below.seed)
    assert chosen["ttft_s"]["mean"] <= 0.1 and chosen["tpot_s"]["mean"] <= 0.015
    assert fewer["ttft_s"]["mean"] > 0.1 or fewer["tpot_s"]["mean"] > 0.015


SMALL_FILE = """name = "small"
model = "llama-3.1-8b"
gpu = "h100"
gpus_per_replica = 1
[traffic]
peak_requests_per_s = 40
prompt_tokens = 500
output_tokens = 50
[slo]
ttft_s = 0.5
tpot_s = 0.05
ttft_p95_s = 0.15
tpot_p95_s = 0.02
"""


DESIGNS = sorted(p.stem for p in (ROOT / "macros" / "data" / "designs").glob("*.toml") if p.stem != "defects")


@pytest.mark.parametrize("slug", DESIGNS)
def test_every_design_plans_with_its_p95_targets(slug: str):
    # Each design's workload gives a p95 TTFT and a p95 TPOT (and a streaming design a p95 gap between tokens),
    # and the simulation finds a count on the napkin's shape: its run meets them, and one replica fewer misses one.
    w, _ = design(slug)
    assert {"ttft_p95_s", "tpot_p95_s"} <= {t.key for t in w.percentile_targets} <= {"ttft_p95_s", "tpot_p95_s",
                                                                                     "itl_p95_s"}
    s = simulated_plan(plan(w))
    assert s.feasible and s.chosen is not None and s.chosen.meets, (slug, s.infeasible_because, s.detail)
    assert s.below is not None and s.below.replicas == s.chosen.replicas - 1 and not s.below.meets


def test_a_p95_target_is_read_and_a_p97_is_refused_in_one_line(tmp_path: Path):
    path = tmp_path / "w.toml"
    path.write_text(SMALL_FILE.replace("tpot_p95_s = 0.02", "tpot_p99_s = 0.03").replace(
        "output_tokens = 50", "output_tokens = 50\nburstiness = 2") + '[fleet]\nengine = "sglang"\n')
    w = load_workload_file(path)[0]
    assert w.percentile_targets == (Target("ttft", 95, 0.15), Target("tpot", 99, 0.03))
    assert (w.burstiness, w.engine) == (2, "sglang")
    path.write_text(SMALL_FILE.replace("ttft_p95_s", "ttft_p97_s"))
    with pytest.raises(WorkloadError, match=r"w\.toml: \[slo\] unknown field ttft_p97_s \(known: ttft_s, tpot_s, "
                                            r"ttft_p50_s, ttft_p90_s, ttft_p95_s, ttft_p99_s, tpot_p50_s"):
        load_workload_file(path)
    cli = subprocess.run([sys.executable, "gpu_math.py", "plan", str(path), "--json"], cwd=ROOT, capture_output=True,
                         text=True)
    assert cli.returncode == 2 and cli.stdout == "" and cli.stderr.count("\n") == 1
    assert "unknown field ttft_p97_s" in cli.stderr and "Traceback" not in cli.stderr


def test_the_rules_table_lists_exactly_the_simulators_percentiles():
    # One list of percentiles: the [slo] fields rules.toml declares are the simulator's p50, p90, p95, p99 for
    # TTFT, TPOT and the inter-token gap (ITL), so every target the file may give is a figure a run reports.
    rules = tomllib.loads((ROOT / "macros" / "data" / "rules.toml").read_text())["workload"]["fields"]
    declared = {f for f, rule in rules.items() if rule.get("section") == "slo" and "_p" in f}
    assert PERCENTILES == (50, 90, 95, 99)
    assert declared == {f"{m}_p{p}_s" for m in ("ttft", "tpot", "itl") for p in (50, 90, 95, 99)}


def test_plan_json_keeps_its_keys_and_adds_the_simulated_ones_finite_or_null(tmp_path: Path):
    path = tmp_path / "w.toml"
    path.write_text(SMALL_FILE)

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    out = json.loads(_cli("plan", str(path), "--json"), parse_constant=refuse)
    assert list(out) == list(answer.keys(planner.JSON_KEYS, planner_simulated.JSON_KEYS, fleet_options.JSON_KEYS))
    for key in ("ttft_p95_s", "tpot_p95_s", "live_concurrency_per_replica", "replicas", "gpus", "napkin_replicas"):
        assert isinstance(out[key], (int, float)) and math.isfinite(out[key]) and out[key] > 0, key
    assert out["gpus"] == out["replicas"] * out["gpus_per_replica"] and out["answer_from"] == "simulation"
    # Its cost is the simulated fleet's: GPUs x the H100's price on record x 24 h, and per million tokens at
    # the peak's 40 x 50 = 2,000 output tokens a second.
    price = out["price_per_gpu_hour"]
    assert out["cost_per_day"] == pytest.approx(out["gpus"] * price * 24, rel=1e-12)
    assert out["cost_per_million_output_tokens"] == pytest.approx(out["gpus"] * price / 3600 / 2000 * 1e6, rel=1e-12)
    assert out["napkin_gpus"] == out["napkin_replicas"] * out["gpus_per_replica"]
    assert out["percentile_targets"] == {"ttft_p95_s": 0.15, "tpot_p95_s": 0.02}
    # The text says what each model leaves out.
    text = _cli("plan", str(path))
    assert "The napkin leaves out queueing" in text and "The simulation leaves out lengths that vary" in text
    # The command the text gives for one replica re-runs the chosen count's run: the same p95s.
    command = next(line for line in text.splitlines() if "one replica, again: " in line).split("gpu_math.py ")[1]
    again = json.loads(_cli(*command.split(), "--json"))
    assert (again["ttft_s"]["p95"], again["tpot_s"]["p95"]) == (out["ttft_p95_s"], out["tpot_p95_s"])


PERCENTILES_ONLY = """name = "hidden 70B chat"
model = "llama-3.1-70b"
gpu = "h100"
[traffic]
peak_requests_per_s = 40
prompt_tokens = 2000
output_tokens = 300
[slo]
ttft_p95_s = 1.0
tpot_p95_s = 0.05
"""


def test_a_workload_with_percentile_targets_alone_is_planned_and_its_answer_holds_from_outside(tmp_path: Path):
    # The planner's answer is its `replicas`: re-simulated from outside with `gpu_math.py simulate` at
    # peak / replicas, it meets both p95s on seed 0's draw of arrivals and on the four it confirms on (1 to 4),
    # and at peak / (replicas - 1) one of those five draws misses one. The napkin, with no mean given, sizes against
    # the p95 figures as means (1 s, 50 ms).
    path = tmp_path / "w.toml"
    path.write_text(PERCENTILES_ONLY)
    w = load_workload_file(path)[0]
    assert (w.ttft_s, w.tpot_s, w.stated_means) == (1.0, 0.05, ())
    assert w.targets == (Target("ttft", 95, 1.0), Target("tpot", 95, 0.05))
    out = json.loads(_cli("plan", str(path), "--json"))
    assert out["feasible"] and out["percentile_targets"] == {"ttft_p95_s": 1.0, "tpot_p95_s": 0.05}
    n, g = out["replicas"], out["gpus_per_replica"]

    def outside(replicas: int, seed: int) -> dict:
        return json.loads(_cli("simulate", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", str(g),
                               "--input-tokens", "2000", "--output-tokens", "300", "--rate", repr(40 / replicas),
                               "--seed", str(seed), "--json"))

    def meets(run: dict) -> bool:
        return run["ttft_s"]["p95"] <= 1.0 and run["tpot_s"]["p95"] <= 0.05

    assert out["simulated_seed"] == 0 and out["simulated_confirm_seeds"] == [1, 2, 3, 4]
    assert all(meets(outside(n, seed)) for seed in (0, 1, 2, 3, 4))
    assert not all(meets(outside(n - 1, seed)) for seed in (0, 1, 2, 3, 4))


def test_a_metric_with_neither_a_mean_nor_a_percentile_target_is_refused_in_one_line(tmp_path: Path):
    path = tmp_path / "w.toml"
    path.write_text(PERCENTILES_ONLY.replace("tpot_p95_s = 0.05\n", ""))
    with pytest.raises(WorkloadError, match=r"w\.toml: \[slo\] tpot_s is missing: give it, or a percentile target "
                                            r"\(tpot_p50_s or tpot_p90_s or tpot_p95_s or tpot_p99_s\)$"):
        load_workload_file(path)


def test_an_inter_token_target_is_met_from_outside_with_the_token_budget_as_launched(tmp_path: Path):
    # A p95 inter-token target of 20 ms on the small workload with a 256-token budget per step: the answer's
    # replica, re-run from outside as `gpu_math.py simulate --token-budget 256` at peak / n, meets it (and the
    # TTFT target), and at peak / (n - 1) misses one of them. The budget reaches the run: with it, each
    # 500-token prompt takes two prefill chunks, so no step carries more than 256 prompt tokens.
    path = tmp_path / "w.toml"
    path.write_text(SMALL_FILE.replace("tpot_p95_s = 0.02\n", "itl_p95_s = 0.02\n") + "[fleet]\ntoken_budget = 256\n")
    w = load_workload_file(path)[0]
    assert w.token_budget == 256 and Target("itl", 95, 0.02) in w.targets
    assert planner_simulated.run_request(w, 1, 10.0).token_budget == 256
    out = json.loads(_cli("plan", str(path), "--json"))
    n = out["replicas"]
    assert out["feasible"] and out["percentile_targets"] == {"ttft_p95_s": 0.15, "itl_p95_s": 0.02}

    def outside(replicas: int, seed: int = 0) -> dict:
        return json.loads(_cli("simulate", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "1", "--input-tokens",
                               "500", "--output-tokens", "50", "--kv", "bf16", "--token-budget", "256",
                               "--rate", repr(40 / replicas), "--seed", str(seed), "--json"))

    def meets(run: dict) -> bool:
        return run["itl_s"]["p95"] <= 0.02 and run["ttft_s"]["p95"] <= 0.15

    at = outside(n)
    assert meets(at)
    assert not all(meets(outside(n - 1, seed)) for seed in (0, 1, 2))  # one of the draws it is confirmed on misses
    assert (at["itl_s"]["p95"], at["ttft_s"]["p95"]) == (out["itl_p95_s"] if "itl_p95_s" in out else
                                                          at["itl_s"]["p95"], out["ttft_p95_s"])


def test_a_count_one_seed_lets_through_moves_up_until_every_seed_meets(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path):
    # Runs stood in for by a rule: a replica's p95 TTFT is 0.1 s per request/s it takes, 5 % worse on seed 1's
    # draw; its TPOT 10 ms whatever the load. The hidden 70B chat's targets (p95 TTFT 1 s, TPOT 50 ms) at 100
    # requests/s: seed 0 passes 10 replicas (0.1 x 10 = 1.0 s) and seed 1 needs 11 (at 10 it reads 1.05 s, at 11
    # 0.955 s). The answer is 11, with seed 0's figures (0.909 s), and the count below it is seed 1's run at 10.
    # Each run is 1,000 requests living 1 ms: no steady-state lengthening.
    def stats(rate: float, seed: int) -> dict:
        def flat(x: float) -> dict:
            return {"mean": x, **{f"p{p}": x for p in PERCENTILES}}
        return {"ttft_s": flat(0.1 * rate * (1.05 if seed == 1 else 1.0)), "tpot_s": flat(0.01), "itl_s": flat(0.01),
                "e2e_s": {"mean": 0.001}, "requests": 900, "warmup_requests": 100}

    def rate(r: RunRequest) -> float:
        return 0.01 if r.rate_per_s is None else r.rate_per_s

    path = tmp_path / "w.toml"
    path.write_text(PERCENTILES_ONLY.replace("peak_requests_per_s = 40", "peak_requests_per_s = 100"))
    w = load_workload_file(path)[0]
    monkeypatch.setattr(planner_simulated, "cached_run", lambda r: stats(rate(r), r.seed))
    s = planner_simulated.simulated_shape(w, 4, 7)
    assert (s.replicas, s.below.replicas, s.below.seed, s.chosen.seed) == (11, 10, 1, 0)
    assert s.chosen.stats["ttft_s"]["p95"] == pytest.approx(0.1 * 100 / 11)
    assert s.below.stats["ttft_s"]["p95"] == pytest.approx(1.05)
    # Where every seed draws as seed 0 does, the count is seed 0's: 10, and 9 below it on seed 0.
    monkeypatch.setattr(planner_simulated, "cached_run", lambda r: stats(rate(r), 0))
    agreed = planner_simulated.simulated_shape(w, 4, 7)
    assert (agreed.replicas, agreed.below.replicas, agreed.below.seed) == (10, 9, 0)
