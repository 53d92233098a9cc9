"""Chapter 10's practice kinds (macros/engine/problems/moe_comms.py), each solved here by hand from its stated
inputs, and the chapter's data file (data/topics/moe_at_scale.toml) refused, in one line naming the file and the
entry, when a value is missing, out of its band or undated."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from macros.engine.problems import moe_comms, problems
from macros.engine.specs import SpecError


def _mine(kind: str) -> list:
    return [p for p in problems() if p.kind == kind]


def test_every_variant_is_asked():
    assert {p.variant for p in _mine("ep-alltoall")} == {"step", "overlap-pays", "overlap-loses"}
    assert {p.variant for p in _mine("pool-sizing")} == {"ratio", "handoff"}
    assert len(_mine("ep-alltoall")) == len(_mine("pool-sizing")) == 12


def _exchange(i: dict, element_bytes: float) -> float:
    """One exchange by hand: latency + the slower of the NVLink share and the network share of t k d e."""
    payload = i["tokens"] * i["experts_per_token"] * i["hidden"] * element_bytes
    inside = min(i["gpus"], i["domain_gpus"])
    return i["latency"] + max(payload * (inside - 1) / i["gpus"] / i["nvlink"],
                              payload * (i["gpus"] - inside) / i["gpus"] / i["network"])


def test_a_step_s_all_to_all_by_hand():
    p = next(p for p in _mine("ep-alltoall") if p.variant == "step")
    i = p.inputs
    by_hand = i["moe_layers"] * (_exchange(i, i["dispatch_bytes"]) + _exchange(i, i["combine_bytes"]))
    assert p.answer == pytest.approx(by_hand, rel=1e-12)
    # and one written out: DeepSeek-V3's 58 MoE layers, 128 tokens, top-8, hidden 7,168, FP8 dispatch, BF16 combine,
    # EP8 in a node of 450 GB/s links: 58 x (5 + 14.272 + 5 + 28.544) us = 58 x 52.816 us = 3.063 ms
    i = dict(tokens=128, experts_per_token=8, hidden=7168, dispatch_bytes=1, combine_bytes=2, gpus=8, domain_gpus=8,
             nvlink=450e9, network=50e9, latency=5e-6, moe_layers=58)
    assert moe_comms.solve_ep_alltoall(i)["answer"] == pytest.approx(58 * 52.816e-6, rel=1e-4)


def test_an_overlap_by_hand():
    for p in _mine("ep-alltoall"):
        if p.variant == "step":
            continue
        i = p.inputs
        a = _exchange(i, i["dispatch_bytes"]) + _exchange(i, i["combine_bytes"])
        overlapped, plain = max(i["layer"] + i["weight_read"], a + 2 * i["latency"]), i["layer"] + a
        assert p.answer == pytest.approx(overlapped, rel=1e-12), p.id
        assert p.variant == ("overlap-pays" if overlapped < plain else "overlap-loses"), p.id


def test_a_ratio_by_hand():
    # 10 requests/s; a 1,000-token prompt on 2 GPUs of 1e15 FLOP/s at 50%: 2 x 8e9 x 1,000 / 2e15 / 0.5 = 16 ms
    # (the weight read, 16e9 / (2 x 4e12) = 2 ms, is shorter); TTFT 0.5 s: x = 484 / 16 = 30.25, rho = 60.5 / 61.5;
    # 10 x 0.016 / 0.9837 = 0.163 replicas -> 1 replica, 2 GPUs.
    # decode on 1 GPU: (0.05 x 0.5 x 4e12 - 16e9) / 1e8 = 840, capped at 500; 10 x 399 x 0.05 / 500 = 0.399 -> 1 GPU.
    i = dict(rate=10.0, prompt=1000, output=400, active_params=8e9, weights=16e9, peak_flops=1e15, bandwidth=4e12,
             efficiency=0.5, prefill_gpus=2, ttft=0.5, decode_gpus=1, tpot=0.05, kv_per_seq=1e8, max_batch=500)
    s = moe_comms.solve_pool_sizing(i)
    assert s["service"] == pytest.approx(0.016)
    assert s["utilisation"] == pytest.approx(60.5 / 61.5)
    assert (s["prefill_gpus_total"], s["batch"], s["decode_gpus_total"]) == (2, 500, 1)
    assert s["answer"] == 2.0
    # a drawn one, checked the same way
    p = next(p for p in _mine("pool-sizing") if p.variant == "ratio")
    i = p.inputs
    service = max(2 * i["active_params"] * i["prompt"] / (i["prefill_gpus"] * i["peak_flops"]),
                  i["weights"] / (i["prefill_gpus"] * i["bandwidth"])) / i["efficiency"]
    x = (i["ttft"] - service) / service
    prefill = math.ceil(round(i["rate"] * service / (2 * x / (1 + 2 * x)), 9)) * i["prefill_gpus"]
    batch = min((i["tpot"] * i["efficiency"] * i["decode_gpus"] * i["bandwidth"] - i["weights"]) // i["kv_per_seq"],
                i["max_batch"])
    decode = math.ceil(round(i["rate"] * (i["output"] - 1) * i["tpot"] / batch, 9)) * i["decode_gpus"]
    assert p.answer == pytest.approx(prefill / decode, rel=1e-12), p.id


def test_a_handoff_by_hand():
    # 8B: 131,072 B a token x 8,000 = 1.049 GB over one 12.5 GB/s path = 83.9 ms; a 22.2 ms prefill over 32 layers
    # cannot hide it: 83.9 - 22.2 x 31 / 32 = 62.4 ms still waits
    i = dict(kv_per_token=131_072, prompt=8000, paths=1, link=12.5e9, prefill=0.0222, layers=32)
    s = moe_comms.solve_pool_sizing(i)
    assert s["transfer"] == pytest.approx(1_048_576_000 / 12.5e9)
    assert s["answer"] == pytest.approx(1_048_576_000 / 12.5e9 - 0.0222 * 31 / 32)
    assert s["verdict"] == "exposed"
    for p in _mine("pool-sizing"):
        if p.variant == "handoff":
            i = p.inputs
            whole = i["kv_per_token"] * i["prompt"] / (i["paths"] * i["link"])
            assert p.answer == pytest.approx(max(whole / i["layers"], whole - i["prefill"] * (i["layers"] - 1)
                                                 / i["layers"]), rel=1e-12), p.id


def test_the_data_loads_with_every_figure_sourced_and_dated():
    data = moe_comms.moe_at_scale_data()
    assert data["decode_batch"]["tokens_per_gpu"] == 128
    assert len(data["deepep_low_latency"]["ep"]) == len(data["deepep_low_latency"]["combine_s"])
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["date"]) for entry in data.values())


@pytest.mark.parametrize(("change", "says"), [
    (("tokens_per_gpu = 128\nsource = \"DeepEP docs", "tokens_per_gpu = 0\nsource = \"DeepEP docs"),
     "[decode_batch] tokens_per_gpu: must be a finite number"),
    (("combine_s = [114e-6,", "combine_s = [114,"), "[deepep_low_latency] combine_s: must be a finite number"),
    (("average_nodes = 226.75", "average_nodes = nan"), "[deepseek_service] average_nodes: must be a finite"),
    (("bytes_per_s = 12.5e9", 'bytes_per_s = "fast"'), "[tcp_path] bytes_per_s: must be a finite number"),
    (('date = "2025-05-05"', 'date = "May 2025"'), "[sglang_large_ep] date: must be a date written YYYY-MM-DD"),
    (("dispatch_s = [77e-6, 118e-6,", "dispatch_s = [118e-6,"), "[deepep_low_latency] ep, dispatch_s and combine_s"),
])
def test_a_bad_value_is_one_line_naming_the_file_and_the_entry(tmp_path: Path, change, says):
    text = moe_comms.PATH.read_text()
    assert text.count(change[0]) == 1, change[0]
    path = tmp_path / "moe_at_scale.toml"
    path.write_text(text.replace(*change))
    with pytest.raises(SpecError) as err:
        moe_comms.moe_at_scale_data(path)
    message = str(err.value)
    assert "\n" not in message and "moe_at_scale.toml" in message and says in message, message
