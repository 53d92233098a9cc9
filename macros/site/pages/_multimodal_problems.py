"""Chapter 9's worked problems (docs/guide/multimodal.md, "Problems"), each on other models or GPUs than the
chapter's examples: LLaVA-NeXT on an L4, Llama 3.2 Vision's cross-attention cache, an hour of audio on H200s, a
minute of video on a B200, an encoder pool on H200s; adapters on Llama-3.1-8B, a mixed batch on one H100, a cold
adapter on an MI300X, affinity over sixteen replicas, merging under a flatter popularity. Values in SI units."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.formulas import multimodal as mm
from ...engine.model.adapters import adapter
from ...engine.model.scenario import (
    DEFAULT_EFFICIENCY,
    get_gpu,
    get_model,
    model_kv_bytes_per_seq,
    prefill_floor_s,
    scenario,
)
from ...engine.problems.coldstart import weight_sources
from ...engine.problems.multimodal import multimodal_specs
from ...engine.specs import catalog
from ...engine.workloads import workloads
from ...text import fmt
from ..assumptions import assume
from .design_lora_platform import inputs as lora_inputs
from .multimodal import IMAGE, MODEL, vit_image

SMALL, L4 = "llama-3.1-8b", "l4"  # LLaVA-NeXT's 8B language model is Llama 3's 8B geometry
PROMPT_TEXT, OUTPUT_TEXT = 200, 200  # the problems' text around the media
AUDIO_MODEL, AUDIO_GPU, AUDIO_GPUS = "llama-3.1-70b", "h200", 4
VIDEO_GPU = "b200"
POOL_GPU, POOL_IMAGES_PER_S = "h200", 200  # images a second reaching the encoder pool
MIX_GPU, MIX_BATCH, MIX_RANK = "h100", 64, 16
COLD_MODEL, COLD_GPU = "qwen2.5-72b", "mi300x"
ROUTING_REPLICAS = 16


def context_words(tokens: float, context: int) -> str:
    """P3: whether Whisper's rate fits the model's context."""
    return "it fits" if tokens <= context else "it does not fit, which is one reason audio models pool"


def tier_words(tiers: list[SimpleNamespace], target: float) -> str:
    """P8: each tier's load, those within the TTFT target together, each late one with its delay."""
    fast = [f"{t.name} {fmt.seconds(t.load_s)}" for t in tiers if t.load_s <= target]
    late = [f"from {t.name} {fmt.seconds(t.load_s)}, {fmt.seconds(t.load_s - target)} over the "
            f"{fmt.ms(target)} target" for t in tiers if t.load_s > target]
    return "; ".join(([f"from {', '.join(fast)}: in time"] if fast else []) + late)


def _llava_next() -> SimpleNamespace:
    """P1: LLaVA-NeXT's tiles against LLaVA-1.5's one square, on one L4."""
    s, clip = scenario(SMALL, L4, gpus=1), multimodal_specs().vision.clip_vit_l_336
    one = mm.fixed_grid_tokens(clip.image_pixels, clip.patch_pixels)

    def case(image_tokens: int) -> SimpleNamespace:
        prompt = image_tokens + PROMPT_TEXT
        kv = model_kv_bytes_per_seq(s.model_spec, prompt)
        return SimpleNamespace(image_tokens=image_tokens, prompt=prompt, kv=kv,
                               fits=int(f.max_batch(s.kv_budget_bytes, kv)),
                               prefill_s=prefill_floor_s(s.model_spec, s.gpu_spec, 1, "bf16", prompt))
    tiled, single = case(mm.tiled_image_tokens(clip.max_tiles, one, clip.overview_tiles)), case(one)
    return SimpleNamespace(s=s, next=tiled, one=single, text=PROMPT_TEXT, growth=tiled.prompt / single.prompt)


def _cross_attention() -> SimpleNamespace:
    """P2: Llama 3.2 Vision's image in its cross-attention layers, against the same tokens in every layer."""
    ml = multimodal_specs().vision.mllama
    vision = mm.tiled_image_tokens(ml.max_tiles, mm.fixed_grid_tokens(ml.image_pixels, ml.patch_pixels,
                                                                       ml.class_tokens))
    self_layers = ml.decoder_layers - ml.cross_attention_layers
    per = {n: f.kv_bytes_per_token_gqa(n, ml.kv_heads, ml.head_dim, 2)
           for n in (ml.cross_attention_layers, ml.decoder_layers, self_layers)}
    text = PROMPT_TEXT + OUTPUT_TEXT
    cross, every = per[ml.cross_attention_layers] * vision, per[ml.decoder_layers] * vision
    return SimpleNamespace(ml=ml, vision=vision, self_layers=self_layers, cross=cross, every=every, text=text,
                           text_kv=per[self_layers] * text, saving=every / cross,
                           image_most=assume(cross > per[self_layers] * text, "image against text KV",
                                             "the text's cache now outweighs the image's"))


def _audio() -> SimpleNamespace:
    """P3: an hour of audio at Qwen2-Audio's rate into Llama-3.1-70B on four H200s."""
    a, wh = multimodal_specs().audio.qwen2_audio, multimodal_specs().audio.whisper
    tokens = int(mm.audio_tokens(3600, a.mel_frames_per_s, a.downsample))
    s = scenario(AUDIO_MODEL, AUDIO_GPU, gpus=AUDIO_GPUS, seq_len=tokens)
    whisper = mm.audio_tokens(3600, wh.mel_frames_per_s, wh.downsample)
    return SimpleNamespace(s=s, tokens=tokens, whisper=whisper, windows=math.ceil(3600 / a.window_s),
                           kv=s.kv_bytes_per_seq, whisper_words=context_words(whisper, s.model_spec.max_context),
                           planned_s=f.planned_time_s(s.prefill_s, DEFAULT_EFFICIENCY))


def _video() -> SimpleNamespace:
    """P4: a minute of video through Qwen2.5-VL's encoder on one B200, into the chapter's language model."""
    v, gpu = multimodal_specs().vision.qwen2_5_vl, get_gpu(VIDEO_GPU)
    frame = vit_image(448, 448)
    groups = math.ceil(60 * v.video_fps / v.temporal_patch)
    clip = vit_image(448, 448, groups=groups)
    image = vit_image(*IMAGE)
    return SimpleNamespace(gpu=gpu, frames=int(60 * v.video_fps), groups=groups, frame=frame, clip=clip,
                           encoder_s=f.compute_time_s(clip.flops, 1, gpu.bf16_flops),
                           kv=model_kv_bytes_per_seq(get_model(MODEL), clip.tokens), per_image=image.tokens,
                           image_equivalents=clip.tokens / image.tokens)


def _encoder_pool() -> SimpleNamespace:
    """P5: the GPUs that encode a stream of Full HD images, against the GPUs that prefill their tokens."""
    gpu, img, lm = get_gpu(POOL_GPU), vit_image(*IMAGE), get_model(MODEL)
    per_gpu = DEFAULT_EFFICIENCY * gpu.bf16_flops / img.flops
    lm_gpus = POOL_IMAGES_PER_S * f.prefill_flops(lm.params, img.tokens) / (DEFAULT_EFFICIENCY * gpu.bf16_flops)
    embed = mm.embedding_bytes(img.tokens, lm.hidden_size, 2)
    gpus, nic = math.ceil(POOL_IMAGES_PER_S / per_gpu), catalog().claims["nic-bandwidth"].low
    return SimpleNamespace(gpu=gpu, rate=POOL_IMAGES_PER_S, img=img, per_gpu=per_gpu, gpus=gpus, lm_gpus=lm_gpus,
                           embed=embed, embed_rate=POOL_IMAGES_PER_S * embed, nic=nic,
                           pool_small=assume(gpus < lm_gpus / 4, f"{gpus} encoder GPUs, {lm_gpus:.0f} for prefill",
                                             "the encoder pool is no longer a small side of the deployment"),
                           one_link=assume(POOL_IMAGES_PER_S * embed < nic, "embedding rate against one link",
                                           "the embeddings need more than one link"))


def _adapter_sizes() -> SimpleNamespace:
    """L1: the smallest usual adapter and the largest, on Llama-3.1-8B, and the slots of the design's slice."""
    i = lora_inputs()
    small, large = adapter(SMALL, 8, ("q", "v")), adapter(SMALL, i["rank_cap"], tuple(i["targets"]))
    slots = {k: int(f.max_batch(i["adapter_slice_bytes"], a.bytes)) for k, a in (("small", small), ("large", large))}
    return SimpleNamespace(small=small, large=large, slice=i["adapter_slice_bytes"], slots=slots,
                           ratio=large.bytes / small.bytes)


def _mixing() -> SimpleNamespace:
    """L2: a batch of 64 on one H100, one adapter against 64 distinct ones."""
    s = scenario(SMALL, MIX_GPU, gpus=1, batch=MIX_BATCH)
    a = adapter(SMALL, MIX_RANK, f.LORA_TARGETS)
    floor = {u: f.memory_time_s(f.lora_step_bytes(s.decode_bytes, u, a.bytes), 1, s.gpu_bandwidth_bytes_per_s)
             for u in (1, MIX_BATCH)}
    return SimpleNamespace(s=s, a=a, one_s=floor[1], all_s=floor[MIX_BATCH], growth=floor[MIX_BATCH] / floor[1] - 1)


def _cold() -> SimpleNamespace:
    """L3: a rank-64 all-linear adapter for Qwen2.5-72B loading onto one MI300X, tier by tier."""
    a, pcie, target = adapter(COLD_MODEL, lora_inputs()["rank_cap"]), workloads()["pcie_bytes_per_s"], \
        workloads()["ttft_target_s"]
    tiers = [SimpleNamespace(name=name, rate=min(rate, pcie),
                             load_s=f.transfer_time_s(a.bytes, f.weight_load_bytes_per_s(rate, pcie, 1)))
             for name, rate in sorted(weight_sources().items(), key=lambda kv: -kv[1])]
    host = next(t for t in tiers if t.name == "host memory")
    return SimpleNamespace(a=a, gpu=get_gpu(COLD_GPU), model=get_model(COLD_MODEL), tiers=tiers, pcie=pcie,
                           words=tier_words(tiers, target),
                           host_in_time=assume(host.load_s <= target, f"host memory {host.load_s:.4f} s",
                                               "host memory no longer loads in time"))


def _routing() -> SimpleNamespace:
    """L4: the design's mix over sixteen replicas of Llama-3.1-8B: distinct adapters per step and slot hits."""
    i = lora_inputs()
    shares = f.zipf_shares(i["adapters"], i["popularity_exponent"])
    homed = mm.affinity_shares(shares, ROUTING_REPLICAS)
    a = adapter(SMALL, i["rank"], tuple(i["targets"]))
    slots = int(f.max_batch(i["adapter_slice_bytes"], a.bytes))
    distinct = (f.expected_distinct(shares, MIX_BATCH),
                sum(f.expected_distinct(m, MIX_BATCH) for _, m in homed) / len(homed))
    hits = (f.popular_set_hit_rate(shares, slots), sum(load * f.popular_set_hit_rate(m, slots) for load, m in homed))
    return SimpleNamespace(replicas=ROUTING_REPLICAS, adapters=i["adapters"], exponent=i["popularity_exponent"],
                           batch=MIX_BATCH, slots=slots, a=a, distinct_random=distinct[0],
                           distinct_affinity=distinct[1],
                           hit_random=hits[0], hit_affinity=hits[1],
                           # "the hit rate is what affinity buys; the step's reads shrink less"
                           mostly_hits=assume(hits[1] / hits[0] - 1 > 1 - distinct[1] / distinct[0],
                                              "relative gain in hits against the drop in distinct adapters",
                                              "affinity now cuts the reads more than it raises the hits"))


def _merge() -> SimpleNamespace:
    """L5: the most popular adapter under the design's flatter popularity, against fleets of several sizes."""
    i = lora_inputs()
    top = f.zipf_shares(i["adapters"], i["flat_popularity_exponent"])[0]
    fleets = [SimpleNamespace(replicas=r, load=mm.adapter_replica_load(top, r)) for r in (10, 40, 100)]
    smallest = math.ceil(1 / top)  # the smallest fleet in which the top adapter's own load fills a replica
    return SimpleNamespace(exponent=i["flat_popularity_exponent"], adapters=i["adapters"], top=top, fleets=fleets,
                           smallest=smallest)


def problems() -> SimpleNamespace:
    return SimpleNamespace(llava=_llava_next(), cross=_cross_attention(), audio=_audio(), video=_video(),
                           pool=_encoder_pool(), sizes=_adapter_sizes(), mix=_mixing(), cold=_cold(),
                           routing=_routing(), merge=_merge())
