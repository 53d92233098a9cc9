"""The KV tables' page model (macros/site/pages/kv_tables.py) against figures derived by hand from the
model geometry in data/models.toml, in BF16 (2 B per element) unless stated."""

from __future__ import annotations

import pytest

from macros.engine.specs import catalog
from macros.site.pages import kv_tables


@pytest.fixture(scope="module")
def q():
    return kv_tables.model()


def test_gqa_against_mha(q):
    # Llama-70B with MHA: 2 x 80 x 64 x 128 x 2 = 2,621,440 B/token; x 4,096 = 10,737,418,240 B.
    # GQA with 8 KV heads: 327,680 B/token, 64 / 8 = 8 queries per KV head, 8x smaller
    assert q.mha_kv_per_token == 2_621_440
    assert q.mha_kv_per_seq == 10_737_418_240
    assert q.queries_per_kv_head == 8
    assert q.gqa_saving == 8
    assert q.kv_per_seq == 327_680 * 4096


def test_mla_against_mha(q):
    # DeepSeek-V3 as MHA: 61 x 128 x (2 x 128 + 64) x 2 = 4,997,120 B/token; MLA 61 x (512 + 64) x 2
    # = 70,272 B: 71.1x less
    assert q.mla_mha_kv_per_token == 4_997_120
    assert q.mla_saving == pytest.approx(4_997_120 / 70_272)


def test_sliding_windows(q):
    # Mistral-7B windows all 32 layers at 4,096: 2 x 32 x 8 x 128 x 2 x 4,096 = 536,870,912 B
    assert q.swa_kv_at_window == 536_870_912
    # Gemma-2-27B: 23 of 46 layers windowed, so past the window the cache grows at 23 / 46 = 50%;
    # at 8,192 tokens: 2 x 16 x 128 x 2 = 8,192 B per layer per token, x (23 x 8,192 + 23 x 4,096)
    assert q.mixed_growth_share == 0.5
    assert q.mixed_full_context.kv_bytes_per_seq == 8192 * (23 * 8192 + 23 * 4096)


def test_batch_and_long_context(q):
    # 4 x H100 budget 164e9 B: BF16 cache 164e9 / 1,342,177,280 -> 122; FP8 164e9 / 671,088,640 -> 244
    assert (q.s.max_batch, q.s_fp8.max_batch) == (122, 244)
    # 131,072 tokens x 327,680 B = 42,949,672,960 B, 53.69% of an H100's 80e9 B
    assert q.long == 131_072
    assert q.kv_long_share == pytest.approx(42_949_672_960 / 80e9)
    # MQA means a single KV head: exactly the models in the data with kv_heads = 1
    mqa = {key for key, m in catalog().models.items() if m.kv_heads == 1 and m.kv_lora_rank is None}
    assert {m.key for m in q.mqa_models} == mqa
