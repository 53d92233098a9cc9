"""The RAG formulas (macros/engine/formulas/rag.py) against values worked out by hand."""

from __future__ import annotations

import pytest

from macros.engine import formulas as f


def test_the_prompt_is_the_sum_of_its_parts():
    # 1,000 system + 10 chunks x 600 + 800 history + 200 question = 8,000 tokens
    assert f.rag_prompt_tokens(1000, 10, 600, 800, 200) == 8000
    # twice the chunks adds 6,000 tokens, nothing else
    assert f.rag_prompt_tokens(1000, 20, 600, 800, 200) == 14_000


def test_an_exact_prefix_cache_reuses_only_the_prefix():
    # 1,000 of 8,000 tokens: 12.5%; chunks give nothing without a chunk cache
    assert f.reusable_prompt_share(8000, 1000) == pytest.approx(0.125)
    assert f.reusable_prompt_share(8000, 1000, 6000, 0.0, 0.15) == pytest.approx(0.125)


def test_a_chunk_cache_reuses_hot_chunks_less_what_it_recomputes():
    # half of 6,000 chunk tokens found, 15% of those recomputed: 6,000 x 0.5 x 0.85 = 2,550;
    # (1,000 + 2,550) / 8,000 = 0.44375
    assert f.reusable_prompt_share(8000, 1000, 6000, 0.5, 0.15) == pytest.approx(0.44375)
    # everything found, nothing recomputed: the whole prompt but the history and question, 7,000 / 8,000
    assert f.reusable_prompt_share(8000, 1000, 6000, 1.0, 0.0) == pytest.approx(0.875)


def test_a_mix_of_two_request_kinds():
    # 80% at 8,000 and 20% at 32,000: 6,400 + 6,400 = 12,800
    assert f.mixed_mean(8000, 32_000, 0.2) == pytest.approx(12_800)
    assert f.mixed_mean(8000, 32_000, 0.0) == 8000


def test_a_cross_encoder_reads_the_question_once_per_candidate():
    # 50 candidates x (200 + 600) = 40,000 tokens
    assert f.rerank_tokens(50, 200, 600) == 40_000


def test_hnsw_memory_is_vectors_plus_links():
    # 1,024 dims x 2 B = 2,048 B, plus 32 links x 4 B = 128 B: 2,176 B a vector; 1e6 vectors = 2.176e9 B
    assert f.hnsw_index_bytes(1e6, 1024, 2, 32, 4) == pytest.approx(2.176e9)
