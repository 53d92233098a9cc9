"""Chapter 5's page model (macros/site/pages/toolkit.py) against figures derived by hand for the anchor:
Llama-70B (70e9 parameters, BF16: 140e9 B; 80 layers; 327,680 B of KV per token) on 4 x H100 (80e9 B,
3.35e12 B/s, 989.4e12 FLOP/s dense BF16, 900e9 B/s NVLink), a 4e9 B reserve per GPU, sequences of
4,096 tokens (1,342,177,280 B of KV); 20 turns of 500 tokens, 4 draft tokens, a 2,000-token and a
100,000-token prompt, a 50e9 B/s NIC."""

from __future__ import annotations

import pytest

from macros.site.pages import toolkit


@pytest.fixture(scope="module")
def q():
    return toolkit.model()


def test_prefix_caching(q):
    # uncached 500 x (1 + ... + 20) = 105,000 tokens, cached 10,000: 10.5x
    assert (q.uncached, q.cached, q.cache_gain) == (105_000, 10_000, 10.5)
    # compute-bound on 4 x 989.4e12: 2 x 70e9 x 105,000 = 1.47e16 FLOP -> 3.714 s; 1.4e15 -> 0.354 s
    assert q.uncached_prefill_s == pytest.approx(1.47e16 / 3.9576e15)
    assert q.cached_prefill_s == pytest.approx(1.4e15 / 3.9576e15)
    # the last turn's 10,000-token prefix: 3,276,800,000 B, 2.44 sequences of 4,096 tokens
    assert q.last_prefix_kv == 3_276_800_000
    assert q.last_prefix_in_sequences == pytest.approx(3_276_800_000 / 1_342_177_280)


def test_speculative_decoding(q):
    # balance 989.4 / 3.35 = 295.34: batch 1 leaves 1 - 1 / 295.34 = 99.66% idle; with 4 drafts the
    # ceiling is 295.34 / 5 = 59.07
    assert q.idle_at_batch_one == pytest.approx(1 - 3.35 / 989.4)
    assert q.speculative_ceiling == pytest.approx(989.4 / 3.35 / 5)


def test_quantization(q):
    # weights 140e9, 70e9 B, and INT4 with its group-128 FP16 scale and 4-bit zero point:
    # 70e9 x (4 + 20 / 128) / 8 B = 70e9 x 0.51953125 = 36.367e9 B; budgets 320e9 - weights - 16e9
    # over 1,342,177,280 B: 164e9 -> 122, 234e9 -> 174, 267.63e9 -> 199 sequences
    rows = [(r.name, r.full.weight_bytes, r.full.max_batch) for r in q.quantization_rows]
    assert rows == [("BF16", 140e9, 122), ("FP8", 70e9, 174), ("INT4 (group 128)", 70e9 * 0.51953125, 199)]
    # batch 1 in BF16: (140e9 + 1,342,177,280) / 13.4e12 = 10.55 ms
    assert q.quantization_rows[0].one.decode_step_s == pytest.approx(141_342_177_280 / 13.4e12)
    # an FP8 cache on BF16 weights: 164e9 / 671,088,640 -> 244
    assert q.s_kv8.max_batch == 244


def test_parallelism(q):
    # 80 layers over 4 stages: 1-20, 21-40; an NVL72 rack holds 72 x 186e9 = 13.392e12 B of HBM
    assert (q.stage_layers, q.second_stage_first, q.second_stage_last) == (20, 21, 40)
    assert (q.nvlink_node, q.nvlink_rack) == (8, 72)
    assert q.rack_memory == pytest.approx(13.392e12)
    # two all-reduces per layer: 2 x 80 = 160 per step; at batch 122 on 4 GPUs, 450 GB/s each way and
    # 5 us per collective: (2 x 3/4 x 122 x 8,192 x 2 B / 450e9 + 5 us) x 160 = 1.866 ms
    assert q.allreduces_per_step == 160
    assert q.s.tp_allreduce_s == pytest.approx(1.866e-3, rel=1e-3)
    # TP across a 72-GPU rack with 8 KV heads holds each head 72 / 8 = 9 times
    assert q.rack_kv_copies == 9


def test_disaggregation(q):
    # 4 x H200: 564e9 - 140e9 - 16e9 = 408e9 B -> 303 sequences; 4.8 / 3.35 - 1 = 43.3% more bandwidth
    assert q.s_decode.max_batch == 303
    assert q.decode_bandwidth_gain == pytest.approx(4.8 / 3.35 - 1)
    # KV of 2,000 tokens 655,360,000 B; of 100,000 tokens 32,768,000,000 B; over 50e9 B/s: 13.1 ms, 0.655 s;
    # over NVLink at 450e9 B/s, one direction: 1.456 ms
    assert q.prompt_kv_network_s == pytest.approx(655_360_000 / 50e9)
    assert q.long_kv_network_s == pytest.approx(32_768_000_000 / 50e9)
    assert q.prompt_kv_nvlink_s == pytest.approx(655_360_000 / 450e9)
