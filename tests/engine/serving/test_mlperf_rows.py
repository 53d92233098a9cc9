"""MLPerf's dense Llama rows as the serving model simulates them (calibration/mlperf.py): each row mapped to
a replica and a launch, the rows it cannot simulate named with the reason, and the steady rate an offline
benchmark of ten minutes measures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine.calibration.mlperf import mlperf_runs, steady_output_tokens_per_s, without_api_server
from macros.engine.serving.step import StepParams
from macros.engine.serving.types import RequestRecord

ROWS = {r.id: r for r in mlperf_runs()}


def test_a_row_becomes_one_replica_of_its_tp_gpus_launched_as_the_submitter_did():
    r = ROWS["v5.1/NVIDIA/B200-SXM-180GBx8_TRT/llama2-70b-99/Offline"]
    assert (r.model, r.gpu, r.gpus, r.engine, r.weights, r.kv, r.scenario) == (
        "llama-2-70b", "b200", 1, "trt", "nvfp4", "fp8", "offline")
    assert r.concurrency == 2048 and r.excluded == "" and r.offline
    # 101,527 tokens/s over 8 GPUs, per GPU as the file derives it.
    assert r.output_tokens_per_s_per_gpu == pytest.approx(101527.0 / 8)
    assert math.isnan(r.median_tpot_s)  # an offline run measures throughput only


def test_a_server_row_carries_its_rate_per_replica_and_its_bounds():
    # 364 queries/s over 8 GPUs in replicas of 1 GPU: 45.5 per replica; llama2-70b Server's p99 bounds are
    # 2 s TTFT and 200 ms TPOT (mlperf.conf).
    r = ROWS["v5.1/NVIDIA/B200-SXM-180GBx8_TRT/llama2-70b-99/Server"]
    assert r.rate_per_replica == pytest.approx(364.0 / 8)
    assert (r.ttft_p99_bound_s, r.tpot_p99_bound_s) == (2.0, 0.2)


def test_a_row_s_output_length_is_its_own_run_s():
    # Dell's B200 Llama 3.1 8B Offline: 143,309 output tokens/s over 1,111.06 samples/s = 128.98 tokens a sample
    # (the 128-token cap); its Server row: 128,786.8 over 998.43 completed samples/s = 128.99. NVIDIA's B200
    # Llama 2 70B Offline: 101,527 over 371.423 = 273.3, where the reference's mean is 294.
    assert ROWS["v5.1/Dell/XE9680L_B200_SXM_180GBx8_TRT/llama3.1-8b/Offline"].osl == 129
    assert ROWS["v5.1/Dell/XE9680L_B200_SXM_180GBx8_TRT/llama3.1-8b/Server"].osl == 129
    assert ROWS["v5.1/NVIDIA/B200-SXM-180GBx8_TRT/llama2-70b-99/Offline"].osl == 273


@pytest.mark.parametrize("row, reason", [
    ("v5.1/NVIDIA/B200-SXM-180GBx8_TRT/llama3.1-405b/Offline", "pipeline parallelism (2 stages)"),
    ("v5.1/Cisco/", "parallelism is not published"),
    ("v5.1/MangoBoost/", "engine MangoBoost LLMBoost has no profile"),
])
def test_rows_the_model_cannot_simulate_say_why(row, reason):
    r = next(r for key, r in ROWS.items() if key.startswith(row))
    assert reason in r.excluded and r.series == ""


def test_every_system_is_one_series_for_cross_validation():
    # A system's Offline, Server and Interactive rows share one series, so leaving a series out leaves the
    # whole system out; no two systems share one.
    kept = [r for r in ROWS.values() if not r.excluded]
    by_series = {}
    for r in kept:
        by_series.setdefault(r.series, set()).add((r.id.split("/")[1], r.id.split("/")[2], r.model))
    assert all(len(systems) == 1 for systems in by_series.values())
    assert any(len([r for r in kept if r.series == s]) > 1 for s in by_series)


def test_the_steady_rate_counts_the_tokens_generated_in_the_window():
    # Three waves of four 10-token requests: wave k (k = 0, 1, 2) has its first tokens at 10k + 1 s and
    # finishes at 10k + 10 s, 9 more tokens evenly over those 9 s. Twelve finishes: the quartiles are the 4th
    # (index 3, the last of wave 0, at 10 s) and the 10th (index 9, in wave 2, at 30 s). In [10, 30) s waves 1
    # and 2 each generate 4 x 10 tokens and wave 0 none: 80 tokens in 20 s, 4 tokens/s, the run's true rate
    # (4 requests x 10 tokens every 10 s). Counting the tokens of the requests finishing in the window (the
    # indices 4 to 9, six of them) would read 60 / 20 = 3 tokens/s.
    waves = [RequestRecord(4 * k + i, 10.0 * k, 50, 10, 1.0, 10.0, 0.0, 0) for k in range(3) for i in range(4)]
    assert steady_output_tokens_per_s(waves) == pytest.approx(4.0)
    # A 100-token straggler finishing at 100 s (first token at 1 s, 99 more over 99 s) is still generating in
    # the window, one token a second, so it adds its 1 token/s over the 20 s; its finish moves the quartiles
    # from the 4th and 10th finish to the 4th and 10th of thirteen (int(0.25 x 13) = 3, int(0.75 x 13) = 9):
    # the same times, 10 and 30 s. 80 + 20 tokens in 20 s: 5 tokens/s. Its drain after 30 s does not count.
    straggler = waves + [RequestRecord(12, 0.0, 50, 100, 1.0, 100.0, 0.0, 0)]
    assert steady_output_tokens_per_s(straggler) == pytest.approx(5.0)


def test_an_eager_harness_captures_no_decode_batch_unless_it_schedules_several_steps_at_once():
    # AMD's v5.1 MI300X harness runs vLLM eagerly (enforce_eager) in every scenario; its Interactive config also
    # sets num_scheduler_steps 8, which enqueues the next step's kernels while the GPU runs this one and so hides
    # the launches as a graph would: that row keeps the engine's graphs. The Offline row's table sets graphs off
    # and no scheduler_steps (the row is left out for its harness's own scheduler): it captures none.
    interactive = dict(ROWS["v5.1/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"].launch)
    offline = dict(ROWS["v5.1/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline"].launch)
    assert "graph_max_batch" not in interactive and interactive["token_budget"] == 40960
    assert offline["graph_max_batch"] == 0


def test_a_loadgen_harness_pays_none_of_the_api_server_s_costs():
    # LoadGen hands the harness pre-tokenised samples in its own process: no HTTP latency, no tokenising, no serial
    # work per request. With 20 ms of latency, 5 ms of serial work and 1 us a prompt token, an HTTP-served request of
    # 1,000 prompt tokens waits 20 + 5 + 1 = 26 ms before the scheduler sees it; a LoadGen row's waits 0, per row too.
    p = StepParams(bw_fraction=0.9, gemm_fraction=0.5, moe_fraction=0.5, attn_fraction=0.5, link_latency_s=1e-6,
                   step_overhead_s=3e-4, sequence_overhead_s=1e-5, layer_overhead_s=5e-5, eager_layer_overhead_s=4e-5,
                   request_overhead_s=0.020, prompt_token_overhead_s=1e-6, api_request_s=0.005)
    assert p.api_latency_s(1000) == pytest.approx(0.026)
    assert without_api_server(p, True).api_latency_s(1000) == 0.0
    assert without_api_server(p, False) == p
    rows = without_api_server(p, np.array([True, False]))
    assert rows.api_latency_s(1000) == pytest.approx([0.0, 0.026])
    assert rows.bw_fraction == p.bw_fraction  # the step's own parameters stay
