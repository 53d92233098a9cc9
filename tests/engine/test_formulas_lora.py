"""LoRA adapters (macros/engine/formulas/lora.py and macros/engine/model/adapters.py) against values derived by
hand from the Llama-3.1 configs: 8B has d = 4,096, 32 query heads and 8 KV heads of 128, d_ff = 14,336 and
32 layers; 70B has d = 8,192, 64 query heads and 8 KV heads of 128, d_ff = 28,672 and 80 layers."""

from __future__ import annotations

import pytest

from macros.engine import formulas as f
from macros.engine.lookup import InputError
from macros.engine.model.adapters import adapter


def test_matrix_widths_llama_8b():
    # q: 4,096 -> 32 x 128 = 4,096; k, v: 4,096 -> 8 x 128 = 1,024; o: 4,096 -> 4,096;
    # gate, up: 4,096 -> 14,336; down: 14,336 -> 4,096
    widths = f.lora_matrix_widths(4096, 32, 8, 128, 14336)
    assert widths == {"q": (4096, 4096), "k": (4096, 1024), "v": (4096, 1024), "o": (4096, 4096),
                      "gate": (4096, 14336), "up": (4096, 14336), "down": (14336, 4096)}
    assert tuple(widths) == f.LORA_TARGETS


def test_adapter_params_and_bytes_llama_8b_rank_16_all_projections():
    # Σ (d_in + d_out) per layer = 8,192 + 5,120 + 5,120 + 8,192 + 3 x 18,432 = 81,920;
    # x 16 (rank) x 32 layers = 41,943,040 parameters; x 2 B (BF16) = 83,886,080 B (80 MiB exactly)
    widths = f.lora_matrix_widths(4096, 32, 8, 128, 14336).values()
    assert f.lora_adapter_params(16, widths, 32) == 41_943_040
    a = adapter("llama-3.1-8b", 16)
    assert a.params == 41_943_040 and a.bytes == 83_886_080 == 80 * 2**20
    # 2 FLOPs per adapter weight per token: 83,886,080 FLOP, against 2 x 8,030,261,248 for the base
    assert a.flops_per_token == 83_886_080
    assert a.base_share == pytest.approx(41_943_040 / 8_030_261_248)


def test_adapter_scales_with_rank_and_targets():
    # rank 64 is four times rank 16: 335,544,320 B. Attention only (q, k, v, o): 26,624 x 16 x 32 x 2 B
    assert adapter("llama-3.1-8b", 64).bytes == 335_544_320
    assert adapter("llama-3.1-8b", 16, ("q", "k", "v", "o")).bytes == 26_624 * 16 * 32 * 2 == 27_262_976


def test_adapter_llama_70b():
    # Σ = 2 x 16,384 (q, o) + 2 x 9,216 (k, v) + 3 x 36,864 (gate, up, down) = 161,792;
    # x 16 x 80 = 207,093,760 parameters; x 2 B = 414,187,520 B
    assert adapter("llama-3.1-70b", 16).bytes == 414_187_520


def test_adapter_refuses_what_it_cannot_size():
    for bad in (lambda: adapter("deepseek-v3", 16), lambda: adapter("llama-3.1-8b", 16, ("qkv",)),
                lambda: adapter("llama-3.1-8b", 0)):
        with pytest.raises(InputError):
            bad()


def test_step_bytes_add_each_distinct_adapter_once():
    # 10 GB of base reads plus 3 distinct adapters of 2 GB each: 16 GB, however many sequences share them
    assert f.lora_step_bytes(10e9, 3, 2e9) == 16e9
    assert f.lora_step_bytes(10e9, 0, 2e9) == 10e9


def test_zipf_shares():
    # s = 1 over 3 items: weights 1, 1/2, 1/3, sum 11/6: shares 6/11, 3/11, 2/11
    assert f.zipf_shares(3, 1.0) == pytest.approx([6 / 11, 3 / 11, 2 / 11])
    # s = 0 is uniform
    assert f.zipf_shares(4, 0.0) == pytest.approx([0.25] * 4)
    assert sum(f.zipf_shares(5000, 1.0)) == pytest.approx(1)


def test_expected_distinct():
    # Two equally likely adapters, two draws: the same one with probability 1/2, so 1 x 0.5 + 2 x 0.5 = 1.5;
    # the uniform case is the MoE router's experts_touched(E=2, k=1, b=2) = 2 x (1 - 0.5^2) = 1.5
    assert f.expected_distinct([0.5, 0.5], 2) == pytest.approx(1.5) == f.experts_touched(2, 1, 2)
    # one draw finds exactly one; one item is always exactly one
    assert f.expected_distinct(f.zipf_shares(50, 1.0), 1) == pytest.approx(1)
    assert f.expected_distinct([1.0], 100) == 1


def test_popular_set_hit_rate():
    # the two most popular of shares 0.2, 0.5, 0.3 are 0.5 and 0.3: 0.8, whatever order they come in
    assert f.popular_set_hit_rate([0.2, 0.5, 0.3], 2) == pytest.approx(0.8)
    assert f.popular_set_hit_rate([0.2, 0.5, 0.3], 0) == 0
    assert f.popular_set_hit_rate([0.2, 0.5, 0.3], 10) == pytest.approx(1)
    # s = 1 over 3 items, one slot: 6/11
    assert f.popular_set_hit_rate(f.zipf_shares(3, 1.0), 1) == pytest.approx(6 / 11)
