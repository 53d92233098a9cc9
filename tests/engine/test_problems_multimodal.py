"""Chapter 9's practice kinds (macros/engine/problems/multimodal.py) solved by hand, and its spec data's loader: an
image-heavy prompt's tokens and KV cache, a decode step that mixes LoRA adapters, drawn problems re-solved here with
the test's own arithmetic, and a bad data file refused in one line naming the file and the entry."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from macros.engine.problems import BY_NAME, settings
from macros.engine.problems import multimodal as mp
from macros.engine.problems.base import generate
from macros.engine.specs import SpecError

QWEN_72B_KV = dict(layers=80, kv_heads=8, head_dim=128, bytes_per_kv=2)  # 2 x 80 x 8 x 128 x 2 = 327,680 B a token
LLAMA_8B = dict(layers=32, hidden=4096, query_heads=32, kv_heads=8, head_dim=128, ffn=14336)


def test_an_image_prompt_by_hand():
    # 1,920 x 1,080 rounds to 1,932 x 1,092 (69 x 39 blocks of 28), inside the budget: 2,691 tokens an image.
    # 500 + 4 x 2,691 = 11,264 tokens x 327,680 B = 3,690,987,520 B
    g = dict(width=1920, height=1080, images=4, text=500, patch=14, merge=2, min_pixels=3136, max_pixels=12845056,
             **QWEN_72B_KV)
    s = mp.solve_image_tokens(g)
    assert (s["per_image"], s["prompt"], s["kv_token"]) == (2691, 11264, 327_680)
    assert s["answer"] == 3_690_987_520 and s["verdict"] == "kept"
    # capped at 1,003,520 pixels: 1,316 x 728, 47 x 26 = 1,222 tokens; 500 + 4 x 1,222 = 5,388 x 327,680 B
    capped = mp.solve_image_tokens({**g, "max_pixels": 1_003_520})
    assert (capped["per_image"], capped["answer"], capped["verdict"]) == (1222, 5388 * 327_680, "scaled down")


def _resize(h: int, w: int, block: int, low: int, high: int) -> tuple[int, int]:
    """The test's own resize: nearest whole blocks, then down (or up) by the square root of the area's ratio."""
    rh, rw = round(h / block) * block, round(w / block) * block
    if rh * rw > high:
        k = (h * w / high) ** 0.5
        return math.floor(h / k / block) * block, math.floor(w / k / block) * block
    if rh * rw < low:
        k = (low / (h * w)) ** 0.5
        return math.ceil(h * k / block) * block, math.ceil(w * k / block) * block
    return rh, rw


def test_drawn_image_problems_re_solved_by_hand():
    kind = BY_NAME["image-tokens"]
    ps = generate("image-tokens", 4, settings()["seed"], kind.draw, kind.solve)
    assert {p.variant for p in ps} == {"scaled down", "kept"}  # both paths are asked
    for p in ps:
        i = p.inputs
        block = i["patch"] * i["merge"]
        h, w = _resize(i["height"], i["width"], block, i["min_pixels"], i["max_pixels"])
        tokens = i["text"] + i["images"] * (h // block) * (w // block)
        kv_token = 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * i["bytes_per_kv"]
        assert p.answer == tokens * kv_token, p.id


def test_a_mixed_lora_step_by_hand():
    # Llama-3.1-8B, rank 16 on all seven projections: q 4,096 + 4,096; k and v 4,096 + 1,024 each; o 4,096 + 4,096;
    # gate and up 4,096 + 14,336 each; down 14,336 + 4,096: 81,920 a layer, x 16 x 32 layers = 41,943,040
    # parameters, 83,886,080 B. 8 distinct adapters on a 60e9 B step: 60e9 + 671,088,640 = 60,671,088,640 B over
    # one GPU at 3.35e12 B/s = 18.1108 ms; 1.12% more than the base step: light
    g = dict(**LLAMA_8B, rank=16, targets="q, k, v, o, gate, up, down", bytes_per_weight=2, batch=64,
             base_step=60e9, distinct=8, gpus=1, bandwidth=3.35e12)
    s = mp.solve_lora_step(g)
    assert (s["width_sum"], s["params"], s["adapter_bytes"]) == (81_920, 41_943_040, 83_886_080)
    assert s["answer"] == pytest.approx(60_671_088_640 / 3.35e12)
    assert s["verdict"] == "light" and s["extra"] == pytest.approx(671_088_640 / 60e9)
    # 64 distinct adapters: 60e9 + 5,368,709,120 B, 8.9% more: still light; rank 64 on q and v only: 64 x (8,192 +
    # 5,120) x 32 = 27,262,976 parameters, 54,525,952 B
    assert mp.solve_lora_step({**g, "distinct": 64})["verdict"] == "light"
    qv = mp.solve_lora_step({**g, "rank": 64, "targets": "q, v"})
    assert qv["adapter_bytes"] == 54_525_952


def test_drawn_lora_problems_re_solved_by_hand():
    kind = BY_NAME["lora-step"]
    ps = generate("lora-step", 3, settings()["seed"], kind.draw, kind.solve)
    assert [p.variant for p in ps] == ["light", "light", "heavy"]  # every third problem is a heavy mix
    for p in ps:
        i = p.inputs
        d, q, kv, ff = i["hidden"], i["query_heads"] * i["head_dim"], i["kv_heads"] * i["head_dim"], i["ffn"]
        width = {"q": d + q, "k": d + kv, "v": d + kv, "o": q + d, "gate": d + ff, "up": d + ff, "down": ff + d}
        adapter = i["rank"] * sum(width[t] for t in i["targets"].split(", ")) * i["layers"] * i["bytes_per_weight"]
        assert p.answer == pytest.approx((i["base_step"] + i["distinct"] * adapter) / (i["gpus"] * i["bandwidth"]))


def test_the_kinds_are_registered_and_counted():
    assert BY_NAME["image-tokens"].solve is mp.solve_image_tokens and BY_NAME["lora-step"].draw is mp.draw_lora_step
    assert settings()["counts"]["image-tokens"] == settings()["counts"]["lora-step"] == 12


def test_the_spec_data_loads():
    spec = mp.multimodal_specs()
    assert (spec.vision.qwen2_5_vl.patch_pixels, spec.vision.qwen2_5_vl.merge) == (14, 2)
    assert spec.audio.qwen2_audio.downsample == 4 and spec.vision.mllama.cross_attention_layers == 8


@pytest.mark.parametrize(("old", "new", "message"), [
    ("patch_pixels = 14              # vision_config.patch_size", "patch_pixels = 140",
     r"\[vision.qwen2_5_vl\] patch_pixels: must be a whole number from 8 to 32, got 140"),
    ("merge = 2                      # vision_config.spatial_merge_size: 2 x 2 patches make one token", "merge = 2.5",
     r"\[vision.qwen2_5_vl\] merge: must be a whole number"),
    ('date = "2026-12-06"', 'date = "December"', r"\[vision.qwen2_5_vl\] date: must be a YYYY-MM-DD date"),
    ("downsample = 4 ", "downsampled = 4 ", r"\[audio.qwen2_audio\]: downsample is missing"),
    ("window_s = 30                  # the encoder's fixed input: max_source_positions 1,500", "window_s = nan",
     r"\[audio.whisper\] window_s: must be a whole number"),
])
def test_a_bad_entry_is_one_line_naming_the_file_and_the_entry(tmp_path: Path, old, new, message):
    text = mp.PATH.read_text()
    assert old in text
    bad = tmp_path / "multimodal.toml"
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(SpecError, match=message) as caught:
        mp.multimodal_specs(bad)
    assert str(caught.value).startswith(str(bad)) and "\n" not in str(caught.value)
