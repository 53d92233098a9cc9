"""A run as its engine was launched: the command line's launch settings, the offline mode, and
TensorRT-LLM's KV dtype taken from the checkpoint."""

from __future__ import annotations

import pytest

from macros.engine.lookup import InputError
from macros.engine.serving.profiles import launched, profile
from macros.engine.serving.run import RunRequest, prepare, run, simulate_run

BASE = dict(model="llama-3.1-8b", gpu="h100", gpus=1, input_tokens=1024, output_tokens=128)


def test_launch_flags_replace_the_engines_defaults_and_say_so():
    p = prepare(RunRequest(**BASE, concurrency=8, max_batch=64, token_budget=2048, chunked_prefill=False,
                           kv_memory_fraction=0.8, graph_max_batch=32)).profile
    assert (p.max_running, p.token_budget, p.chunked_prefill, p.memory_fraction, p.graph_max_batch) == (
        64, 2048, False, 0.8, 32)
    assert p.sources["token_budget"] == "given on the command line"
    default = profile("vllm", "h100", "llama-3.1-8b", "bf16", 8)
    assert launched(default) is default
    assert p.sources["block_tokens"] == default.sources["block_tokens"]


def test_a_smaller_kv_memory_fraction_gives_a_smaller_pool():
    # The pool is (fraction x memory - weights - activations) / bytes per block: a lower fraction, fewer blocks.
    small = run(RunRequest(**BASE, concurrency=4, requests=8, kv_memory_fraction=0.5))
    big = run(RunRequest(**BASE, concurrency=4, requests=8))
    assert small["kv_blocks"] < big["kv_blocks"]
    assert small["launch"]["kv_memory_fraction"] == 0.5 and big["launch"]["kv_memory_fraction"] == 0.9


def test_offline_queues_every_request_at_time_zero_and_counts_them_all():
    # N requests at time 0 is a closed loop of N clients sending N requests: the same run, step for step,
    # and nothing is left out as warm-up (the benchmark counts the whole run).
    off = simulate_run(RunRequest(**BASE, offline=300))
    closed = simulate_run(RunRequest(**BASE, concurrency=300, requests=300))
    assert off.result.records == closed.result.records
    assert all(r.arrival_s == 0.0 for r in off.result.records)
    assert off.summary.warmup_requests == 0 and off.summary.requests == 300
    assert type(off.arrivals).__name__ == "Offline"


def test_offline_is_one_of_the_arrival_modes_not_another():
    with pytest.raises(InputError, match="one of --concurrency, --rate, --trace or --offline"):
        prepare(RunRequest(**BASE, offline=10, concurrency=4))


@pytest.mark.parametrize("weights, kv", [("fp8", "fp8"), ("nvfp4", "fp8"), ("bf16", "bf16"), ("mxfp4", "bf16")])
def test_tensorrt_llm_takes_its_kv_dtype_from_the_checkpoint(weights, kv):
    # TensorRT-LLM's KV dtype "auto" is the checkpoint's KV quantisation: FP8 in ModelOpt's FP8 and NVFP4
    # checkpoints, none in a BF16 or an MXFP4 one; vLLM's "auto" is the model's activation dtype, BF16.
    assert profile("trt", "b200", "llama-3.1-70b", weights).kv == kv
    assert profile("vllm", "b200", "llama-3.1-70b", weights).kv == "bf16"
