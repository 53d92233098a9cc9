"""Chapter 2's page model (macros/site/pages/roofline.py) against figures derived by hand for the
anchor: Llama-70B (70e9 parameters, BF16, 80 layers, 64 query heads, 8 KV heads, head dim 128) on
4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense, 1978.9e12 with sparsity), against the
H200 (141e9 B, 4.8e12 B/s, the same compute); batch 64, a 2,000-token prompt, 4e9 B reserve per GPU."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from macros.site.pages import roofline


@pytest.fixture(scope="module")
def q():
    return roofline.model()


def test_machine_balance_dense_and_sparse(q):
    # 989.4e12 / 3.35e12 = 295.34 FLOP/B; with sparsity 1978.9e12 / 3.35e12 = 590.72
    assert q.balance == pytest.approx(295.343, rel=1e-5)
    assert q.sparse_balance == pytest.approx(590.716, rel=1e-5)
    assert q.balance_low <= q.balance <= q.balance_high


def test_single_gpu_decode_terms(q):
    # weights 70e9 x 2 B = 140e9 B; read at 3.35e12 B/s: 41.79 ms
    assert q.weight_read_one_gpu_s == pytest.approx(140e9 / 3.35e12)
    # 2 x 70e9 = 1.4e11 FLOP at 989.4e12 FLOP/s: 0.1415 ms; at the sparse rate half that
    assert q.decode_compute_one_gpu_s == pytest.approx(1.4e11 / 989.4e12)
    assert q.decode_compute_sparse_s == pytest.approx(1.4e11 / 1978.9e12)
    # intensity 1 at batch 1, so memory over compute is the balance itself
    assert q.memory_over_compute_one_gpu == pytest.approx(295.343, rel=1e-5)
    # batch 64: intensity 64, 295.34 / 64 = 4.61x below the balance; at batch 1, 1 - 1/295.34 idle
    assert q.below_balance_big == pytest.approx(4.6147, rel=1e-4)
    assert q.idle_one == pytest.approx(1 - 1 / 295.343, rel=1e-6)


def test_prefill_of_the_worked_prompt(q):
    # 2 x 70e9 x 2,000 = 2.8e14 FLOP; / 989.4e12 = 283.0 ms; / 41.79 ms = 6.77x compute over memory
    assert q.prompt_compute_s == pytest.approx(2.8e14 / 989.4e12)
    assert q.prompt_floor_s == pytest.approx(2.8e14 / 989.4e12)
    assert q.prompt_compute_over_memory == pytest.approx(6.772, rel=1e-3)
    # causal attention: 2 x 80 x 64 x 128 x 2,000 x 2,001 = 5.2455e12 FLOP, 1.87% of 2.8e14
    assert q.prompt_attention_flops == 2 * 80 * 64 * 128 * 2000 * 2001
    assert q.prompt_attention_share == pytest.approx(5.24555e12 / 2.8e14, rel=1e-5)


def test_units_trap(q):
    # KV budget on 4 x H100: 320e9 - 140e9 - 16e9 = 164e9 B; per sequence 327,680 x 4,096 = 1,342,177,280 B
    # (exactly 1.25 GiB): 122 sequences; divided by "1.25 GB" read as decimal: 164 / 1.25 = 131.2 -> 131
    assert q.full.max_batch == 122
    assert q.max_batch_mixed_units == 131
    assert q.gib_over_gb == pytest.approx(0.073741824)  # 2^30 / 1e9 - 1


def test_h100_against_h200(q):
    # bandwidth 4.8 / 3.35 = 1.4328; compute equal
    assert q.compared_bandwidth_ratio == pytest.approx(1.43284, rel=1e-5)
    assert q.ratio.bf16_flops == 1
    # so the H200's balance is lower by the same factor: (989.4 / 4.8) / (989.4 / 3.35) = 3.35 / 4.8
    assert q.ratio.balance == pytest.approx(3.35 / 4.8)
    # batch 64 on 4 GPUs is memory-bound on both (intensity ~40 << 295), so the step ratio is the bandwidth ratio
    assert q.ratio.decode_step == pytest.approx(4.8 / 3.35)
    # prefill of 2,000 tokens is compute-bound on both: the same time
    assert q.ratio.prefill == pytest.approx(1.0)
    # H200 budget 564e9 - 140e9 - 16e9 = 408e9 B / 1,342,177,280 B = 303.98 -> 303 sequences; against 122
    assert q.compared_full.max_batch == 303
    assert q.ratio.max_batch == pytest.approx(303 / 122)
    assert q.launch_batch_ratio == 4  # batch 32 against batch 8
    # 2.6: one batch-1 floor, the weights plus one 4,096-token sequence's KV: (140e9 + 1,342,177,280) B
    # / (4 x 3.35e12 B/s) = 10.55 ms in BF16; with FP8 weights (70e9 + 1,342,177,280) / 13.4e12 = 5.32 ms
    assert q.one.decode_step_s == pytest.approx(141.34217728e9 / 13.4e12)
    assert q.fp8_one.decode_step_s == pytest.approx(71.34217728e9 / 13.4e12)


KV_SEQ = 327_680 * 4096  # 1,342,177,280 B: one 4,096-token sequence of the anchor


def test_general_step_time_at_the_max_batch(q):
    st = q.step
    # 122 x 1,342,177,280 B = 163,745,628,160 B of KV; with the weights 303,745,628,160 B = 2.1696 weight reads
    assert st.kv_total == 122 * KV_SEQ
    assert st.weight_reads == pytest.approx(303_745_628_160 / 140e9)
    # intensity as tokens per weight read: 122 / 2.1696 = 56.23 (2N FLOPs a token, BF16)
    assert st.tokens_per_read == pytest.approx(122 * 140e9 / 303_745_628_160)
    assert 56 < st.tokens_per_read < 56.5
    # with attention, 4 x 80 x 64 x 128 x 4,096 = 10,737,418,240 FLOP a token more: 122 x 150.737e9 / 303.7e9 = 60.54
    assert st.intensity == pytest.approx(122 * 150_737_418_240 / 303_745_628_160)
    # memory 303.7e9 / 13.4e12 = 22.67 ms; compute 122 x 150.737e9 / 3.9576e15 = 4.647 ms
    assert st.memory_s == pytest.approx(303_745_628_160 / 13.4e12)
    assert st.compute_s == pytest.approx(122 * 150_737_418_240 / 3.9576e15)
    # as b grows the intensity tends to 2N / KV = 1.4e11 / 1,342,177,280 = 104.3 (112.3 with attention),
    # below the balance of 295.3: decode never turns compute-bound at this context
    assert st.intensity_limit == pytest.approx(1.4e11 / KV_SEQ)
    assert st.intensity_limit_attention == pytest.approx(150_737_418_240 / KV_SEQ)
    assert st.compute_bound_batch == float("inf")


def test_chunked_prefill_step(q):
    st = q.step
    # 60 decodes read 140e9 + 60 x 1,342,177,280 = 220,530,636,800 B: 16.457 ms over 13.4e12 B/s
    assert st.step_bytes == 140e9 + 60 * KV_SEQ
    assert st.decode_only_s == pytest.approx(220_530_636_800 / 13.4e12)
    # room before compute binds: 295.34 x 220.53e9 / 1.4e11 = 465.2 tokens
    assert st.room_tokens == pytest.approx(989.4e12 / 3.35e12 * 220_530_636_800 / 1.4e11)
    # with a 512-token chunk: 572 x 1.4e11 = 8.008e13 FLOP / 3.9576e15 = 20.23 ms (compute-bound);
    # with the whole 2,000-token prompt: 2,060 x 1.4e11 / 3.9576e15 = 72.87 ms
    assert st.chunk_step_tokens == 572
    assert st.chunk_s == pytest.approx(572 * 1.4e11 / 3.9576e15)
    assert st.whole_prompt_s == pytest.approx(2060 * 1.4e11 / 3.9576e15)


def test_problem_balances(q):
    l4, b200 = q.problems.balances
    # L4: 121e12 / 0.3e12 = 403.3 BF16; 242.5e12 / 0.3e12 = 808.3 FP8; batches 403.3 and 808.3 / 2 = 404.2
    assert (l4.bf16, l4.fp8) == (pytest.approx(403.333, rel=1e-5), pytest.approx(808.333, rel=1e-5))
    assert (l4.batch_bf16, l4.batch_fp8) == (pytest.approx(403.333, rel=1e-5), pytest.approx(404.167, rel=1e-5))
    # B200: 2,250e12 / 8e12 = 281.25; FP8 4,500e12 / 8e12 = 562.5 -> batch 281.25 either way
    assert (b200.bf16, b200.fp8, b200.batch_fp8) == (281.25, 562.5, 281.25)


def test_problem_h200_crossover(q):
    short, full = q.problems.crossover
    # H200 balance 989.4 / 4.8 = 206.125. At 512 tokens: KV 327,680 x 512 = 167,772,160 B; F = 1.4e11 +
    # 4 x 80 x 64 x 128 x 512 = 141,342,177,280 FLOP; b = 140e9 / (141.342e9 / 206.125 - 167,772,160) = 270.3
    f_short = 1.4e11 + 4 * 80 * 64 * 128 * 512
    assert short.batch == pytest.approx(140e9 / (f_short / 206.125 - 327_680 * 512))
    assert 270 < short.batch < 271 and short.fits and short.finite
    # H200 budget 4 x 141e9 - 140e9 - 16e9 = 408e9 B / 167,772,160 = 2,431 sequences
    assert short.max_batch == 2431
    # at 4,096 tokens: 206.125 x 1,342,177,280 = 276.7e9 > F = 150.7e9: never compute-bound
    assert full.batch == float("inf") and not full.finite
    assert full.limit == pytest.approx(150_737_418_240 / KV_SEQ)


def test_problem_moe(q):
    one, many = q.problems.moe
    # Mixtral-8x7B: at batch 1 it reads the active 12,879,921,152 parameters x 2 B = 25.76 GB; at 256 every
    # expert is touched (1 - (6/8)^256 ~ 1): all 46,702,792,704 x 2 B = 93.41 GB
    assert one.weight_bytes_read == pytest.approx(2 * 12_879_921_152)
    assert many.weight_bytes_read == pytest.approx(2 * 46_702_792_704)
    # KV 2 x 32 x 8 x 128 x 2 B x 4,096 = 536,870,912 B a sequence; batch 256 step: (93.41e9 + 256 x 0.5369e9) B
    # / 13.4e12 = 17.23 ms; batch 1: (25.76e9 + 0.537e9) / 13.4e12 = 1.962 ms
    assert many.decode_step_s == pytest.approx((2 * 46_702_792_704 + 256 * 536_870_912) / 13.4e12)
    assert one.decode_step_s == pytest.approx((2 * 12_879_921_152 + 536_870_912) / 13.4e12)
    assert q.problems.moe_per_user_ratio == pytest.approx(many.decode_step_s / one.decode_step_s)
    assert many.bound == one.bound == "memory"


def test_problem_fp8_weights(q):
    fp8 = q.problems.fp8
    # batch 64: BF16 (140e9 + 64 x 1.342e9) / 13.4e12 = 16.86 ms; FP8 (70e9 + 85.9e9) / 13.4e12 = 11.63 ms: 1.449x
    assert fp8[64].speedup == pytest.approx((140e9 + 64 * KV_SEQ) / (70e9 + 64 * KV_SEQ))
    # FP8 frees 70e9 B: budget 234e9 / 1,342,177,280 = 174.3 -> 174 sequences
    assert fp8["max"].fp8.max_batch == 174
    # the KV share of the FP8 step at batch 64: 85.9e9 / 155.9e9 = 55.1%
    assert q.problems.fp8_kv_share == pytest.approx(64 * KV_SEQ / (70e9 + 64 * KV_SEQ))


def test_problem_small_model_on_an_l4(q):
    s = q.problems.small
    # Llama-3.1-8B on one L4: 24e9 - 16,060,522,496 - 4e9 = 3.939e9 B; KV 131,072 x 4,096 = 536,870,912 B
    # -> 7 sequences; step (16.06e9 + 7 x 0.5369e9) / 0.3e12 = 66.06 ms
    assert s.max_batch == 7
    assert s.decode_step_s == pytest.approx((16_060_522_496 + 7 * 536_870_912) / 0.3e12)
    assert q.problems.small_below_balance == pytest.approx(403.333 / s.decode_intensity, rel=1e-5)


def test_the_extra_capacity_adds_to_the_bandwidth(q):
    # At the largest batch the H200 holds more sequences than the H100 (141 GB against 80 GB per GPU), so
    # its throughput ratio exceeds the bandwidth ratio 4.8 / 3.35 = 1.43x: "the throughput ratio grows".
    assert q.compared_full.max_batch > q.full.max_batch
    assert q.ratio.throughput > 4.8 / 3.35
    assert q.capacity_adds.holds


def _row(concurrency: int, tpot_ratio: float, ttft_ratio: float):
    """A validation row with the two ratios the callout reads (measured / floor)."""
    ratios = {"median_tpot_s": tpot_ratio, "median_ttft_s": ttft_ratio}
    return SimpleNamespace(run=SimpleNamespace(concurrency=concurrency), floor_ratio=ratios.get)


def test_floor_gap_by_concurrency_on_hand_made_rows():
    # concurrency 4: TPOT ratios 6, 7, 9 -> median 7; concurrency 64: 2 and 3 -> median 2.5; all five: 2, 3, 6,
    # 7, 9 -> 6; TTFT ratios 10, 12, 14, 20, 30 -> 14
    rows = [_row(4, 6, 10), _row(4, 9, 12), _row(4, 7, 14), _row(64, 2, 20), _row(64, 3, 30)]
    g = roofline.floor_gap(rows)
    assert [(r.concurrency, r.runs, r.tpot_floor) for r in g.by_concurrency] == [(4, 3, 7.0), (64, 2, 2.5)]
    assert g.tpot_floor == 6.0 and g.ttft_floor == 14.0 and g.runs == 5
    assert g.widest_at_small.holds
    # planned = floor / 0.4: 2.5 times the floor
    assert g.planned_factor == pytest.approx(2.5)
    # the other way round, the sentence is flagged
    assert not roofline.floor_gap([_row(4, 2, 1), _row(64, 3, 1)]).widest_at_small.holds


def test_floor_gap_on_the_validation_runs():
    g = roofline.floor_gap()
    # the runs InferenceMAX measured at concurrency 4 to 128, lightest first, every run counted once
    assert [r.concurrency for r in g.by_concurrency] == [4, 8, 16, 32, 64, 128]
    assert sum(r.runs for r in g.by_concurrency) == g.runs
