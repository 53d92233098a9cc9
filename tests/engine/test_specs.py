"""Spec data: the real files load, and each kind of bad entry fails with one message naming
the file, the entry and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.engine.specs import DATA_DIR, SpecError, catalog, load_catalog

LLAMA_70B_HEAD = ("layers = 80\nquery_heads = 64\nkv_heads = 8\nhead_dim = 128\nhidden_size = 8_192\n"
                  "ffn_size = 28_672\nmax_context = 131_072\nsource = \"Llama-3.1-70B geometry")


def test_real_data_loads_with_every_required_key():
    cat = catalog()
    assert list(cat.gpus) == ["a100", "h100", "h100-pcie", "h200", "b200", "gb200", "l40s", "l4",
                              "mi300x", "mi325x", "tpu-v5e", "tpu-v5p", "tpu-v6e"]
    assert list(cat.models) == ["llama-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-2-70b", "llama-3.1-405b",
                                "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-72b", "qwen3-235b-a22b",
                                "deepseek-v3", "gemma-2-27b", "gpt-oss-120b"]
    assert set(cat.precisions) == {"bf16", "fp16", "fp8", "int8", "int4"}


def test_every_gpu_figure_has_a_source():
    for gpu in catalog().gpus.values():
        for name in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_flops"):
            assert gpu.sources.get(name), f"{gpu.key}: {name} has no source"


def test_sparsity_figures_are_twice_dense_where_nvidia_prints_them():
    # NVIDIA's "with sparsity" figures are exactly 2x dense (H100: 1978.9 = 2 x 989.4 rounded)
    h100 = catalog().gpus["h100"]
    assert h100.bf16_sparse_flops == pytest.approx(2 * h100.bf16_flops, rel=1e-3)
    assert catalog().gpus["a100"].fp8_flops is None  # Ampere has no FP8


def test_napkin_preset_is_exactly_70e9():
    m = catalog().models["llama-70b"]
    assert m.params == 70e9 and m.active == 70e9 and m.attention == "GQA"
    assert catalog().models["deepseek-v3"].attention == "MLA"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    shutil.copytree(DATA_DIR, tmp_path / "data")
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
     ["[h100]", "bf16_flops", "must be a number"]),
    ("gpus.toml", 'name = "H100 SXM"\n', "",
     ["[h100]", "name", "missing field"]),
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
    ("precisions.toml", "bytes = 0.5", "bytes = -0.5", ["precisions.toml", "[int4]", "bytes", "positive"]),
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
    from macros.engine.workloads import load

    _edit(data / "workloads.toml", old, new)
    with pytest.raises(SpecError) as err:
        load(data / "workloads.toml")
    assert "workloads.toml" in str(err.value)
    for word in words:
        assert word in str(err.value)
