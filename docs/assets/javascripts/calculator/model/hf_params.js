// Parameter counts from a model's geometry, tensor by tensor, as the checkpoints store them
// (macros/engine/model/hf_params.py). `g` is the geometry hf_config.js reads from a config.json: {vocab_size,
// hidden_size, layers, query_heads, kv_heads, head_dim, ffn_size, tied_embeddings, qkv_bias, o_bias, mlp_bias,
// qk_norm, norms_per_layer, attention_sinks, mla, moe}. Active parameters follow the engine's convention:
// the total minus the routed experts a token does not choose.

export function attentionPerLayer(g) {
  const d = g.hidden_size;
  if (g.mla) {
    const m = g.mla;
    const qWidth = g.query_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim);
    // q_a_proj, q_a_layernorm, q_b_proj; or the query projected directly from the hidden state
    const q = m.q_lora_rank ? d * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * qWidth : d * qWidth;
    const kvA = d * (m.kv_lora_rank + m.qk_rope_head_dim);  // latent plus the shared RoPE key
    const kvB = m.kv_lora_rank * g.query_heads * (m.qk_nope_head_dim + m.v_head_dim);
    const o = g.query_heads * m.v_head_dim * d;
    // attention_bias puts biases on q_a_proj, kv_a_proj_with_mqa and o_proj only
    const biases = g.qkv_bias ? (m.q_lora_rank || 0) + m.kv_lora_rank + m.qk_rope_head_dim + d : 0;
    return q + kvA + m.kv_lora_rank + kvB + o + biases;  // + kv_a_layernorm
  }
  const qWidth = g.query_heads * g.head_dim, kvWidth = g.kv_heads * g.head_dim;
  const weights = d * qWidth + 2 * d * kvWidth + qWidth * d;
  const biases = (g.qkv_bias ? qWidth + 2 * kvWidth : 0) + (g.o_bias ? d : 0);
  const norms = g.qk_norm ? 2 * g.head_dim : 0;
  const sinks = g.attention_sinks ? g.query_heads : 0;
  return weights + biases + norms + sinks;
}

// gate, up (d -> ffn) and down (ffn -> d): the SwiGLU/GeGLU MLP of every family here.
export const gatedMlp = (d, ffn, bias = false) => 3 * d * ffn + (bias ? 2 * ffn + d : 0);

export function countParams(g) {
  const d = g.hidden_size;
  const embedding = g.vocab_size * d;
  const lmHead = g.tied_embeddings ? 0 : g.vocab_size * d;
  const attention = g.layers * attentionPerLayer(g);
  const norms = g.layers * g.norms_per_layer * d + d;  // + the final norm
  const moe = g.moe;
  const moeLayers = moe ? moe.moe_layers : 0;
  const denseLayers = g.layers - moeLayers;
  const denseMlp = denseLayers ? denseLayers * gatedMlp(d, g.ffn_size, g.mlp_bias) : 0;
  let perExpert = 0, routed = 0, shared = 0, routers = 0, unchosen = 0;
  if (moe) {
    perExpert = gatedMlp(d, moe.expert_ffn_size, moe.expert_bias);
    routed = moeLayers * moe.experts * perExpert;
    const sharedOne = (moe.shared_ffn_size ? gatedMlp(d, moe.shared_ffn_size) : 0) + (moe.shared_gate ? d : 0);
    shared = moeLayers * sharedOne;
    routers = moeLayers * (d * moe.experts + (moe.router_bias ? moe.experts : 0));
    unchosen = moeLayers * (moe.experts - moe.experts_per_token) * perExpert;
  }
  const total = embedding + lmHead + attention + norms + denseMlp + routed + shared + routers;
  return { total, active: total - unchosen, attention, embedding, lm_head: lmHead, dense_mlp: denseMlp,
    routed_experts: routed, shared_experts: shared, routers, norms, per_expert: perExpert };
}
