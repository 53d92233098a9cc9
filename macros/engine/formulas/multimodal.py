"""Inputs that are not text, as the tokens a language model sees, and what their encoders cost; and the adapters a
LoRA platform homes on each replica.

A vision transformer (ViT) cuts an image into square patches and turns each into a vector. LLaVA-1.5 gives the
language model every patch as a token; Qwen2-VL and Qwen2.5-VL merge each 2 x 2 block of patches into one token and
resize the image, within a pixel budget, to a whole number of merged blocks (dynamic resolution); LLaVA-NeXT and
Llama 3.2 Vision cut a large image into fixed tiles. Audio encoders turn a mel spectrogram's frames into tokens at a
fixed rate, and video is frames times tokens per frame. The encoder is a transformer run once over the patches, so
its cost is the prefill rule, 2 FLOPs per parameter per patch, plus its own attention.

Pure functions in SI base units (see the package docstring); images in pixels, audio and video in seconds."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._array import Number
from .roofline import prefill_flops

__all__ = [
    "dynamic_resolution_size", "merged_patch_tokens", "fixed_grid_tokens", "tiled_image_tokens", "audio_tokens",
    "video_tokens", "vit_params", "patch_merger_params", "vit_attention_flops", "encoder_flops", "embedding_bytes",
    "ttft_with_encoder_s", "affinity_shares", "adapter_replica_load",
]

MAX_ASPECT = 200  # Qwen2-VL's processor refuses an image longer than 200 times its width (or the reverse)


def _positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0 or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number above 0, got {value!r}")


def dynamic_resolution_size(height: int, width: int, factor: int, min_pixels: int,
                            max_pixels: int) -> tuple[int, int]:
    """(height', width'): the image resized so both sides are multiples of `factor` (patch x merge, 28 pixels for
    Qwen2.5-VL) and its area lies within [min_pixels, max_pixels], the aspect ratio kept as nearly as that allows.

    Qwen2-VL's smart_resize: round each side to the nearest multiple; if the area is over the budget, scale both
    sides by sqrt(h w / max_pixels) and round down; if under, scale up by sqrt(min_pixels / (h w)) and round up.
    Python's round, as the reference uses it: a side at exactly half a multiple goes to the even multiple."""
    _positive(height=height, width=width, factor=factor, min_pixels=min_pixels, max_pixels=max_pixels)
    if min_pixels > max_pixels:
        raise ValueError(f"min_pixels {min_pixels} is above max_pixels {max_pixels}")
    if max(height, width) / min(height, width) > MAX_ASPECT:
        raise ValueError(f"an image of {height} x {width} pixels is longer than {MAX_ASPECT} times its width")
    h, w = round(height / factor) * factor, round(width / factor) * factor
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h, w = math.floor(height / beta / factor) * factor, math.floor(width / beta / factor) * factor
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h, w = math.ceil(height * beta / factor) * factor, math.ceil(width * beta / factor) * factor
    return max(factor, h), max(factor, w)


def merged_patch_tokens(height: int, width: int, patch: int, merge: int) -> int:
    """(h / (p m)) (w / (p m)): the tokens an image of h x w pixels (already resized to multiples of p m) gives
    when each m x m block of p-pixel patches becomes one token. The ViT itself runs over m^2 times as many
    patches."""
    _positive(height=height, width=width, patch=patch, merge=merge)
    block = patch * merge
    if height % block or width % block:
        raise ValueError(f"an image of {height} x {width} pixels is not a whole number of {block}-pixel blocks")
    return (height // block) * (width // block)


def fixed_grid_tokens(image_pixels: int, patch: int, extra_tokens: int = 0) -> int:
    """(s / p)^2 + extra: a square input of s pixels cut into p-pixel patches, every patch a token, plus any class
    tokens (LLaVA-1.5: (336 / 14)^2 = 576; a Llama 3.2 Vision tile: (560 / 14)^2 + 1 = 1,601)."""
    _positive(image_pixels=image_pixels, patch=patch)
    if image_pixels % patch:
        raise ValueError(f"{image_pixels} pixels is not a whole number of {patch}-pixel patches")
    return (image_pixels // patch) ** 2 + extra_tokens


def tiled_image_tokens(tiles: int, tokens_per_tile: int, overview_tiles: int = 0) -> int:
    """(tiles + overview) x tokens per tile: a large image cut into fixed tiles, each encoded alone, plus a
    downscaled copy of the whole image where the model adds one (LLaVA-NeXT does; Llama 3.2 Vision does not)."""
    _positive(tiles=tiles, tokens_per_tile=tokens_per_tile)
    return (tiles + overview_tiles) * tokens_per_tile


def audio_tokens(seconds: Number, mel_frames_per_s: Number, downsample: Number) -> Number:
    """s x frames per second / downsampling: the tokens of s seconds of audio (Whisper: 100 mel frames a second,
    halved by a strided convolution, 50 a second; Qwen2-Audio pools once more, 25 a second)."""
    return seconds * mel_frames_per_s / downsample


def video_tokens(seconds: Number, fps: Number, temporal_patch: int, tokens_per_frame: int) -> Number:
    """ceil(s x fps / t) x tokens per frame: a video sampled at fps frames a second, t consecutive frames encoded
    as one grid (Qwen2.5-VL merges pairs), each grid as many tokens as one frame would be."""
    _positive(fps=fps, temporal_patch=temporal_patch, tokens_per_frame=tokens_per_frame)
    return math.ceil(seconds * fps / temporal_patch) * tokens_per_frame


def vit_params(depth: int, hidden: int, ffn: int, mlp_matrices: int) -> int:
    """L (4 d^2 + k d d_ff): a ViT's transformer layers, attention's query, key, value and output projections and
    the MLP's k matrices (2 plain, 3 gated). Biases, norms and the patch embedding are left out: under 1%."""
    return depth * (4 * hidden * hidden + mlp_matrices * hidden * ffn)


def patch_merger_params(hidden: int, merge: int, out_hidden: int) -> int:
    """(m^2 d)^2 + m^2 d d_out: Qwen2-VL's merger, an MLP from m x m concatenated patch vectors to one token of the
    language model's width d_out. It runs once per merged token, not per patch."""
    wide = merge * merge * hidden
    return wide * wide + wide * out_hidden


def vit_attention_flops(patches: Number, hidden: int, full_layers: int, window_layers: int = 0,
                        window_patches: int = 0, groups: int = 1) -> Number:
    """n_g x 4 d (L_full P^2 + L_win P min(w, P)): bidirectional attention in a ViT. Every patch attends to every
    patch of its group (P^2 pairs, not a causal triangle) in full layers, and to the w patches of its window in
    windowed ones; each pair costs 2 d multiply-adds, q.k and the weighted v. A video's groups (its frame pairs)
    attend within themselves."""
    window = min(window_patches, patches) if window_layers else 0
    return groups * 4 * hidden * (full_layers * patches * patches + window_layers * patches * window)


def encoder_flops(params: Number, patches: Number, attention_flops: Number = 0, merger_params: Number = 0,
                  tokens: Number = 0) -> Number:
    """2 N P + attention + 2 N_merge T: an encoder is a prefill over its patches (formulas.prefill_flops), and a
    merger, where there is one, runs once per merged token."""
    return prefill_flops(params, patches, attention_flops) + 2 * merger_params * tokens


def embedding_bytes(tokens: Number, hidden: int, bytes_per_value: float) -> Number:
    """T d w: what an encoder hands to the language model, one vector of its width per token; what an embedding
    cache holds for an image and what a separate encoder pool sends to prefill. A KV cache holds 2 L H_kv d_h k per
    token instead: tens of times more."""
    return tokens * hidden * bytes_per_value


def ttft_with_encoder_s(encoder_s: Number, prefill_s: Number, transfer_s: Number = 0) -> Number:
    """encoder + transfer + prefill: the prefill cannot pass an image's positions before its embeddings exist, so
    one request's encoder time (and, from a separate encoder pool, the embeddings' transfer) adds to its TTFT."""
    return encoder_s + transfer_s + prefill_s


def affinity_shares(shares: Sequence[float], replicas: int) -> list[tuple[float, list[float]]]:
    """Per replica r: (its share of the traffic, the shares of its own adapters, renormalised to 1). Affinity
    routing homes adapter i on one replica; a hash spreads the popularity ranks evenly, and homing rank i on
    replica i mod R is its deterministic stand-in. A replica's batch then draws only from its own adapters."""
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {replicas!r}")
    out = []
    for r in range(replicas):
        mine = list(shares[r::replicas])
        total = sum(mine)
        out.append((total, [p / total for p in mine] if total else []))
    return out


def adapter_replica_load(share: Number, replicas: Number) -> Number:
    """p x R: the replicas' worth of load one adapter carries, with a share p of a fleet of R replicas' traffic. At
    1 or more its traffic alone keeps a replica busy, the point where a merged, dedicated deployment stops idling."""
    return share * replicas
