"""Spec data: the real files load, and each kind of bad entry fails with one message naming
the file, the entry and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.engine.specs import DATA_DIR, SpecError, catalog, load_catalog

LLAMA_70B_HEAD = ("layers = 80\nquery_heads = 64\nkv_heads = 8\nhead_dim = 128\nhidden_size = 8_192\n"
                  "ffn_size = 28_672\nmax_context = 131_072\nvocab_size = 128_256\n"
                  "native_weights = \"bf16\"  # the anchor")


def test_real_data_loads_with_every_required_key():
    cat = catalog()
    assert list(cat.gpus) == ["a100", "h100", "h100-pcie", "h200", "b200", "gb200", "b300", "gb300", "l40s",
                              "l4", "mi300x", "mi325x", "mi355x", "tpu-v5e", "tpu-v5p", "tpu-v6e"]
    assert list(cat.models) == ["llama-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-2-70b", "llama-3.1-405b",
                                "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-72b", "qwen3-235b-a22b",
                                "deepseek-v3", "gemma-2-27b", "gpt-oss-120b"]
    assert set(cat.precisions) == {"bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "nvfp4"}


def test_every_gpu_figure_has_a_source():
    for gpu in catalog().gpus.values():
        for name in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_flops"):
            assert gpu.sources.get(name), f"{gpu.key}: {name} has no source"


def test_sparsity_figures_are_twice_dense_where_nvidia_prints_them():
    # NVIDIA's "with sparsity" figures are exactly 2x dense (H100: 1978.9 = 2 x 989.4 rounded)
    h100 = catalog().gpus["h100"]
    assert h100.bf16_sparse_flops == pytest.approx(2 * h100.bf16_flops, rel=1e-3)
    assert catalog().gpus["a100"].fp8_flops is None  # Ampere has no FP8


def test_fp4_peaks_are_dense_and_only_where_published():
    g = catalog().gpus
    # NVIDIA prints FP4 as "sparse | dense" per board or rack; dense per GPU by hand:
    assert g["b200"].fp4_flops == 72e15 / 8 == 2 * g["b200"].fp8_flops  # HGX B200 "144 | 72 PFLOPS"
    assert g["b300"].fp4_flops == 108e15 / 8  # HGX B300 "144 | 108 PFLOPS"
    assert g["gb300"].fp4_flops == pytest.approx(1080e15 / 72)  # GB300 NVL72 "1,440 | 1,080 PFLOPS"
    assert g["gb200"].fp4_flops == 20e15 / 2  # 1.44 EFLOPS sparse per rack / 72, halved
    # MI355X: 8,192 FP8 FLOP per clock per CU x 256 CUs x 2.4 GHz; MXFP4 twice that
    assert g["mi355x"].fp8_flops == pytest.approx(8192 * 256 * 2.4e9, rel=1e-4)
    assert g["mi355x"].fp4_flops == pytest.approx(2 * 8192 * 256 * 2.4e9, rel=1e-4)
    assert not any(g[k].has_fp4 for k in ("a100", "h100", "h200", "mi300x", "tpu-v6e"))
    assert g["b300"].bf16_flops == g["b200"].bf16_flops  # Blackwell Ultra adds FP4, not BF16


def test_link_bandwidth_is_one_direction():
    g = catalog().gpus
    assert g["h100"].interconnect_bytes_per_s == 900e9 / 2  # NVLink 4: "900 GB/s" is both ways
    assert g["b200"].interconnect_bytes_per_s == 14.4e12 / 8 / 2  # "14.4 TB/s aggregated" per 8 GPUs
    assert g["a100"].interconnect_bytes_per_s == 300e9  # "300 + 300 GB/s"
    assert g["mi300x"].interconnect_bytes_per_s == 7 * 16 * 32e9 / 8  # 7 links, x16 at 32 GT/s, one way
    # Google: v5e "1600 Gbps", later "bidirectional 400 GBps"; v5p "4800 Gbps", later "1200 GBps"
    assert g["tpu-v5e"].interconnect_bytes_per_s == 1600e9 / 8 == 400e9 / 2
    assert g["tpu-v5p"].interconnect_bytes_per_s == 4800e9 / 8 == 1200e9 / 2
    assert g["tpu-v6e"].interconnect_bytes_per_s == 800e9 / 2


def test_precision_bytes_include_block_scales():
    p = catalog().precisions
    assert p["mxfp4"].bytes == (4 + 8 / 32) / 8  # E2M1 elements, one E8M0 scale per 32: 4.25 bits
    assert p["nvfp4"].bytes == (4 + 8 / 16) / 8  # one E4M3 scale per 16: 4.5 bits
    assert p["int4"].bytes == (4 + (16 + 4) / 128) / 8  # FP16 scale + 4-bit zero per 128: 4.15625 bits
    assert p["bf16"].bytes == 2 and p["fp8"].bytes == 1
    assert {k: v.compute for k, v in p.items()} == {"bf16": "bf16", "fp16": "bf16", "fp8": "fp8",
                                                    "int8": "bf16", "int4": "bf16", "mxfp4": "fp4",
                                                    "nvfp4": "fp4"}


def test_native_formats_are_what_the_checkpoints_store():
    models = catalog().models
    assert models["deepseek-v3"].native_weights == "fp8" and models["deepseek-v3"].nonexpert_weights == "fp8"
    oss = models["gpt-oss-120b"]
    assert (oss.native_weights, oss.nonexpert_weights) == ("mxfp4", "bf16")
    assert {m.native_weights for k, m in models.items() if k.startswith(("llama-3", "qwen", "mistral"))} == {"bf16"}
    # GPT-OSS-120B: the routed experts (36 layers x 128 x gate, up, down of 2,880 x 2,880) in MXFP4,
    # the rest in BF16, reproduce the published 60.8 GiB checkpoint.
    experts = 36 * 128 * 3 * 2880 * 2880
    stored = experts * 4.25 / 8 + (oss.params - experts) * 2
    assert stored == pytest.approx(60.8 * 2**30, rel=0.01)
    assert oss.checkpoint_bytes == pytest.approx(60.8 * 2**30, rel=1e-3)


def _recount(m) -> float:
    """Parameters from the geometry alone (biases and norms left out: under 0.1% here)."""
    d = m.hidden_size
    if m.is_mla:
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        q = d * m.q_lora_rank + m.q_lora_rank * m.query_heads * qk if m.q_lora_rank else d * m.query_heads * qk
        attn = (q + d * (m.kv_lora_rank + m.qk_rope_head_dim)
                + m.kv_lora_rank * m.query_heads * (m.qk_nope_head_dim + m.v_head_dim)
                + m.query_heads * m.v_head_dim * d)
    else:
        attn = 2 * d * m.query_heads * m.head_dim + 2 * d * m.kv_heads * m.head_dim  # q and o, k and v
    mlp = 3 * d * m.ffn_size  # gate, up, down
    if m.is_moe:
        dense = m.dense_layers or 0
        per_moe_layer = (m.experts + (m.shared_experts or 0)) * mlp + d * m.experts  # experts and router
        ffn = dense * 3 * d * (m.dense_ffn_size or 0) + (m.layers - dense) * per_moe_layer
    else:
        ffn = m.layers * mlp
    return m.layers * attn + ffn + m.vocab_size * d * (1 if m.tie_embeddings else 2)


def test_geometry_recounts_every_models_parameters():
    for m in catalog().models.values():
        assert m.params == pytest.approx(_recount(m), rel=0.01), m.key  # the napkin preset is 0.8% off by design
    # DeepSeek-V3's attention, by hand: q_a 7168x1536, q_b 1536x128x192, kv_a 7168x576,
    # kv_b 512x128x256, o 128x128x7168 per layer, 61 layers: the "about 11 billion" every
    # data-parallel attention rank holds.
    per_layer = 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168
    assert per_layer == 187_105_280 and 61 * per_layer == pytest.approx(11.41e9, rel=1e-3)


def test_napkin_preset_is_exactly_70e9():
    m = catalog().models["llama-70b"]
    assert m.params == 70e9 and m.active == 70e9 and m.attention == "GQA"
    assert catalog().models["deepseek-v3"].attention == "MLA"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    # the catalog's files, not the simulations memo beside them (1,400 files the catalog never reads)
    shutil.copytree(DATA_DIR, tmp_path / "data", ignore=shutil.ignore_patterns("simulated"))
    return tmp_path / "data"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"fixture text {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


CASES = [
    # (file, old text, new text, words the message must contain)
    ("gpus.toml", "bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = -3.35e12",
     ["gpus.toml", "[h100]", "bandwidth_bytes_per_s", "positive"]),
    ("gpus.toml", "memory_bytes = 80e9\nmemory_visible_bytes = 85_520",
     "memory_bytes = 0\nmemory_visible_bytes = 85_520",
     ["[h100]", "memory_bytes", "positive"]),
    ("gpus.toml", "bf16_flops = 989.4e12  # 132", "bf16_flops = \"989.4 TFLOP/s\"  # 132",
     ["[h100]", "bf16_flops", "must be a positive number"]),
    ("gpus.toml", 'name = "H100 SXM"\n', "",
     ["[h100]", "name is missing"]),
    ("gpus.toml", 'name = "H100 SXM"\n', 'name = "H100 SXM"\nbandwith_bytes_per_s = 3e12\n',
     ["[h100]", "bandwith_bytes_per_s", "unknown field"]),
    ("models.toml", "params = 46_702_792_704\nactive_params = 12_879_921_152",
     "params = 12_879_921_152\nactive_params = 46_702_792_704",
     ["models.toml", "[mixtral-8x7b]", "active_params", "exceeds params"]),
    ("models.toml", "query_heads = 32\nkv_heads = 16", "query_heads = 32\nkv_heads = 64",
     ["[gemma-2-27b]", "kv_heads", "exceeds query_heads"]),
    ("models.toml", LLAMA_70B_HEAD, LLAMA_70B_HEAD.replace("layers = 80\n", "layers = 80.5\n"),
     ["[llama-70b]", "layers", "whole number"]),
    ("models.toml", '["llama-3.1-8b"]', "[llama-3.1-8b]",
     ["[llama-3]", "unknown field", "quoted"]),
    ("prices.toml", "typical = 2.50", "typical = 9.50", ["prices.toml", "[h100]", "typical"]),
    ("precisions.toml", "bytes = 0.51953125", "bytes = -0.5", ["precisions.toml", "[int4]", "bytes", "positive"]),
    # new fields: each bad value is rejected with a message naming it
    ("gpus.toml", "fp4_flops = 13500e12", "fp4_flops = -13500e12", ["[b300]", "fp4_flops", "positive"]),
    ("gpus.toml", "fp4_flops = 13500e12", "fp4_flops = 1350e12", ["[b300]", "fp4_flops", "below fp8_flops"]),
    ("gpus.toml", "fp8_flops = 4500e12\nfp4_flops = 13500e12", "fp4_flops = 13500e12",
     ["[b300]", "fp4_flops", "needs an FP8"]),
    ("gpus.toml", "fp4_flops = \"glennklockwood.com/garden/processors/B200", "fp4_flopz = \"x",
     ["[b200]", "fp4_flopz", "unknown field"]),
    ("gpus.toml", "interconnect_bytes_per_s = 450e9", "interconnect_bytes_per_s = \"450 GB/s\"",
     ["[h100]", "interconnect_bytes_per_s", "must be a positive number"]),
    ("precisions.toml", 'compute = "fp4"', 'compute = "fp6"', ["precisions.toml", "[mxfp4]", "compute", "'fp6'"]),
    ("precisions.toml", "bytes = 0.5625", "bytes = 0.5", ["[nvfp4]", "bytes", "disagrees with the layout"]),
    ("precisions.toml", "scale_bits = 20  #", "#", ["[int4]", "block_size", "together"]),
    ("precisions.toml", 'compute = "bf16"\nsource = "IEEE-754 binary32', 'source = "IEEE-754 binary32',
     ["[bf16]", "compute is missing"]),
    ("models.toml", 'native_weights = "fp8"', 'native_weights = "fp6"',
     ["models.toml", "[deepseek-v3]", "native_weights must be one of bf16, fp16", "got 'fp6'"]),
    ("models.toml", 'native_nonexpert_weights = "bf16"', 'native_nonexpert_weights = 16',
     ["[gpt-oss-120b]", "native_nonexpert_weights must be one of", "got 16"]),
    ("models.toml", 'vocab_size = 32_000\nnative_weights = "fp16"',
     'vocab_size = 32_000\nnative_weights = "fp16"\nnative_nonexpert_weights = "bf16"',
     ["[llama-2-70b]", "native_nonexpert_weights", "only a mixture of experts"]),
    ("models.toml", "tie_embeddings = true", 'tie_embeddings = "yes"',
     ["[gemma-2-27b]", "tie_embeddings", "true or false"]),
    ("models.toml", "vocab_size = 256_000", "vocab_size = 256_000.5", ["[gemma-2-27b]", "vocab_size", "whole number"]),
    ("models.toml", "qk_nope_head_dim = 128  #", "#", ["[deepseek-v3]", "qk_nope_head_dim", "together"]),
    ("models.toml", "v_head_dim = 128\n", "v_head_dim = 0\n", ["[deepseek-v3]", "v_head_dim", "positive"]),
    ("models.toml", LLAMA_70B_HEAD, LLAMA_70B_HEAD.replace("layers = 80\n", "layers = 80\nq_lora_rank = 1_536\n"),
     ["[llama-70b]", "q_lora_rank", "only MLA"]),
    ("models.toml", "dense_ffn_size = 18_432  #", "#", ["[deepseek-v3]", "dense_ffn_size", "together"]),
    ("models.toml", "dense_layers = 3  #", "dense_layers = 61  #", ["[deepseek-v3]", "dense_layers", "no MoE layer"]),
    ("models.toml", LLAMA_70B_HEAD, LLAMA_70B_HEAD.replace("layers = 80\n", "layers = 80\nshared_experts = 1\n"),
     ["[llama-70b]", "shared_experts", "only a mixture of experts"]),
    ("models.toml", "checkpoint_source = ", "checkpoint_sauce = ",
     ["[gpt-oss-120b]", "checkpoint_sauce", "unknown field"]),
    ("models.toml", "checkpoint_bytes = 65.28e9  #", "#", ["[gpt-oss-120b]", "checkpoint_bytes", "together"]),
]


@pytest.mark.parametrize("file, old, new, words", CASES, ids=[f"{c[0]}:{c[3][-1]}" for c in CASES])
def test_bad_data_fails_with_one_clear_line(data: Path, file: str, old: str, new: str, words: list[str]):
    _edit(data / file, old, new)
    with pytest.raises(SpecError) as err:
        load_catalog(data)
    message = str(err.value)
    assert "\n" not in message
    for word in words:
        assert word in message, f"{word!r} missing from: {message}"


def test_missing_file_is_named(data: Path):
    (data / "prices.toml").unlink()
    with pytest.raises(SpecError, match=r"prices\.toml: file not found"):
        load_catalog(data)


def test_price_for_unknown_gpu_is_named(data: Path):
    _edit(data / "prices.toml", "[h200]", "[h300]")
    with pytest.raises(SpecError, match=r"prices\.toml: \[h300\]: no GPU"):
        load_catalog(data)


@pytest.mark.parametrize("old, new, words", [
    ("prompt_tokens = 2000", "prompt_tokens = -2000", ["prompt_tokens", "positive"]),
    ('gpu = "h100"', 'gpu = "h1000"', ["gpu", "unknown GPU 'h1000'"]),
    ("gpu_counts = [1, 2, 4, 8]", 'gpu_counts = [1, "two"]', ["gpu_counts"]),
])
def test_bad_worked_input_is_named(data: Path, old: str, new: str, words: list[str]):
    from macros.engine.workloads import load_workloads

    _edit(data / "workloads.toml", old, new)
    with pytest.raises(SpecError) as err:
        load_workloads(data / "workloads.toml")
    assert "workloads.toml" in str(err.value)
    for word in words:
        assert word in str(err.value)
