"""Chapter 2's page model (macros/site/pages/roofline.py) against figures derived by hand for the
anchor: Llama-70B (70e9 parameters, BF16, 80 layers, 64 query heads, 8 KV heads, head dim 128) on
4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense, 1978.9e12 with sparsity), against the
H200 (141e9 B, 4.8e12 B/s, the same compute); batch 64, a 2,000-token prompt, 4e9 B reserve per GPU."""

from __future__ import annotations

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
    # FP8 weights on 4 GPUs: 70e9 B / (4 x 3.35e12) = 5.22 ms against 10.45 ms in BF16
    assert q.fp8_weight_read_group_s == pytest.approx(70e9 / 13.4e12)
    assert q.weight_read_group_s == pytest.approx(140e9 / 13.4e12)
