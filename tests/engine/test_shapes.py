"""The shape search (engine/fleet/shapes.py): its candidates, its Pareto curve, and that what it chooses is what
its own points say."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

from macros.engine.fleet.shapes import TIE, Point, Shape, candidates, pareto, search
from macros.engine.serving.kv_blocks import pool_blocks
from macros.engine.serving.profiles import profile
from macros.engine.serving.replica import build_replica

TP1 = Shape(1, "tp", 1)


def _point(user: float, gpu: float, c: int = 1) -> Point:
    return Point(TP1, c, 1 / user, 0.1, user, gpu, True)


def test_the_pareto_curve_keeps_only_points_nothing_beats_on_both_axes():
    # (per user, per GPU): b beats c on both (20 > 15, 80 > 70); a and b trade one for the other; d equals b
    # and beats nothing, and nothing strictly beats it, so it stays beside b.
    a, b, c, d = _point(10, 100), _point(20, 80), _point(15, 70), _point(20, 80, c=2)
    assert pareto([c, b, a, d]) == (a, b, d)


def test_candidates_are_tensor_parallel_for_a_dense_model_and_also_attention_dp_for_a_moe():
    assert [s.label for s in candidates("llama-3.1-70b")] == ["TP1", "TP2", "TP4", "TP8"]
    assert [s.label for s in candidates("deepseek-v3")][4:] == [
        "DP-attention 2, EP 2", "DP-attention 4, EP 4", "DP-attention 8, EP 8"]


@pytest.fixture(scope="module")
def chat():
    # Llama-3.1-70B in FP8 on H100: 4,000-token prompts, 500-token answers, TTFT 2 s, TPOT 50 ms (one of the
    # issue's aiconfigurator scenarios).
    return search("llama-3.1-70b", "h100", "fp8", "bf16", "vllm", 4000, 500, 2.0, 0.05)


def test_the_chosen_shape_has_the_best_point_within_the_targets(chat):
    best = chat.chosen.best
    assert best.meets and best.ttft_s <= 2.0 and best.tpot_s <= 0.05
    others = [r.best.output_tokens_per_s_per_gpu for r in chat.results if r.best and r is not chat.chosen]
    assert all(x <= best.output_tokens_per_s_per_gpu / (1 - TIE) for x in others)
    assert chat.runner_up.best.output_tokens_per_s_per_gpu == max(others)
    # Each shape's best is the highest per GPU among its own points within the targets.
    for r in chat.results:
        mine = [p.output_tokens_per_s_per_gpu for p in chat.points if p.shape == r.shape and p.meets]
        assert (r.best.output_tokens_per_s_per_gpu if r.best else None) == (max(mine) if mine else None)


def test_no_point_runs_more_sequences_than_its_kv_pool_holds(chat):
    for p in chat.points:
        prof = profile("vllm", "h100", "llama-3.1-70b", "fp8")
        replica = build_replica("llama-3.1-70b", "h100", p.shape.gpus, p.shape.layout, p.shape.ep, "fp8", "bf16")
        assert p.concurrency * 4500 <= pool_blocks(replica, prof.memory_fraction, prof.block_tokens) * 16


def test_the_curve_is_the_search_s_own_points_and_falls_as_speed_per_user_rises(chat):
    assert set(chat.pareto) <= set(chat.points)
    per_gpu = [p.output_tokens_per_s_per_gpu for p in chat.pareto]
    assert per_gpu == sorted(per_gpu, reverse=True)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "gpu_math.py"), "shapes", *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_the_command_line_prints_json_and_refuses_a_bad_variant_in_one_line():
    ok = _cli("macros/data/designs/consumer-chat.toml", "--json")
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["chosen"]["output_tokens_per_s_per_gpu"] > 0 and data["pareto"]
    bad = _cli("macros/data/designs/consumer-chat.toml", "--variant", "nope")
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
    assert "no [variants.nope]" in bad.stderr
