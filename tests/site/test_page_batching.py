"""Chapter 4's page model (macros/site/pages/batching.py) against figures derived by hand for the anchor:
Llama-70B (70e9 parameters, BF16: 140e9 B; 327,680 B of KV per token) on 4 x H100 (3.35e12 B/s and
989.4e12 FLOP/s each), a 164e9 B KV budget, sequences of 4,096 tokens (1,342,177,280 B of KV); the
worked inputs: outputs of 10, 200, 15 and 180 tokens, an arrival at step 11, 50 generated tokens,
16-token blocks, a 2,000-token prompt, 512-token chunks, 60 decoding sequences."""

from __future__ import annotations

import pytest

from macros.site.pages import batching


@pytest.fixture(scope="module")
def q():
    return batching.model()


def test_static_batch(q):
    # mean (10 + 200 + 15 + 180) / 4 = 101.25 against 200: 50.6%; 4 x 200 = 800 slot-steps, 800 - 405 idle
    assert q.mean_length == 101.25
    assert q.util == pytest.approx(0.50625)
    assert (q.slot_steps, q.idle_slot_steps) == (800, 395)
    # finishing order 10, 15, 180, 200 = sequences 0, 2, 3, 1; slots then idle 190, 185, 20 steps
    assert [(r.step, r.sequence, r.idle) for r in q.static_rows] == [(10, 0, 190), (15, 2, 185), (180, 3, 20),
                                                                     (200, 1, 0)]
    assert [r.last for r in q.static_rows] == [False, False, False, True]


def test_head_of_line_wait(q):
    # arrival at step 11 waits 200 - 11 = 189 steps; at batch 4 a step reads 140e9 + 4 x 1,342,177,280
    # = 145,368,709,120 B over 13.4e12 B/s: 10.85 ms (memory-bound), so 2.05 s
    assert q.wait_steps == 189
    assert q.wait_s == pytest.approx(189 * 145_368_709_120 / 13.4e12)


def test_paged_attention(q):
    # reserve 4,096 tokens, write 50: 4,046 / 4,096 = 98.8% waste, 4,046 x 327,680 = 1,325,793,280 B
    assert q.waste_fraction == pytest.approx(4046 / 4096)
    assert q.waste_bytes == 1_325_793_280
    # 50 tokens in 16-token blocks: 4 blocks, 64 - 50 = 14 slots (4,587,520 B) empty
    assert (q.blocks, q.tail_slots, q.tail_bytes) == (4, 14, 4_587_520)
    # contiguous at 131,072 tokens: 164e9 / 42,949,672,960 = 3.8 -> 3 sequences
    assert q.max_context_batch == 3
    # 4 samples of a 2,000-token prompt copied: 4 x 2,000 x 327,680 = 2,621,440,000 B
    assert q.samples_kv == 2_621_440_000


def test_chunked_prefill(q):
    # one H100: 2 x 70e9 x 2,000 = 2.8e14 FLOP / 989.4e12 = 283.0 ms (compute-bound)
    assert q.prefill_one_gpu_s == pytest.approx(2.8e14 / 989.4e12)
    assert q.chunks == 4  # 2,000 / 512 rounds up
    # 60 decodes read 140e9 + 60 x 1,342,177,280 = 220,530,636,800 B: 16.46 ms over 13.4e12 B/s;
    # their 8.4e12 FLOP take 2.12 ms on 4 x 989.4e12, so memory-bound
    assert q.step_decode.tokens == 60
    assert q.step_decode.floor_s == pytest.approx(220_530_636_800 / 13.4e12)
    # with a 512-token chunk: 572 tokens, 2 x 70e9 x 572 = 8.008e13 FLOP / 3.9576e15 = 20.23 ms, compute-bound
    assert q.step_chunk.tokens == 572
    assert q.step_chunk.floor_s == pytest.approx(8.008e13 / 3.9576e15)
    # the whole prompt: 2,060 tokens, 2.884e14 / 3.9576e15 = 72.87 ms
    assert q.step_prefill.floor_s == pytest.approx(2.884e14 / 3.9576e15)
