"""Parameter counts from a model's geometry, tensor by tensor, as the checkpoints store them.

`Geometry` is what macros/engine/model/hf_config.py reads from a Hugging Face config.json; this module
only multiplies. Every term is one weight (or bias) tensor of the PyTorch modules the families
use in transformers, so a count can be checked against a checkpoint's index file.

Active parameters follow the engine's convention (ARCHITECTURE.md, MoE weight reads): everything a token
can touch, i.e. the total minus the routed experts it does not choose. The input embedding is
included, as it is in N for a dense model; `active_excluding_embedding` gives the figure DeepSeek
and OpenAI publish (they leave the embedding table out: a token reads one row of it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mla:
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank query and key-value projections."""

    q_lora_rank: int | None  # None: the query is projected directly from the hidden state
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class Moe:
    experts: int  # routed experts per MoE layer
    experts_per_token: int
    expert_ffn_size: int  # inner width of one routed expert
    moe_layers: int  # how many layers hold experts; the rest have a dense MLP
    shared_ffn_size: int = 0  # inner width of the always-on shared expert(s), 0 if none
    shared_gate: bool = False  # Qwen2-MoE scales the shared expert by a d -> 1 sigmoid gate
    router_bias: bool = False  # GPT-OSS router bias; DeepSeek-V3's e_score_correction_bias
    expert_bias: bool = False  # GPT-OSS experts carry biases on both projections


@dataclass(frozen=True)
class Geometry:
    vocab_size: int
    hidden_size: int
    layers: int
    query_heads: int
    kv_heads: int
    head_dim: int
    ffn_size: int | None  # dense MLP inner width (None when every layer is MoE)
    tied_embeddings: bool
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False  # Qwen3: RMSNorm over each query and key head (head_dim weights each)
    norms_per_layer: int = 2  # pre-attention and pre-MLP RMSNorm; Gemma-2 adds two post-norms
    attention_sinks: bool = False  # GPT-OSS: one learned logit per query head
    mla: Mla | None = None
    moe: Moe | None = None


@dataclass(frozen=True)
class ParamCount:
    total: int
    active: int  # engine convention: total minus the unchosen routed experts
    attention: int  # N_attn: attention blocks of all layers (projections, biases, inner norms, sinks)
    embedding: int  # input embedding table
    lm_head: int  # 0 when tied to the embedding
    dense_mlp: int
    routed_experts: int
    shared_experts: int
    routers: int
    norms: int
    per_expert: int  # one routed expert in one layer, biases included

    @property
    def active_excluding_embedding(self) -> int:
        return self.active - self.embedding


def attention_per_layer(g: Geometry) -> int:
    d = g.hidden_size
    if g.mla:
        m = g.mla
        q_width = g.query_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)
        if m.q_lora_rank:  # q_a_proj, q_a_layernorm, q_b_proj
            q = d * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * q_width
        else:
            q = d * q_width
        kv_a = d * (m.kv_lora_rank + m.qk_rope_head_dim)  # latent plus the shared RoPE key
        kv_b = m.kv_lora_rank * g.query_heads * (m.qk_nope_head_dim + m.v_head_dim)
        o = g.query_heads * m.v_head_dim * d
        # attention_bias puts biases on q_a_proj, kv_a_proj_with_mqa and o_proj only
        biases = (m.q_lora_rank or 0) + m.kv_lora_rank + m.qk_rope_head_dim + d if g.qkv_bias else 0
        return q + kv_a + m.kv_lora_rank + kv_b + o + biases  # + kv_a_layernorm
    q_width, kv_width = g.query_heads * g.head_dim, g.kv_heads * g.head_dim
    weights = d * q_width + 2 * d * kv_width + q_width * d
    biases = (q_width + 2 * kv_width if g.qkv_bias else 0) + (d if g.o_bias else 0)
    norms = 2 * g.head_dim if g.qk_norm else 0
    sinks = g.query_heads if g.attention_sinks else 0
    return weights + biases + norms + sinks


def gated_mlp(d: int, ffn: int, bias: bool = False) -> int:
    """gate, up (d -> ffn) and down (ffn -> d): the SwiGLU/GeGLU MLP of every family here."""
    return 3 * d * ffn + (2 * ffn + d if bias else 0)


def count_params(g: Geometry) -> ParamCount:
    d = g.hidden_size
    embedding = g.vocab_size * d
    lm_head = 0 if g.tied_embeddings else g.vocab_size * d
    attention = g.layers * attention_per_layer(g)
    norms = g.layers * g.norms_per_layer * d + d  # + the final norm
    moe = g.moe
    moe_layers = moe.moe_layers if moe else 0
    dense_layers = g.layers - moe_layers
    dense_mlp = dense_layers * gated_mlp(d, g.ffn_size, g.mlp_bias) if dense_layers else 0
    per_expert = routed = shared = routers = unchosen = 0
    if moe:
        per_expert = gated_mlp(d, moe.expert_ffn_size, moe.expert_bias)
        routed = moe_layers * moe.experts * per_expert
        shared_one = (gated_mlp(d, moe.shared_ffn_size) if moe.shared_ffn_size else 0) + (d if moe.shared_gate else 0)
        shared = moe_layers * shared_one
        routers = moe_layers * (d * moe.experts + (moe.experts if moe.router_bias else 0))
        unchosen = moe_layers * (moe.experts - moe.experts_per_token) * per_expert
    total = embedding + lm_head + attention + norms + dense_mlp + routed + shared + routers
    return ParamCount(total=total, active=total - unchosen, attention=attention, embedding=embedding,
                      lm_head=lm_head, dense_mlp=dense_mlp, routed_experts=routed, shared_experts=shared,
                      routers=routers, norms=norms, per_expert=per_expert)
