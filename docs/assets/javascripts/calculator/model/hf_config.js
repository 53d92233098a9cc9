// Any model from its Hugging Face config.json (macros/engine/model/hf_config.py): the geometry the engine needs and
// the parameter counts that follow from it, as a model with the catalog's fields (catalog.json's models).
// Families are recognised by `model_type` (or, failing that, `architectures`); absent fields take the
// defaults transformers applies for that family. A bad config is an InputError naming the file and the field.
//
//   modelFromConfig(cat, JSON-parsed config, "path/to/config.json", "my-model")

import { countParams } from "./hf_params.js";
import { InputError, RuleError, checkAcross, checkValue } from "../rules.js";

const ARCHITECTURES = {
  LlamaForCausalLM: "llama", MistralForCausalLM: "mistral", MixtralForCausalLM: "mixtral",
  Qwen2ForCausalLM: "qwen2", Qwen2MoeForCausalLM: "qwen2_moe", Qwen3ForCausalLM: "qwen3",
  Qwen3MoeForCausalLM: "qwen3_moe", DeepseekV3ForCausalLM: "deepseek_v3",
  Gemma2ForCausalLM: "gemma2", GptOssForCausalLM: "gpt_oss",
};
const FAMILIES = [...new Set(Object.values(ARCHITECTURES))];
const RULES = "hf_config";  // data/rules.toml's set for the config's fields
const EXPERTS = { mixtral: "num_local_experts", gpt_oss: "num_local_experts", qwen2_moe: "num_experts",
  qwen3_moe: "num_experts", deepseek_v3: "n_routed_experts" };  // each family's name for E
const absent = (v) => v === null || v === undefined;
const isInt = (v) => typeof v === "number" && Number.isInteger(v);

// Python's repr() of a JSON value, as hf_config.py's messages show one.
export function pyRepr(v) {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return Number.isNaN(v) ? "nan" : Number.isFinite(v) ? String(v) : (v > 0 ? "inf" : "-inf");
  if (typeof v === "string") {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")
      .replace(new RegExp(quote, "g"), `\\${quote}`);
    return quote + body + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
}

// Typed access to the config's fields; every problem becomes one InputError line.
class Reader {
  constructor(cat, raw, where) { this.R = cat.rules; this.raw = raw; this.where = where; }
  fail(name, problem) { throw new InputError(`${this.where}: ${name}: ${problem}`); }
  get(name) { return this.raw[name] === undefined ? null : this.raw[name]; }  // dict.get: null when absent
  checked(name, value) {
    try {
      return checkValue(this.R, this.R[RULES].fields[name], value, name);
    } catch (e) {
      if (!(e instanceof RuleError)) throw e;
      throw new InputError(`${this.where}: ${e.message}`);
    }
  }
  // A whole number the rules allow; `fallback` stands in when the field is absent (undefined: required).
  count(name, fallback = undefined, why = "") {
    const value = Object.prototype.hasOwnProperty.call(this.raw, name) ? this.raw[name] : fallback;
    if (value === undefined) this.fail(name, `missing field${why}`);
    return this.checked(name, value);
  }
  // A count that may be absent or null (a window, a LoRA rank): null then.
  optional(name) { return absent(this.raw[name]) ? null : this.count(name); }
  flag(name, fallback) {
    const value = Object.prototype.hasOwnProperty.call(this.raw, name) ? this.raw[name] : fallback;
    return absent(value) ? fallback : this.checked(name, value);
  }
}

function family(r) {
  const modelType = r.get("model_type");
  if (FAMILIES.includes(modelType)) return modelType;
  const archs = r.get("architectures") || [];
  for (const arch of Array.isArray(archs) ? archs : []) {
    if (Object.prototype.hasOwnProperty.call(ARCHITECTURES, arch)) return ARCHITECTURES[arch];
  }
  return r.fail("model_type", `unknown architecture ${pyRepr(modelType)} (architectures ${pyRepr(archs)}); `
    + `known: ${[...FAMILIES].sort().join(", ")}`);
}

const moeOf = (fields) => ({ shared_ffn_size: 0, shared_gate: false, router_bias: false, expert_bias: false, ...fields });
const range = (n) => Array.from({ length: n }, (_, i) => i);

function moe(r, fam, layers) {
  if (fam === "mixtral" || fam === "gpt_oss") {  // every layer is MoE; intermediate_size is one expert's width
    return moeOf({ experts: r.count("num_local_experts"), experts_per_token: r.count("num_experts_per_tok"),
      expert_ffn_size: r.count("intermediate_size"), moe_layers: layers, router_bias: fam === "gpt_oss",
      expert_bias: fam === "gpt_oss" });
  }
  if (fam === "qwen2_moe" || fam === "qwen3_moe") {
    // transformers: layer i is sparse unless listed in mlp_only_layers, every decoder_sparse_step-th
    const step = r.count("decoder_sparse_step", 1);
    const dense = r.get("mlp_only_layers") || [];
    if (!Array.isArray(dense) || !dense.every(isInt)) r.fail("mlp_only_layers", `must be a list of layer indices, got ${pyRepr(dense)}`);
    const moeLayers = range(layers).filter((i) => !dense.includes(i) && (i + 1) % step === 0).length;
    const shared = fam === "qwen2_moe" ? r.count("shared_expert_intermediate_size") : 0;
    return moeOf({ experts: r.count("num_experts"), experts_per_token: r.count("num_experts_per_tok"),
      expert_ffn_size: r.count("moe_intermediate_size"), moe_layers: moeLayers, shared_ffn_size: shared,
      shared_gate: fam === "qwen2_moe" });
  }
  if (fam === "deepseek_v3") {
    const firstDense = r.count("first_k_dense_replace", 0), freq = r.count("moe_layer_freq", 1);
    const expertFfn = r.count("moe_intermediate_size");
    const shared = absent(r.get("n_shared_experts")) ? null : r.count("n_shared_experts");  // null or 0: none
    return moeOf({ experts: r.count("n_routed_experts"), experts_per_token: r.count("num_experts_per_tok"),
      expert_ffn_size: expertFfn, moe_layers: range(layers).filter((i) => i >= firstDense && i % freq === 0).length,
      shared_ffn_size: (shared || 0) * expertFfn, router_bias: true });  // e_score_correction_bias
  }
  return null;
}

// [window, how many layers use it]. Newer configs list layer_types; older ones imply it.
function sliding(r, fam, layers) {
  const types = r.get("layer_types");
  let n;
  if (types !== null) {
    if (!Array.isArray(types) || types.length !== layers) {
      r.fail("layer_types", `must list one type per layer (${layers}), got ${pyRepr(types)}`);
    }
    n = types.filter((t) => t === "sliding_attention").length;
  } else if (fam === "mistral" || fam === "mixtral") {  // a window, when set, applies to every layer
    n = r.optional("sliding_window") ? layers : 0;
  } else if (["qwen2", "qwen2_moe", "qwen3", "qwen3_moe"].includes(fam)) {
    // sliding_window is set in most Qwen configs but used only with use_sliding_window, from max_window_layers on
    n = r.flag("use_sliding_window", false) ? Math.max(0, layers - r.count("max_window_layers", layers)) : 0;
  } else if (fam === "gemma2" || fam === "gpt_oss") {  // local layers alternate with global ones, starting local
    n = Math.ceil(layers / 2);
  } else {
    n = 0;
  }
  if (n === 0) return [null, 0];
  return [r.count("sliding_window", undefined, ` (${n} layers use a sliding window)`), n];
}

function geometry(r, fam) {
  const layers = r.count("num_hidden_layers"), hidden = r.count("hidden_size");
  const heads = r.count("num_attention_heads");
  const kvHeads = r.count("num_key_value_heads", heads);  // transformers: absent means MHA
  try {
    checkAcross(r.R, RULES, { num_attention_heads: heads, hidden_size: hidden, head_dim: r.get("head_dim") });
  } catch (e) {
    if (!(e instanceof RuleError)) throw e;
    throw new InputError(`${r.where}: ${e.message}`);
  }
  let headDim = r.count("head_dim", Math.floor(hidden / heads));  // Qwen3, Gemma-2 and GPT-OSS decouple it
  const bias = r.flag("attention_bias", fam === "gpt_oss");
  const vocab = r.count("vocab_size");
  let mla = null;
  if (fam === "deepseek_v3") {
    mla = { q_lora_rank: r.optional("q_lora_rank"), kv_lora_rank: r.count("kv_lora_rank"),
      qk_nope_head_dim: r.count("qk_nope_head_dim"), qk_rope_head_dim: r.count("qk_rope_head_dim"),
      v_head_dim: r.count("v_head_dim") };
    headDim = mla.qk_nope_head_dim;  // models.toml's convention
  }
  let experts = moe(r, fam, layers);
  const ffn = experts && experts.moe_layers === layers ? null : r.count("intermediate_size", undefined, " (dense MLP width)");
  if (experts && experts.moe_layers === 0) experts = null;
  return {
    vocab_size: vocab, hidden_size: hidden, layers, query_heads: heads, kv_heads: kvHeads, head_dim: headDim,
    ffn_size: ffn, tied_embeddings: r.flag("tie_word_embeddings", fam === "gemma2"),  // Gemma ties by default
    qkv_bias: fam === "qwen2" || fam === "qwen2_moe" || bias, o_bias: bias && fam !== "deepseek_v3",
    mlp_bias: fam === "llama" && r.flag("mlp_bias", false), qk_norm: fam === "qwen3" || fam === "qwen3_moe",
    norms_per_layer: fam === "gemma2" ? 4 : 2, attention_sinks: fam === "gpt_oss", mla, moe: experts,
  };
}

// The checkpoint's weight format as a precisions.toml key: a quantization method the data knows (fp8,
// mxfp4), else the stored dtype (float16 -> fp16, anything else bf16).
function native(raw) {
  const quant = raw.quantization_config;
  const method = quant !== null && typeof quant === "object" && !Array.isArray(quant) ? quant.quant_method : null;
  if (method === "fp8" || method === "mxfp4") return method;
  return raw.torch_dtype === "float16" ? "fp16" : "bf16";
}

// The model a parsed config.json describes, `where` naming the file in errors, `key` the model.
export function modelFromConfig(cat, raw, where, key) {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new InputError(`${where}: must be a JSON object, got ${raw === null ? "NoneType" : Array.isArray(raw) ? "list"
      : { string: "str", number: Number.isInteger(raw) ? "int" : "float", boolean: "bool" }[typeof raw]}`);
  }
  const r = new Reader(cat, raw, where);
  const fam = family(r);
  const g = geometry(r, fam);
  const [window, windowLayers] = sliding(r, fam, g.layers);
  const params = countParams(g);
  const name = typeof raw._name_or_path === "string" ? raw._name_or_path : key;
  const mla = g.mla, experts = g.moe;
  const model = {
    key, name: name || key, params: params.total, active_params: experts ? params.active : null,
    layers: g.layers, query_heads: g.query_heads, kv_heads: g.kv_heads, head_dim: g.head_dim,
    hidden_size: g.hidden_size, ffn_size: experts ? experts.expert_ffn_size : g.ffn_size,  // per routed expert
    max_context: r.count("max_position_embeddings"),
    kv_lora_rank: mla ? mla.kv_lora_rank : null, qk_rope_head_dim: mla ? mla.qk_rope_head_dim : null,
    qk_nope_head_dim: mla ? mla.qk_nope_head_dim : null, v_head_dim: mla ? mla.v_head_dim : null,
    q_lora_rank: mla ? mla.q_lora_rank : null, vocab_size: g.vocab_size, tie_embeddings: g.tied_embeddings,
    native_weights: native(raw), sliding_window: window, sliding_window_layers: windowLayers,
    experts: experts ? experts.experts : null, experts_per_token: experts ? experts.experts_per_token : null,
    dense_layers: null, dense_ffn_size: null, native_nonexpert_weights: null,
  };
  // the same checks a models.toml entry must pass, naming the config's own fields
  try {
    checkAcross(cat.rules, "model", model, { ...cat.rules[RULES].names, experts: EXPERTS[fam] ?? "experts" });
  } catch (e) {
    if (!(e instanceof RuleError)) throw e;
    throw new InputError(`${where}: ${e.message}`);
  }
  return model;
}
