"""Chapter 11's page model (macros/site/pages/long_context.py) against figures derived here by hand from the
data: the anchor Llama-70B (70e9 parameters, 80 layers, 64 query and 8 KV heads of 128, BF16: 327,680 B of KV a
token) on 4 x H100 (989.4e12 FLOP/s dense BF16, 1,978.9e12 FP8, 3.35e12 B/s, 80e9 B, 4e9 B reserve); the
tiers of macros/data/topics/long_context.toml; "achieved" rates are the fitted serving model's shares of the
peak, read here from the fit. And each sentence the page model words from a comparison says the opposite when
the comparison turns."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from macros.engine.problems.kv_tiers import Tier, tiers
from macros.engine.serving.calibration import params_for
from macros.engine.serving.estimate import DEFAULT_ENGINE
from macros.site.pages import long_context as lc

KV_70B = 2 * 80 * 8 * 128 * 2  # 327,680 B a token
KV_8B = 2 * 32 * 8 * 128 * 2  # 131,072 B
KV_MLA = 61 * (512 + 64) * 2  # 70,272 B: one latent and one RoPE key a layer


@pytest.fixture(scope="module")
def q():
    return lc.model()


def fit(gpu: str, attention: str = "gqa") -> SimpleNamespace:
    p = params_for(gpu, DEFAULT_ENGINE, attention)
    return SimpleNamespace(gemm=p.gemm_fraction, attn=p.attn_fraction, bw=p.bw_fraction)


def test_the_anchor_reloads_from_every_tier(q):
    h = fit("h100")
    # per GPU: 327,680 / 4 B a token over 52.8e9 B/s; recompute 2 x 70e9 / (4 x gemm x 989.4e12) a token
    linear = 2 * 70e9 / (4 * h.gemm * 989.4e12)
    assert q.big.by_tier["host-pcie"].reload_s_per_token == pytest.approx(KV_70B / 4 / 52.8e9)
    assert q.big.linear_s == pytest.approx(linear)
    # a causal pair, every layer: 4 x 64 x 128 x 80 FLOP at attention's share of the BF16 peak
    assert q.big.pair_s == pytest.approx(4 * 64 * 128 * 80 / (4 * h.attn * 989.4e12))
    # B* = 81,920 B / linear; about 1.44 GB/s, below every tier's bandwidth: reload wins everywhere
    assert q.big.break_even == pytest.approx(KV_70B / 4 / linear)
    assert q.big.break_even < min(t.bandwidth_bytes_per_s for t in tiers().values())
    assert q.big.all_win and q.big.losers == "every tier clears it"


def test_the_small_model_recomputes_below_a_crossover(q):
    b = fit("b200")
    # Llama-3.1-8B (8,030,261,248 parameters) on one B200, its GEMMs in FP8: 4,500e12 FLOP/s dense
    a = 2 * 8_030_261_248 / (b.gemm * 4500e12)
    h = 4 * 32 * 128 * 32 / (b.attn * 2250e12)
    r = KV_8B / 6.5e9  # the Gen4 drive, slower than the break-even
    assert q.small.break_even == pytest.approx(KV_8B / a) and q.small.break_even > 6.5e9
    # 60 us + r s = a s + h s (s + 1) / 2: the positive root
    lin = a + h / 2 - r
    s = (-lin + math.sqrt(lin * lin + 2 * h * 60e-6)) / h
    row = q.small.by_tier["nvme-gen4"]
    assert row.crossover == pytest.approx(s) and not row.reload_wins_linear
    assert row.words == f"recompute up to {math.ceil(s) - 1:,} tokens, then reload"
    # Which tiers lose is the data's: every tier no faster than the break-even, each up to its own root (the same
    # quadratic with its latency and bandwidth), in the tiers' order; the Gen4 drive is always among them.
    def lost(t) -> str:
        lin = a + h / 2 - KV_8B / t.bandwidth_bytes_per_s
        root = (-lin + math.sqrt(lin * lin + 2 * h * t.latency_s)) / h
        return f"{t.name} loses up to {math.ceil(root) - 1:,} tokens"
    slower = [t for t in tiers().values() if t.bandwidth_bytes_per_s <= q.small.break_even]
    assert "nvme-gen4" in {t.key for t in slower}
    assert q.small.losers == "; ".join(lost(t) for t in slower)


def test_mla_reloads_everywhere_under_dp_attention_and_tp_multiplies_its_break_even(q):
    h = fit("h200", "mla")
    # a rank reloads its own sequence's latent (70,272 B a token) and prefills it on one GPU at the FP8 peak
    assert q.mla.kv_token == KV_MLA
    assert q.mla.break_even == pytest.approx(KV_MLA * h.gemm * 1978.9e12 / (2 * 37e9))
    assert q.mla.all_win
    # tensor-parallel over 8: every rank reloads the whole latent while the prefill splits 8 ways: 8x the B*
    assert q.mla_tp.break_even == pytest.approx(8 * q.mla.break_even)
    # which tiers then lose is the data's: exactly those slower than the raised break-even (the page says which)
    slower = [t.name for t in tiers().values() if t.bandwidth_bytes_per_s <= q.mla_tp.break_even]
    assert q.mla_tp.all_win == (not slower)
    assert all(name in q.mla_tp.losers for name in slower)


def test_the_prefix_of_chapter_5(q):
    h = fit("h100")
    # 20 turns x 500 tokens = 10,000 tokens: 81,920 B x 10,000 / 52.8e9 + 10 us from host DRAM
    assert q.prefix.reload_s["host-pcie"] == pytest.approx(81_920 * 10_000 / 52.8e9 + 1e-5)
    attention = 2 * 80 * 64 * 128 * 10_000 * 10_001
    assert q.prefix.recompute_s == pytest.approx(
        2 * 70e9 * 10_000 / (4 * h.gemm * 989.4e12) + attention / (4 * h.attn * 989.4e12))


def test_which_tier_holds_a_conversation(q):
    h = fit("h100")
    # the anchor prefilling flat out: 4 x gemm x 989.4e12 / 140e9 tokens a second, 327,680 B each
    write = 4 * h.gemm * 989.4e12 / 140e9 * KV_70B
    assert q.stay.write_bytes_per_s == pytest.approx(write)
    # HBM: the KV budget 4 x 80 - 140 - 4 x 4 = 164 GB; host DRAM 4 x 250 GB; drives 4 x 3.84 TB
    assert q.stay.held["hbm"] == pytest.approx(164e9 / write)
    assert q.stay.held["host-pcie"] == pytest.approx(1e12 / write)
    assert q.stay.held["nvme-gen4"] == pytest.approx(15.36e12 / write)
    # a minute's think time outlasts HBM (about 28 s) but not host DRAM (about 174 s)
    assert q.stay.held["hbm"] < 60 <= q.stay.held["host-pcie"]
    assert q.stay.think_tier == "host DRAM over PCIe Gen5 x16"


def test_the_million_token_prompt(q):
    L, h = q.long, fit("h100")
    weights = 70_553_706_496 * 2  # Llama-3.1-70B in BF16
    assert L.kv["bf16"] == KV_70B * 1_000_000 and L.kv["fp8"] == KV_70B * 1_000_000 / 2
    # one node: 8 x 80 GB - weights - 8 x 4 GB = 466.9 GB: one BF16 sequence of 327.68 GB, two in FP8
    budget = 640e9 - weights - 32e9
    assert L.budget == pytest.approx(budget) and L.fits["bf16"] == 1 and L.fits["fp8"] == 2
    attention = 2 * 80 * 64 * 128 * 1e6 * (1e6 + 1)
    assert L.attention == pytest.approx(attention) and L.linear == pytest.approx(2 * 70_553_706_496 * 1e6)
    assert L.overtakes == pytest.approx(70_553_706_496 / (80 * 64 * 128) - 1)
    gpu_s = 2 * 70_553_706_496 * 1e6 / (h.gemm * 989.4e12) + attention / (h.attn * 989.4e12)
    assert L.ttft_node == pytest.approx(gpu_s / 8) and L.ttft_cp == pytest.approx(gpu_s / 64)
    assert L.gpus_for_target == math.ceil(gpu_s / 60)
    # a ring of 8 nodes: each GPU sends 7/8 of its eighth of the cache over its 50 GB/s link
    assert L.ring_bytes == pytest.approx(KV_70B * 1e6 / 8 * 7 / 8)
    assert L.ring_min["nic"] == pytest.approx(8 * 2 * h.attn * 989.4e12 / (64 * 50e9))
    # the decode step's reads on one node: (weights + cache) / (8 x bw x 3.35e12)
    assert L.node_step == pytest.approx((weights + KV_70B * 1e6) / (8 * h.bw * 3.35e12))


def test_the_architectures(q):
    rows = {r.name: r.kv for r in q.arch.rows}
    # Gemma-3-27B at 131,072 tokens: 10 global layers keep every token, 52 keep 1,024; 2 x 16 x 128 x 2 B each
    per_layer = 2 * 16 * 128 * 2
    assert rows["Gemma-3-27B"][0] == per_layer * (10 * 131_072 + 52 * 1024)
    assert q.arch.gemma_share == pytest.approx((10 * 131_072 + 52 * 1024) / (62 * 131_072))
    # Jamba-v0.1: 4 attention layers, 2 x 8 x 128 x 2 B each a token, and 28 Mamba layers of 8,192 channels
    # x (16 + 3) values of 2 B; at 262,144 tokens the cache is exactly 4 GiB, the paper's "4GB"
    assert rows["Jamba-v0.1"][1] == 4 * 4096 * 1_000_000 + 28 * 8192 * 19 * 2
    assert q.arch.jamba_256k == 4 * 2**30 == q.arch.jamba_reported and q.arch.jamba_label == "4 GB"
    assert rows["DeepSeek-V3"][0] == KV_MLA * 131_072
    assert q.arch.mla_vs_gqa == pytest.approx(KV_70B / KV_MLA)


def _tier(bandwidth: float, latency: float = 0.0, capacity: float | None = 1e12) -> Tier:
    return Tier("test", "the test tier", bandwidth, capacity, latency, "a test", "2026-01-01")


def test_a_tier_row_says_who_wins_and_the_words_turn_with_the_bandwidth():
    # 100 kB a token; recompute 10 us a token and 1 ns a pair: the break-even is 10 GB/s
    fast = lc._tier_row(_tier(20e9, 1e-3), 1e5, 10e-6, 1e-9, 10e9, 131_072)
    slow = lc._tier_row(_tier(5e9), 1e5, 10e-6, 1e-9, 10e9, 131_072)
    assert fast.reload_wins_linear and fast.words.startswith("reload, from ")
    # 1 ms + 5 us s = 10 us s + ...: about 200 tokens
    assert 150 < fast.crossover < 200
    # 20 us s = 10 us s + 0.5 ns s (s + 1): s + 1 = 20,000
    assert slow.crossover == pytest.approx(19_999) and slow.words == "recompute up to 19,998 tokens, then reload"
    # a crossover past the model's context: recompute throughout
    never = lc._tier_row(_tier(5e9), 1e5, 10e-6, 1e-9, 10e9, 8192)
    assert never.words == "recompute at every length to 8,192 tokens"
    instant = lc._tier_row(_tier(1e12), 1e5, 10e-6, 1e-9, 10e9, 131_072)
    assert instant.words == "reload, from the first token"


def test_the_tier_that_holds_a_wait_turns_with_the_capacity(q):
    s = lc.anchor()
    small = {"tiny": _tier(50e9, capacity=1e9)}
    big = {"huge": _tier(50e9, capacity=1e15)}
    # 1 GB at several GB/s of writes lasts under a second: nothing holds a minute's wait; a petabyte does
    assert lc.residence(s, small).think_tier == "no tier"
    assert lc.residence(s, big).think_tier == "the test tier"
    assert lc.residence(s, big).held["hbm"] == pytest.approx(q.stay.held["hbm"])


def test_the_anchor_s_verdict_turns_when_a_tier_is_slower_than_its_break_even(q, monkeypatch):
    # today every tier clears the anchor's break-even, and the page's sentence says so ...
    assert q.big_all_win.holds and q.small_loses.holds and q.long.one_per_node.holds
    # ... a tier at 0.9 of the anchor's break-even makes the anchor lose on it up to a length (past it attention's
    # quadratic term makes recomputing dearer), and the words name it
    slow = {"slow": _tier(0.9 * q.big.break_even, capacity=None)}
    monkeypatch.setattr(lc, "tiers", lambda: slow)
    s = lc.anchor()
    case = lc.reload_case(s.model, s.gpu, s.gpus)
    assert not case.all_win and case.losers.startswith("the test tier loses up to ")
    assert case.by_tier["test"].words.startswith("recompute up to ")
