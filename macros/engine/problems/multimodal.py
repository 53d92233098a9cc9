"""Chapter 9's spec data and its two practice kinds: the prompt an image-heavy request makes (dynamic resolution,
merged patches, the KV cache the prompt takes), and the decode step of a batch that mixes LoRA adapters (the
adapter's size from its rank and targets, each distinct adapter read once a step).

The encoders' data (macros/data/topics/multimodal.toml) is read and checked here, in the engine, because the
problems draw from it; the chapter's page model (macros/site/pages/multimodal.py) reads it through
multimodal_specs() too, so a page and a problem cannot disagree about a patch size."""

from __future__ import annotations

import functools
import math
import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from .. import formulas as f
from ..formulas import multimodal as mm
from ..lookup import dtype_bytes, get_gpu, get_model
from ..model.scenario import scenario
from ..rules import shown
from ..specs import DATA_DIR, SpecError, display_path, read_toml
from .base import Draw, Given, Solution, Value

PATH = DATA_DIR / "topics" / "multimodal.toml"

# Each number an entry may hold, with the range a real encoder's value falls in (a typo an order of magnitude off
# falls outside). Every one is a whole number but the sampling rate.
RANGES: dict[str, tuple[float, float]] = {
    "patch_pixels": (8, 32), "merge": (1, 4), "temporal_patch": (1, 4), "depth": (4, 96), "hidden": (256, 8192),
    "ffn": (256, 32768), "mlp_matrices": (2, 3), "full_attention_layers": (0, 96), "window_pixels": (28, 1024),
    "out_hidden": (1024, 32768), "min_pixels": (784, 1e6), "max_pixels": (1e5, 1e8), "suggested_max_tokens": (64, 1e5),
    "video_fps": (0.1, 60), "image_pixels": (112, 2048), "max_tiles": (1, 64), "overview_tiles": (0, 4),
    "class_tokens": (0, 8), "cross_attention_layers": (1, 200), "decoder_layers": (1, 200), "kv_heads": (1, 128),
    "head_dim": (32, 512), "mel_frames_per_s": (10, 1000), "downsample": (1, 16), "window_s": (1, 600),
}
NOT_WHOLE = {"video_fps"}
TEXT = ("name", "source", "date")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# What the chapter and the problems read from each entry: a missing one is a data error, not a KeyError.
REQUIRED: dict[str, tuple[str, ...]] = {
    "vision.qwen2_5_vl": ("patch_pixels", "merge", "temporal_patch", "depth", "hidden", "ffn", "mlp_matrices",
                          "full_attention_layers", "window_pixels", "out_hidden", "min_pixels", "max_pixels",
                          "suggested_max_tokens", "video_fps"),
    "vision.clip_vit_l_336": ("image_pixels", "patch_pixels", "depth", "hidden", "ffn", "mlp_matrices", "max_tiles",
                              "overview_tiles"),
    "vision.mllama": ("image_pixels", "patch_pixels", "class_tokens", "max_tiles", "cross_attention_layers",
                      "decoder_layers", "kv_heads", "head_dim"),
    "audio.whisper": ("mel_frames_per_s", "downsample", "window_s"),
    "audio.qwen2_audio": ("mel_frames_per_s", "downsample", "window_s"),
}


def _entry(where: str, key: str, raw: Any) -> SimpleNamespace:
    at = f"{where}: [{key}]"
    if not isinstance(raw, dict):
        raise SpecError(f"{at}: must be a table, got {shown(raw)}")
    for field in (*TEXT, *REQUIRED.get(key, ())):
        if field not in raw:
            raise SpecError(f"{at}: {field} is missing")
    for field, value in raw.items():
        if field in TEXT:
            if not isinstance(value, str) or not value.strip() or (field == "date" and not DATE.fullmatch(value)):
                raise SpecError(f"{at} {field}: must be {'a YYYY-MM-DD date' if field == 'date' else 'text'}, "
                                f"got {shown(value)}")
            continue
        if field not in RANGES:
            raise SpecError(f"{at}: unknown field {field!r}")
        low, high = RANGES[field]
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not number or not low <= value <= high or (field not in NOT_WHOLE and not isinstance(value, int)):
            kind = "a number" if field in NOT_WHOLE else "a whole number"
            raise SpecError(f"{at} {field}: must be {kind} from {shown(low)} to {shown(high)}, got {shown(value)}")
    return SimpleNamespace(**raw)


@functools.cache
def multimodal_specs(path: Path = PATH) -> SimpleNamespace:
    """The encoders, checked: specs.vision.<key> and specs.audio.<key>, each with its fields, name, source and
    date. One SpecError line names the file, the entry and what is wrong."""
    raw, where = read_toml(path), display_path(path)
    out = {}
    for group in ("vision", "audio"):
        entries = raw.get(group)
        if not isinstance(entries, dict) or not entries:
            raise SpecError(f"{where}: [{group}] is missing or empty")
        out[group] = SimpleNamespace(**{k: _entry(where, f"{group}.{k}", v) for k, v in entries.items()})
    for key in REQUIRED:
        group, name = key.split(".")
        if not hasattr(out[group], name):
            raise SpecError(f"{where}: [{key}] is missing")
    unknown = sorted(set(raw) - set(out))
    if unknown:
        raise SpecError(f"{where}: unknown table [{unknown[0]}] (the tables are [vision.*] and [audio.*])")
    return SimpleNamespace(**out)


DENSE_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b")  # GQA, no sliding window
GPUS = ("h100", "h200", "b200", "mi300x", "l40s")
MAX_GPUS = 8

# --- an image-heavy prompt ------------------------------------------------------------------------------------

# (width, height): a phone photo, screenshots from laptop to 4K, a scanned page, a thumbnail
IMAGE_SIZES = ((4032, 3024), (1920, 1080), (1280, 720), (3840, 2160), (2480, 3508), (1024, 768), (640, 480),
               (2560, 1600))
IMAGE_COUNTS = (1, 2, 3, 4, 6, 8)
TEXT_TOKENS = (100, 300, 500, 1000, 2000)
CAPS_IN_TOKENS = (256, 512, 1024)  # operators' caps beside the model's own and the model card's suggested one


def solve_image_tokens(g: dict[str, Value]) -> Solution:
    """Resize each image within [min_pixels, max_pixels] to multiples of p m, count its merged tokens, add the text,
    and multiply the prompt by the KV cache one token takes, 2 L H_kv d_h k."""
    factor = g["patch"] * g["merge"]
    rounded = (round(g["height"] / factor) * factor, round(g["width"] / factor) * factor)
    area = rounded[0] * rounded[1]
    height, width = mm.dynamic_resolution_size(g["height"], g["width"], factor, g["min_pixels"], g["max_pixels"])
    per_image = mm.merged_patch_tokens(height, width, g["patch"], g["merge"])
    prompt = g["text"] + g["images"] * per_image
    kv_token = f.kv_bytes_per_token_gqa(g["layers"], g["kv_heads"], g["head_dim"], g["bytes_per_kv"])
    verdict = "scaled down" if area > g["max_pixels"] else "scaled up" if area < g["min_pixels"] else "kept"
    return dict(answer=prompt * kv_token, unit="B", verdict=verdict, factor=factor, rounded_height=rounded[0],
                rounded_width=rounded[1], rounded_area=area,
                resized_height=height, resized_width=width, per_image=per_image, prompt=prompt, kv_token=kv_token)


def draw_image_tokens(n: int, rng: random.Random) -> Draw | None:
    vit, m = multimodal_specs().vision.qwen2_5_vl, get_model(rng.choice(DENSE_MODELS))
    width, height = rng.choice(IMAGE_SIZES)
    factor = vit.patch_pixels * vit.merge
    caps = (vit.max_pixels, vit.suggested_max_tokens * factor ** 2, *(t * factor ** 2 for t in CAPS_IN_TOKENS))
    exact = (Given("width", width, "count"), Given("height", height, "count"),
             Given("images", rng.choice(IMAGE_COUNTS), "count"), Given("text", rng.choice(TEXT_TOKENS), "tokens"),
             Given("patch", vit.patch_pixels, "count"), Given("merge", vit.merge, "count"),
             Given("min_pixels", vit.min_pixels, "count"), Given("max_pixels", rng.choice(caps), "count"),
             Given("layers", m.layers, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("bytes_per_kv", int(dtype_bytes("bf16")), "bytes"))
    verdict = solve_image_tokens({x.name: x.value for x in exact})["verdict"]
    if (verdict == "scaled down") != (n % 2 == 0):
        return None  # every other problem meets the pixel cap, the rest keep their size
    return Draw(verdict, exact, {"model": m.key, "encoder": "qwen2_5_vl"})


# --- a batch that mixes adapters ------------------------------------------------------------------------------

RANKS = (8, 16, 32, 64)
TARGET_SETS = (("q", "v"), ("q", "k", "v", "o"), f.LORA_TARGETS)  # the original paper's, attention's, all-linear
BATCHES = (8, 16, 32, 64)
DISTINCT = (1, 2, 4, 8, 16, 32, 64)
SEQ_LENS = (2048, 4096, 8192)
HEAVY_SHARE = 0.1  # the adapter reads add at least this much to the step's bytes: a "heavy" mix


def targets_text(targets: tuple[str, ...]) -> str:
    """The targets as a problem states them: "q, k, v, o"."""
    return ", ".join(targets)


def solve_lora_step(g: dict[str, Value]) -> Solution:
    """The adapter's parameters r x sum(d_in + d_out) x L (formulas.lora_adapter_params) and bytes; the step reads
    the base step's bytes plus each distinct adapter once (formulas.lora_step_bytes), over the group's bandwidth."""
    widths = f.lora_matrix_widths(g["hidden"], g["query_heads"], g["kv_heads"], g["head_dim"], g["ffn"])
    targets = [t.strip() for t in str(g["targets"]).split(",")]
    params = f.lora_adapter_params(g["rank"], [widths[t] for t in targets], g["layers"])
    adapter_bytes = f.weight_bytes(params, g["bytes_per_weight"])
    step_bytes = f.lora_step_bytes(g["base_step"], g["distinct"], adapter_bytes)
    extra = step_bytes / g["base_step"] - 1
    return dict(answer=f.memory_time_s(step_bytes, g["gpus"], g["bandwidth"]), unit="s",
                verdict="heavy" if extra >= HEAVY_SHARE else "light", widths={t: widths[t] for t in targets},
                width_sum=sum(sum(widths[t]) for t in targets), params=params, adapter_bytes=adapter_bytes,
                step_bytes=step_bytes, extra=extra, base_s=f.memory_time_s(g["base_step"], g["gpus"], g["bandwidth"]))


def draw_lora_step(n: int, rng: random.Random) -> Draw | None:
    m, gpu = get_model(rng.choice(DENSE_MODELS)), get_gpu(rng.choice(GPUS))
    gpus = scenario(m.key, gpu.key).gpus  # the fewest that hold the model in BF16
    batch, seq_len = rng.choice(BATCHES), rng.choice(SEQ_LENS)
    if gpus > MAX_GPUS or batch > scenario(m.key, gpu.key, gpus=gpus, seq_len=seq_len).max_batch:
        return None
    s = scenario(m.key, gpu.key, gpus=gpus, seq_len=seq_len, batch=batch)
    exact = (Given("layers", m.layers, "count"), Given("hidden", m.hidden_size, "count"),
             Given("query_heads", m.query_heads, "count"), Given("kv_heads", m.kv_heads, "count"),
             Given("head_dim", m.head_dim, "count"), Given("ffn", m.ffn_size, "count"),
             Given("rank", rng.choice(RANKS), "count"), Given("targets", targets_text(rng.choice(TARGET_SETS)), "text"),
             Given("bytes_per_weight", int(dtype_bytes("bf16")), "bytes"), Given("batch", batch, "count"),
             Given("base_step", float(s.decode_bytes), "B"),
             Given("distinct", rng.choice([u for u in DISTINCT if u <= batch]), "count"),
             Given("gpus", gpus, "count"), Given("bandwidth", gpu.bandwidth_bytes_per_s, "B/s"))
    verdict = solve_lora_step({x.name: x.value for x in exact})["verdict"]
    if (verdict == "heavy") != (n % 3 == 2):
        return None  # every third problem's adapters add a tenth or more to the step
    return Draw(verdict, exact, {"model": m.key, "gpu": gpu.key, "seq_len": str(seq_len)})
