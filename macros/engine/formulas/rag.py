"""Retrieval-augmented generation: what a RAG prompt is made of, what a cache can reuse of it, and
the retrieval tier's own sizes. Token counts are tokens; bytes are bytes (SI, ARCHITECTURE.md, the formula contract)."""

from __future__ import annotations

from ._array import Number

__all__ = [
    "rag_prompt_tokens", "reusable_prompt_share", "mixed_mean", "rerank_tokens", "hnsw_index_bytes",
]


def rag_prompt_tokens(system_tokens: Number, chunks: Number, chunk_tokens: Number, history_tokens: Number,
                      question_tokens: Number) -> Number:
    """The context budget of one request: system prompt + chunks × tokens per chunk + history + question."""
    return system_tokens + chunks * chunk_tokens + history_tokens + question_tokens


def reusable_prompt_share(prompt_tokens: Number, prefix_tokens: Number, chunk_tokens_total: Number = 0,
                          chunk_hit_rate: Number = 0, recompute_fraction: Number = 0) -> Number:
    """Share of a prompt's tokens whose KV comes from a cache. An exact-prefix cache reuses only the
    `prefix_tokens` that lead every prompt byte for byte; a chunk cache in the manner of CacheBlend
    also reuses the KV of retrieved chunks found in it (`chunk_hit_rate` of the chunk tokens), at any
    position, but must recompute `recompute_fraction` of each reused chunk's tokens to restore the
    attention across chunks."""
    reused_chunks = chunk_tokens_total * chunk_hit_rate * (1 - recompute_fraction)
    return (prefix_tokens + reused_chunks) / prompt_tokens


def mixed_mean(base: Number, other: Number, other_share: Number) -> Number:
    """The mean of a two-part mix: `other_share` of requests at `other`, the rest at `base`."""
    return (1 - other_share) * base + other_share * other


def rerank_tokens(candidates: Number, question_tokens: Number, chunk_tokens: Number) -> Number:
    """Tokens a cross-encoder reads for one query: each candidate chunk is scored with the question
    beside it, so the question is read once per candidate."""
    return candidates * (question_tokens + chunk_tokens)


def hnsw_index_bytes(vectors: Number, dim: Number, bytes_per_element: Number, links_per_vector: Number,
                     bytes_per_link: Number) -> Number:
    """Memory of an HNSW vector index: each vector's elements plus its bottom-layer neighbour list
    (the upper layers hold a small fraction of the vectors and are left out)."""
    return vectors * (dim * bytes_per_element + links_per_vector * bytes_per_link)
