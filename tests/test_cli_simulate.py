"""`gpu_math.py simulate` (main() in this process; the first test starts the script as a user does): --json (valid JSON
with the issue's keys), the text, the KV dtype the engine's profile picks, and bad input as one line with exit code
2."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import gpu_math

KEYS = ("ttft_s", "tpot_s", "itl_s", "e2e_s", "queue_s", "output_tokens_per_s_per_gpu", "input_tokens_per_s_per_gpu",
        "requests_per_s", "mean_batch", "preemptions", "requests")
RUN = ("--model", "gpt-oss-120b", "--gpu", "b200", "--gpus", "2", "--input-tokens", "1024", "--output-tokens", "256")


def simulate(*args: str, process: bool = False) -> subprocess.CompletedProcess:
    return gpu_math("simulate", *args, process=process)


def strict_json(text: str) -> dict:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_json_has_every_key_and_is_valid_json():
    r = simulate(*RUN, "--concurrency", "8", "--json", process=True)  # as a user runs it
    assert r.returncode == 0, r.stderr
    out = strict_json(r.stdout)
    for key in KEYS:
        assert key in out
    for key in ("ttft_s", "tpot_s", "itl_s", "e2e_s", "queue_s"):
        assert set(out[key]) == {"mean", "p50", "p90", "p95", "p99"}
        assert out[key]["p50"] <= out[key]["p90"] <= out[key]["p95"] <= out[key]["p99"]
    # Ten requests per unit of concurrency, at least 200, less the first wave of 8: 192 reported.
    assert (out["requests"], out["warmup_requests"]) == (192, 8)
    # Without --kv, vLLM on a B200 with GPT-OSS takes FP8, as the InferenceMAX launch script set it.
    assert out["kv_dtype"] == "fp8" and "gptoss_fp4_b200" in out["kv_dtype_source"]
    assert out["tpot_band"]["low"] <= out["tpot_s"]["p50"] <= out["tpot_band"]["high"]


def test_open_loop_and_the_same_seed():
    a = strict_json(simulate(*RUN, "--rate", "5", "--burstiness", "2", "--requests", "200", "--json").stdout)
    b = strict_json(simulate(*RUN, "--rate", "5", "--burstiness", "2", "--requests", "200", "--json").stdout)
    assert a == b and a["arrivals"] == "Gamma"
    # 5 requests/s offered, well under this replica's capacity: about 5 served (200 requests: +-15 %).
    assert a["requests_per_s"] == pytest.approx(5, rel=0.15)


def test_a_prefix_hit_rate_shortens_the_first_token_of_a_lone_request():
    # One request at a time (concurrency 1): with 3/4 of each 1,024-token prompt cached, the replica
    # prefills 256 tokens instead of 1,024, so the time to first token is shorter; the run says the share.
    cold, warm = (strict_json(simulate(*RUN, "--concurrency", "1", "--requests", "5", "--prefix-hit-rate", share,
                                       "--json").stdout) for share in ("0", "0.75"))
    assert (cold["prefix_hit_rate"], warm["prefix_hit_rate"]) == (0, 0.75)
    assert warm["ttft_s"]["mean"] < cold["ttft_s"]["mean"]


def test_unmerged_adapters_add_their_reads_to_each_step():
    # Llama 3.1 8B on one H100, a closed loop of 64: with 5,000 rank-16 adapters each step also reads its
    # distinct ones (tests/engine/serving/test_adapters.py derives the term), so the median TPOT grows.
    run = ("--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "1", "--input-tokens", "1000", "--output-tokens",
           "200", "--concurrency", "64", "--requests", "200", "--json")
    lora = ("--adapters", "5000", "--adapter-popularity", "1", "--adapter-rank", "16", "--adapter-slice-bytes", "1e10")
    plain, unmerged = strict_json(simulate(*run).stdout), strict_json(simulate(*run, *lora).stdout)
    assert unmerged["tpot_s"]["p50"] > plain["tpot_s"]["p50"]


def test_a_trace_replays_its_requests(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,500,20\n0.5,800,30\n1.0,300,10\n")
    out = strict_json(simulate(*RUN, "--trace", str(trace), "--json").stdout)
    assert out["requests"] == 3 and out["arrivals"] == "Trace"


def test_the_text_report_names_the_replica_and_the_percentiles():
    r = simulate(*RUN, "--concurrency", "4")
    assert r.returncode == 0, r.stderr
    for text in ("gpt-oss-120b on 2 x b200", "time to first token", "time per output token", "p99",
                 "Throughput per GPU", "not a floor"):
        assert text in r.stdout


@pytest.mark.parametrize("args, message", [
    (("--concurrency", "0"), "positive whole number"),
    (("--concurrency", "4", "--engine", "tgi"), "unknown engine 'tgi'"),
    (("--concurrency", "4", "--rate", "2"), "not allowed with argument"),
    (("--rate", "2", "--burstiness", "-1"), "positive number"),
    (("--concurrency", "4", "--burstiness", "2"), "--burstiness goes with --rate"),
    (("--concurrency", "4", "--ep", "3"), "ep must be a positive whole number dividing gpus"),
    (("--trace", "/nonexistent/trace.csv"), "cannot read the trace"),
    (("--concurrency", "4", "--range-ratio", "1.5"), "(0, 1]"),
    (("--concurrency", "4", "--prefix-hit-rate", "1.5"), "--prefix-hit-rate: must be a number between 0 and 1"),
    (("--concurrency", "4", "--prefix-hit-rate", "nan"), "--prefix-hit-rate: must be a finite number"),
    (("--offline", "0"), "--offline: must be a positive whole number"),
    (("--offline", "8", "--concurrency", "4"), "not allowed with argument"),
    (("--concurrency", "4", "--kv-memory-fraction", "1.5"), "--kv-memory-fraction: must be a number in (0, 1]"),
    (("--concurrency", "4", "--chunked-prefill", "yes"), "--chunked-prefill: invalid choice: 'yes'"),
    (("--concurrency", "4", "--token-budget", "-8"), "--token-budget: must be a positive whole number"),
    (("--concurrency", "4", "--adapters", "5000"), "--adapter-rank and --adapter-slice-bytes go together"),
    (("--concurrency", "4", "--adapters", "50", "--adapter-popularity", "1", "--adapter-rank", "16",
      "--adapter-slice-bytes", "1e9"), "not a dense GQA model"),  # an MoE's adapters are per expert
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = simulate(*RUN, *args)
    assert r.returncode == 2
    assert message in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_a_bad_trace_line_names_the_file_and_the_line(tmp_path):
    trace = tmp_path / "bad.csv"
    trace.write_text("0,500,20\n0.5,eight hundred,30\n")
    r = simulate(*RUN, "--trace", str(trace))
    assert r.returncode == 2 and "bad.csv: line 2" in r.stderr and r.stderr.count("\n") == 1


def test_a_gpu_in_no_family_is_refused_with_the_families():
    r = simulate("--model", "llama-3.1-8b", "--gpu", "a100", "--gpus", "1", "--input-tokens", "100",
                 "--output-tokens", "10", "--concurrency", "2")
    assert r.returncode == 2 and "no family" in r.stderr and "hopper" in r.stderr


def test_a_model_too_big_for_the_replica_says_to_add_gpus():
    r = simulate("--model", "deepseek-v3", "--gpu", "h100", "--gpus", "1", "--input-tokens", "100",
                 "--output-tokens", "10", "--concurrency", "2", "--engine", "sglang")
    assert r.returncode == 2 and "use more --gpus" in r.stderr and r.stderr.count("\n") == 1
