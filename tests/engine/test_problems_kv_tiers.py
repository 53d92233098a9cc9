"""Chapter 11's data file and its two kinds of practice problem (macros/engine/problems/kv_tiers.py): the file
read and checked, a bad value one line naming the file, the entry and the field, and a problem of each kind and
variant solved here by hand from the inputs it states."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from macros.engine.problems import kv_tiers, problems
from macros.engine.specs import SpecError, catalog


def _first(kind: str, variant: str):
    return next(p for p in problems() if p.kind == kind and p.variant == variant)


def test_both_kinds_ask_both_of_their_questions():
    variants = {(p.kind, p.variant) for p in problems() if p.kind in ("kv-reload", "long-prefill")}
    assert variants == {("kv-reload", "latency"), ("kv-reload", "attention"), ("long-prefill", "ttft"),
                        ("long-prefill", "gpus")}


@pytest.mark.parametrize("variant", ["latency", "attention"])
def test_a_reload_problem_solved_by_hand(variant: str):
    p = _first("kv-reload", variant)
    i = p.inputs
    # per GPU: KV a token 2 L H_kv d_h k / g over the tier; recompute 2 N_a / (g eta P) a token and
    # 4 H_q d_h L / (g eta P) a causal pair; reload = recompute where (h/2) s^2 + (a + h/2 - r) s - latency = 0
    rate = i["gpus"] * i["efficiency"] * i["peak_flops"]
    r = 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * i["bytes_per_kv"] / i["gpus"] / i["bandwidth"]
    a = 2 * i["active_params"] / rate
    h = 4 * i["query_heads"] * i["head_dim"] * i["layers"] / rate
    b = a + h / 2 - r
    s = (-b + math.sqrt(b * b + 2 * h * i["latency"])) / h
    assert p.answer == pytest.approx(s, rel=1e-12)
    # what sets it: a tier faster than the break-even bandwidth wins on the weights' term alone
    assert (r < a) == (variant == "latency")
    # at the answer both sides are equal; 10% further on, reloading is the faster
    def gap(n):
        return (i["latency"] + r * n) - (a * n + h * n * (n + 1) / 2)

    assert gap(s) == pytest.approx(0, abs=1e-12) and gap(1.1 * s) < 0 < gap(0.9 * s)


def test_every_reload_problem_has_a_crossover_and_the_cause_its_variant_names():
    # The draw keeps a crossover between 2 tokens and the model's context, and a draw faster than its break-even
    # is never called "attention": checked over every problem of the kind
    for p in problems():
        if p.kind == "kv-reload":
            assert 2 <= p.answer <= catalog().models[p.source["model"]].max_context, p.id
            assert (p.solution["break_even"] < p.inputs["bandwidth"]) == (p.variant == "latency"), p.id


@pytest.mark.parametrize("variant", ["ttft", "gpus"])
def test_a_long_prefill_problem_solved_by_hand(variant: str):
    p = _first("long-prefill", variant)
    i = p.inputs
    n = i["prompt"]
    weights = 2 * i["active_params"] * n
    attention = 2 * i["layers"] * i["query_heads"] * i["head_dim"] * n * (n + 1)
    per_gpu = i["efficiency"] * i["peak_flops"]
    if variant == "ttft":
        assert p.answer == pytest.approx((weights + attention) / (i["gpus"] * per_gpu), rel=1e-12)
    else:
        assert p.answer == math.ceil(round((weights + attention) / (i["target"] * per_gpu), 9)) and p.answer >= 2
    assert p.solution["verdict"] == ("attention" if attention > weights else "weights")
    # attention overtakes the weights past N_a / (L H_q d_h) - 1 tokens
    past = i["active_params"] / (i["layers"] * i["query_heads"] * i["head_dim"]) - 1
    assert p.solution["overtakes"] == pytest.approx(past)
    assert (n > past) == (p.solution["verdict"] == "attention")


def test_the_data_file_reads():
    tiers = kv_tiers.tiers()
    assert list(tiers) == ["host-pcie", "host-c2c", "nvme-gen4", "nvme-gen5", "network"]
    # the network tier's bandwidth is claims.toml's, not the file's
    assert tiers["network"].bandwidth_bytes_per_s == catalog().claims["nic-bandwidth"].low
    assert tiers["network"].capacity_bytes is None
    # NVLink-C2C's 900 GB/s is both directions: 450 GB/s each way
    assert tiers["host-c2c"].bandwidth_bytes_per_s == 450e9
    gemma, jamba = kv_tiers.hybrids()["gemma-3-27b"], kv_tiers.hybrids()["jamba-v0-1"]
    # 62 layers, every sixth global: 62 // 6 = 10 global, 52 windowed; Jamba: 32 // 8 = 4 attention layers
    assert (gemma.window_layers, jamba.attention_layers, jamba.window_layers) == (52, 4, 0)
    assert set(kv_tiers.reported_figures()) == {"streamingllm", "h2o", "snapkv"}


def _bad(tmp_path: Path, old: str, new: str) -> Path:
    text = kv_tiers.PATH.read_text()
    assert old in text
    path = tmp_path / "long_context.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("old, new, message", [
    ("bandwidth_bytes_per_s = 52.8e9", "bandwidth_bytes_per_s = 52.8e19",
     r"\[tiers\.host-pcie\] bandwidth_bytes_per_s: 5\.28e\+20 is outside"),
    ("latency_s = 6e-5", 'latency_s = "fast"', r"\[tiers\.nvme-gen4\] latency_s: must be a finite number"),
    ("global_every = 6", "global_every = 6.5", r"\[hybrids\.gemma-3-27b\] global_every: must be a whole number"),
    ("sliding_window = 1024", "sliding_window = 1_000_000",
     r"\[hybrids\.gemma-3-27b\] sliding_window: must be shorter than max_context"),
    ('unit = "fraction"', 'unit = "percent"', r"\[reported\.h2o\] unit: 'percent' is not one of"),
    ("mamba_d_conv = 4\n", "", r"\[hybrids\.jamba-v0-1\] attention_every: Mamba layers need"),
])
def test_a_bad_value_is_one_line_naming_the_file_the_entry_and_the_field(tmp_path: Path, old: str, new: str,
                                                                          message: str):
    with pytest.raises(SpecError, match=r"long_context\.toml: " + message) as caught:
        kv_tiers.chapter_data(_bad(tmp_path, old, new))
    assert "\n" not in str(caught.value)
