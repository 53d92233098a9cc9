"""Chapter 10's page model (macros/site/pages/moe_at_scale.py) against figures derived by hand from the data:
DeepSeek-V3 (671e9 parameters in FP8, 37e9 active, 61 layers of which 58 MoE, hidden 7,168, top-8 of 256 experts,
MLA KV 61 x 576 x 2 B = 70,272 B a token) on H200s (141e9 B, 4.8e12 B/s, 450e9 B/s NVLink a direction) and GB200s
(186e9 B, 8e12 B/s, 900e9 B/s), a 50e9 B/s NIC, 5 us a collective, 128 tokens a GPU at 4,096 tokens of context;
Llama-3.1-70B (70,553,706,496 parameters, BF16, 327,680 B of KV a token) on H100s for the pools. Each generated
sentence's words are then made to flip by a case built to flip them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from macros.engine.fleet.disaggregated import Disaggregated
from macros.site.pages import moe_at_scale

DISPATCH = 128 * 8 * 7168  # 7,340,032 B in FP8; the BF16 combine twice that
MLA_SEQ = 70_272 * 4096  # 287,834,112 B of KV a sequence
# MLA's attention projections, each layer: 7,168 x 1,536 + 1,536 x 128 x 192 + 7,168 x 576 + 512 x 128 x 256
# + 128 x 128 x 7,168 = 187,105,280 parameters; 61 layers: 11,413,422,080, one copy on every GPU under DP attention
ATTENTION = 61 * 187_105_280


@pytest.fixture(scope="module")
def q():
    return moe_at_scale.model()


def test_the_all_to_all_in_three_placements(q):
    # in an H200 node: (7/8 of 7,340,032 + 7/8 of 14,680,064) / 450e9 + 2 x 5 us = 52.8 us
    assert q.node.alltoall_s == pytest.approx(10e-6 + 3 * DISPATCH * 7 / 8 / 450e9)
    # across nine nodes: 64/72 of the bytes over 50e9 B/s: 3 x 7,340,032 x 64 / 72 / 50e9 + 10 us = 401.5 us
    assert q.cross.alltoall_s == pytest.approx(10e-6 + 3 * DISPATCH * 64 / 72 / 50e9)
    # in an NVL72 rack: 71/72 over 900e9 B/s: 34.1 us
    assert q.rack.alltoall_s == pytest.approx(10e-6 + 3 * DISPATCH * 71 / 72 / 900e9)
    assert q.node.step_alltoall_s == pytest.approx(58 * q.node.alltoall_s)
    assert (q.cross.nodes, q.rack.peers, q.nvlink_over_nic) == (9, 71, pytest.approx(9))


def test_the_layer_floor_in_one_node(q):
    # 1,024 tokens touch all 256 experts (256 (1 - (248/256)^1024) = 256 - 2e-12): every weight, 671e9 B, plus 7 more
    # copies of the attention; per GPU over 4.8e12 B/s, per layer: (671e9 + 7 x 11.413e9) / 8 / 4.8e12 / 61 = 320.6 us
    weights = (671e9 + 7 * ATTENTION) / 8 / 4.8e12 / 61
    assert q.node.weight_read_s == pytest.approx(weights, rel=1e-6)
    # and each GPU's 128 sequences of KV: 128 x 287,834,112 / 4.8e12 / 61 = 125.8 us; memory-bound: 446.4 us
    assert q.node.layer_s == pytest.approx(weights + 128 * MLA_SEQ / 4.8e12 / 61, rel=1e-6)
    # weights held per GPU at EP72: (671e9 + 71 x 11.413e9) / 72 = 20.57e9 B
    assert q.cross.weights_per_gpu == pytest.approx((671e9 + 71 * ATTENTION) / 72)


def test_overlap_by_hand(q):
    for c in q.cases:
        overlapped = max(c.layer_s + c.weight_read_s, c.alltoall_s + 10e-6)
        assert c.overlap_s == pytest.approx(overlapped)
        assert c.overlap_words == ("pays" if overlapped < c.layer_s + c.alltoall_s else "loses")
        assert c.exchange_vs_reads == ("longer" if c.alltoall_s > c.weight_read_s else "shorter")
    assert (q.node.overlap_words, q.cross.overlap_words) == ("loses", "pays")


def test_measured_against_the_napkin(q):
    # DeepEP at EP32 (H800, CX7): 155 + 273 us measured; napkin on the H100's links: 24/32 over the NIC,
    # 5 us + 7,340,032 x 0.75 / 50e9 = 115.1 us and 5 us + 14,680,064 x 0.75 / 50e9 = 225.2 us
    row = next(r for r in q.deepep.rows if r.ep == 32)
    assert row.napkin_dispatch_s == pytest.approx(5e-6 + DISPATCH * 0.75 / 50e9)
    assert row.ratio == pytest.approx((155e-6 + 273e-6) / (10e-6 + 3 * DISPATCH * 0.75 / 50e9))
    # the serving model's term in the node: 2 x 128 x 8 x 7,168 x 2 B x 7/8 / 450e9 + 2 x 7 hops of 0.243213 us
    assert q.serving.per_layer_s == pytest.approx(2 * (2 * DISPATCH * 7 / 8 / 450e9 + 7 * q.serving.hop_s))


def test_the_hot_expert_and_its_slot(q):
    # 256 / 72 = 3.556 experts a GPU; one at 4x: 1.84375x the tokens; its exchange 10 us + 1.84375 x 391.5 us
    assert q.skew.factor == pytest.approx((256 / 72 - 1 + 4) / (256 / 72))
    assert q.skew.alltoall_s == pytest.approx(10e-6 + 1.84375 * 3 * DISPATCH * 64 / 72 / 50e9)
    # a redundant slot: (671e9 - 37e9) / (256 - 8) = 2.556e9 parameters in FP8, 8.88 sequences of KV
    assert q.skew.slot_bytes == pytest.approx(634e9 / 248)
    assert q.skew.slot_sequences == pytest.approx(634e9 / 248 / MLA_SEQ)
    assert q.skew.factor_eplb == 1


def test_deepseek_s_day(q):
    # 608e9 / 86,400 / 73,700 = 95.48 prefill nodes; 168e9 / 86,400 / 14,800 = 131.38 decode nodes
    assert q.deepseek.prefill_nodes == pytest.approx(608e9 / 86400 / 73.7e3)
    assert q.deepseek.decode_nodes == pytest.approx(168e9 / 86400 / 14.8e3)
    assert q.deepseek.nodes == pytest.approx(226.86, abs=0.01)
    # (256 + 32) slots over EP144: 2 a GPU; over EP32: 9
    assert (q.deepseek.decode_slots, q.deepseek.prefill_slots) == (2, 9)


def test_the_chat_pools_by_hand(q):
    n = q.chat.napkin
    # 1,000 new tokens after 1,000 cached on 8 x H100 at 40%: 2 x 70,553,706,496 x 1,000 + 32,768 FLOPs a pair and
    # layer x 80 x (2,001,000 - 500,500) pairs = 1.4504e14 FLOP over 8 x 989.4e12, / 0.4 = 45.81 ms
    flops = 2 * 70_553_706_496 * 1000 + 32_768 * 80 * (2_001_000 - 500_500)
    assert n.service_s == pytest.approx(flops / (8 * 989.4e12) / 0.4)
    # the TTFT less the RDMA handoff, 2,000 x 327,680 / (8 x 50e9) = 1.638 ms: x = (0.5 - 1.638 ms - S) / S
    x = (0.5 - 2000 * 327_680 / 400e9 - n.service_s) / n.service_s
    assert n.utilisation == pytest.approx(2 * x / (1 + 2 * x))
    assert n.prefill_per_rate == pytest.approx(n.service_s * 8 / n.utilisation)
    # decode: (0.05 x 0.4 x 8 x 3.35e12 - 141.107e9) / (2,200 x 327,680) = 547.8 -> 547 (the budget holds 593)
    assert n.batch == int((0.05 * 0.4 * 8 * 3.35e12 - 2 * 70_553_706_496) // (2200 * 327_680)) == 547
    assert n.decode_per_rate == pytest.approx(399 * 0.05 * 8 / 547)
    assert n.ratio == pytest.approx(n.prefill_per_rate / n.decode_per_rate)
    assert q.rag.napkin.ratio > n.ratio  # retrieval's longer uncached prompts


def test_the_handoff_by_hand(q):
    # 32,768 tokens x 327,680 B = 10.74 GB: over 8 x 50e9 B/s 26.8 ms; over one 12.5e9 B/s path 859 ms
    rows = {(h.prompt, h.link): h for h in q.handoff}
    assert rows[32768, "RDMA"].whole_s == pytest.approx(32768 * 327_680 / 400e9)
    tcp = rows[32768, "TCP"]
    assert tcp.whole_s == pytest.approx(32768 * 327_680 / 12.5e9)
    assert tcp.layerwise_s == pytest.approx(max(tcp.whole_s / 80, tcp.whole_s - tcp.prefill_s * 79 / 80))


def _rows(shares: dict) -> list[SimpleNamespace]:
    return [SimpleNamespace(link=link, share=share) for link, values in shares.items() for share in values]


def test_the_words_flip_with_their_comparisons(monkeypatch):
    assert moe_at_scale.split_words(3, 4) == "saves 1 GPU" and moe_at_scale.split_words(4, 4) == "saves nothing"
    assert moe_at_scale.split_words(9, 6) == "costs 3 more GPUs"
    slow = moe_at_scale._handoff_summary(_rows({"RDMA": [0.04], "TCP": [1.1, 1.4]}))
    fast = moe_at_scale._handoff_summary(_rows({"RDMA": [0.01], "TCP": [0.05, 0.1]}))
    assert (slow.tcp_words, fast.tcp_words) == ("longer than the prefill itself", "a small share of the prefill")


def _case(gpus: int, layer: float, alltoall: float, tokens: float = 1.0, domain: int = 8) -> SimpleNamespace:
    return SimpleNamespace(gpus=gpus, layer_s=layer, alltoall_s=alltoall, tokens_per_s_per_gpu=tokens, domain=domain,
                           model=SimpleNamespace(name="M"))


def test_the_caption_and_the_throughput_follow_the_curves(monkeypatch):
    curves = {moe_at_scale.HOPPER: [_case(8, 5, 1, 1), _case(16, 4, 3, 3), _case(32, 3, 4, 2)],
              moe_at_scale.RACK: [_case(8, 5, 1, 1, 72), _case(72, 3, 2, 2, 72)]}
    monkeypatch.setattr(moe_at_scale, "curve", lambda gpu: curves[gpu])
    assert "overtakes it from EP32 on (left)" in moe_at_scale.figure_caption()
    assert "stays below it (right)" in moe_at_scale.figure_caption()
    words = moe_at_scale._throughput_words()
    assert words.best.gpus == 16 and words.rack_words == "keep growing to the whole rack"
    curves[moe_at_scale.RACK] = [_case(8, 5, 6, 3, 72), _case(72, 3, 4, 2, 72)]
    assert "overtakes it (right)" in moe_at_scale.figure_caption()
    assert moe_at_scale._throughput_words().rack_words == "stop growing too"


def test_the_assumptions_break_when_their_premise_does(monkeypatch):
    chat = SimpleNamespace(model=SimpleNamespace(key=moe_at_scale.design("consumer-chat")[0].model))
    low = SimpleNamespace(**vars(chat), label="low", rate=1.0, split=4, together=4, wins=False)
    peak = SimpleNamespace(**vars(chat), label="peak", rate=moe_at_scale.POOL_PEAK, split=64, together=76, wins=True)
    assert moe_at_scale.split_pays_words([low, peak]).startswith("At low load each pool still needs a whole replica")
    # a low load where the split pays, and a peak where it does not: the words say each
    flipped = moe_at_scale.split_pays_words([SimpleNamespace(**{**vars(low), "wins": True}),
                                             SimpleNamespace(**{**vars(peak), "wins": False})])
    assert flipped.startswith("Even at low load the split pays here, at 1/s")
    assert "it does not pay for chat at the peak either" in flipped
    table = {(1000, 100): 10, (1000, 1600): 0.3, (16000, 100): 12, (16000, 1600): 0.7}
    monkeypatch.setattr(moe_at_scale, "GRID_PROMPTS", (1000, 16000))
    monkeypatch.setattr(moe_at_scale, "GRID_OUTPUTS", (100, 1600))
    monkeypatch.setattr(moe_at_scale, "pool_napkin", lambda p, c, o, t, tp: SimpleNamespace(work_ratio=table[p, o]))
    assert moe_at_scale._grid(0.05).output_dominates.holds
    table.update({(1000, 1600): 9, (16000, 100): 40, (16000, 1600): 36})  # now the prompt moves it more
    assert not moe_at_scale._grid(0.05).output_dominates.holds


def test_the_pools_words_say_which_pool_the_fitted_model_cannot_find():
    # Both pools: each one's GPUs on its shape; one missing: which, so a what-if that loses a pool still builds
    shape = SimpleNamespace(label="8 × H100")
    prefill, decode = SimpleNamespace(gpus=24, shape=shape), SimpleNamespace(gpus=40, shape=shape)

    def pools(p, d):  # the search's answer with these pools (what it finds beside them is not read)
        return Disaggregated(p, d, kv_transfer_s=0.0, same_node=True, ttft_s=None, colocated_gpus=None,
                             colocated_shape=None)

    assert moe_at_scale.pools_words(pools(prefill, decode)) == "24 on 8 × H100, 40 on 8 × H100"
    assert moe_at_scale.pools_words(pools(None, decode)) == "no prefill pool meets its target"
    assert moe_at_scale.pools_words(pools(prefill, None)) == "no decode pool meets its target"
