"""What a plan adds beside the napkin's fleet (engine/fleet/fleet_options.py): the shape search's choice, the pools
in disaggregated mode and the speculative step, under plan --json's keys, null where there is none."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from conftest import ROOT

from macros.engine.fleet.disaggregated import disaggregate
from macros.engine.fleet.fleet_options import JSON_KEYS, options
from macros.engine.fleet.planner import plan
from macros.engine.fleet.workload_file import Workload
from macros.engine.serving.calibration import params_for
from macros.engine.serving.replica import build_replica
from macros.engine.serving.speculative import speculative_step
from macros.engine.serving.step import costs

CHAT = Workload(name="chat", model="llama-3.1-70b", gpu="h200", peak_requests_per_s=20.0, prompt_tokens=4000,
                output_tokens=500, ttft_s=2.0, tpot_s=0.05, weights="fp8")


def test_colocated_has_a_shape_and_no_pools_or_drafts():
    o = options(plan(CHAT)).as_json()
    assert list(o) == list(JSON_KEYS) and o["mode"] == "colocated"
    assert o["shape_search_best"].startswith("TP") and o["shape_search_best_output_tokens_per_s_per_gpu"] > 0
    assert all(o[k] is None for k in JSON_KEYS if k.startswith(("prefill_", "decode_", "speculative_")))


def test_disaggregated_mode_reports_the_engine_s_pools():
    w = dataclasses.replace(CHAT, mode="disaggregated")
    o = options(plan(w))
    d = disaggregate(w.model, w.gpu, w.weights, w.kv, w.engine, 4000, 0, 500, 20.0, 2.0, 0.05, w.headroom)
    j = o.as_json()
    assert (j["prefill_pool_replicas"], j["decode_pool_replicas"], j["disaggregated_gpus"]) == (
        d.prefill.replicas, d.decode.replicas, d.gpus)
    # The GPUs are the two pools' replicas times their shapes.
    assert j["disaggregated_gpus"] == (j["prefill_pool_replicas"] * j["prefill_gpus_per_replica"]
                                       + j["decode_pool_replicas"] * j["decode_gpus_per_replica"])


def test_disaggregated_pools_prefill_only_the_uncached_prompt():
    # A hit rate of 0.5 on 4,000-token prompts: the pools get the whole prompt, 4,000 tokens, of which
    # round(4,000 x 0.5) = 2,000 are cached, so each prefill computes 2,000 new tokens. (Passing the uncached
    # 2,000 as the prompt left 2,000 - 2,000 = 0 new tokens, and a division by zero.)
    w = dataclasses.replace(CHAT, mode="disaggregated", prefix_hit_rate=0.5)
    d = disaggregate(w.model, w.gpu, w.weights, w.kv, w.engine, 4000, 2000, 500, 20.0, 2.0, 0.05, w.headroom)
    o = options(plan(w))
    assert o.split == d  # the colocated fleet too: the same search, on the same 2,000-token uncached prompt
    assert o.split.prefill is not None and o.split.kv_transfer_s == d.kv_transfer_s


def test_the_speculative_step_is_taken_at_the_napkin_s_shape_and_batch():
    w = dataclasses.replace(CHAT, draft_tokens=3, acceptance=0.7)
    p = plan(w)
    o = options(p)
    # (1 - 0.7^4) / 0.3 = 2.533 tokens per verify step.
    assert o.speculative.tokens_per_step == pytest.approx((1 - 0.7 ** 4) / 0.3)
    # At the napkin's shape and SLO batch, every sequence at 4,000 + 500 / 2 = 4,250 tokens.
    r = build_replica(w.model, w.gpu, p.gpus_per_replica, w.layout, 1, w.weights, w.kv)
    c = costs(r, params_for(w.gpu, "vllm", "gqa"))
    assert o.speculative == speculative_step(c, p.slo_batch, 4250, 3, 0.7)


def test_drafts_without_an_acceptance_are_one_line(tmp_path):
    f = tmp_path / "w.toml"
    f.write_text('name = "x"\nmodel = "llama-3.1-8b"\ngpu = "h100"\n[traffic]\npeak_requests_per_s = 1.0\n'
                 'prompt_tokens = 100\noutput_tokens = 10\n[slo]\nttft_s = 1.0\ntpot_s = 0.05\n[fleet]\n'
                 'draft_tokens = 3\nmode = "disaggregated"\n')
    out = subprocess.run([sys.executable, str(ROOT / "gpu_math.py"), "plan", str(f), "--json"], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 2 and out.stdout == "" and len(out.stderr.strip().splitlines()) == 1
    assert "draft_tokens and acceptance must be given together" in out.stderr
