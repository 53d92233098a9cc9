"""Chapter 9, multimodal inputs and many adapters (docs/guide/multimodal.md): images, audio and video as tokens,
the encoder's cost and where it runs, what image tokens do to prefill, the KV cache and TTFT, the caches keyed on
an image's hash; then LoRA adapters on the anchor: their size, the reads a mixed batch adds, cold loads, routing
and merging. The encoders' data is macros/data/topics/multimodal.toml (read through the problems' loader); the
LoRA mix is the LoRA platform design's. Values in SI units; the page formats them."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.formulas import multimodal as mm
from ...engine.model.adapters import adapter
from ...engine.model.scenario import (
    ALLREDUCE_LATENCY_CLAIM,
    DEFAULT_EFFICIENCY,
    anchor,
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
from ..markdown import listed
from .design_lora_platform import inputs as lora_inputs

MODEL, GPU, GPUS = "qwen2.5-72b", "h100", 4  # Qwen2.5-VL-72B's language model on the anchor's group
IMAGE = (1080, 1920)  # height, width: a Full HD screenshot
TEXT_TOKENS, IMAGES, FOLLOW_UP_TOKENS = 500, 4, 100  # the worked request, and a follow-up question about it
IMAGE_COUNTS = (0, 1, 2, 4, 8)  # the table and the drawing
AUDIO_S, VIDEO_S, VIDEO_FRAME = 3600, 60, (448, 448)  # an hour-long meeting; a minute of video, frames in pixels
LORA_DISTINCT = (1, 8, 32, 64)  # distinct adapters in one decode step
AFFINITY_REPLICAS = 8
MERGE_FLEETS = (8, 40)  # replicas: a small fleet and a large one, for the merge decision


def vit_image(height: int, width: int, cap: int | None = None, groups: int = 1) -> SimpleNamespace:
    """One image (or `groups` frame pairs of that size) through Qwen2.5-VL's encoder: its resized size, tokens,
    patches and FLOPs (the layers, their full and windowed attention, the merger)."""
    v = multimodal_specs().vision.qwen2_5_vl
    factor = v.patch_pixels * v.merge
    h, w = mm.dynamic_resolution_size(height, width, factor, v.min_pixels, v.max_pixels if cap is None else cap)
    tokens = mm.merged_patch_tokens(h, w, v.patch_pixels, v.merge)
    patches = tokens * v.merge ** 2
    body = mm.vit_params(v.depth, v.hidden, v.ffn, v.mlp_matrices)
    merger = mm.patch_merger_params(v.hidden, v.merge, v.out_hidden)
    attention = mm.vit_attention_flops(patches, v.hidden, v.full_attention_layers,
                                       v.depth - v.full_attention_layers, (v.window_pixels // v.patch_pixels) ** 2,
                                       groups)
    flops = mm.encoder_flops(body, groups * patches, attention, merger, groups * tokens)
    return SimpleNamespace(height=h, width=w, tokens=tokens * groups, patches=patches * groups, body_params=body,
                           merger_params=merger, linear_flops=f.prefill_flops(body, groups * patches),
                           attention_flops=attention, flops=flops)


def request(images: int, per_image: SimpleNamespace, s) -> SimpleNamespace:
    """The worked request with `images` images on scenario s: its prompt, KV cache, encoder and prefill floors,
    the encoder spread data-parallel over the group (each GPU encodes whole images)."""
    tokens = TEXT_TOKENS + images * per_image.tokens
    encoder_s = math.ceil(images / s.gpus) * f.compute_time_s(per_image.flops, 1, s.gpu_spec.bf16_flops)
    prefill_s = prefill_floor_s(s.model_spec, s.gpu_spec, s.gpus, s.weights_dtype, tokens)
    return SimpleNamespace(images=images, tokens=tokens, image_tokens=images * per_image.tokens,
                           kv=model_kv_bytes_per_seq(s.model_spec, tokens), encoder_s=encoder_s, prefill_s=prefill_s,
                           ttft_s=mm.ttft_with_encoder_s(encoder_s, prefill_s))


def within(value: float, target: float, what: str) -> str:
    """"within the 500 ms target, 28.1 ms to spare" or "over the 500 ms target by 180 ms"."""
    if value <= target:
        return f"within the {fmt.ms(target)} {what}, {fmt.ms(target - value)} to spare"
    return f"over the {fmt.ms(target)} {what} by {fmt.ms(value - target)}"


def placement_words(tp_one: float, dp_one: float, tp_many: float, dp_many: float, images: int) -> str:
    """9.2: which encoder placement is faster, for one image and for the worked request's images."""
    one = (f"sharding is faster ({fmt.ms(tp_one)} against {fmt.ms(dp_one)} on one GPU)" if tp_one < dp_one else
           f"one whole GPU is faster ({fmt.ms(dp_one)} against {fmt.ms(tp_one)} sharded)")
    many = (f"one image per GPU is faster ({fmt.ms(dp_many)} against {fmt.ms(tp_many)} sharded)" if dp_many < tp_many
            else f"sharding is still faster ({fmt.ms(tp_many)} against {fmt.ms(dp_many)} with one image per GPU)")
    return f"For one image, {one}; for {images} images, {many}"


def images_within(target: float, per_image: SimpleNamespace, s, limit: int = 64) -> int:
    """The most images (of the worked size, with the worked text) whose TTFT floor stays within `target`."""
    return max((n for n in range(limit + 1) if request(n, per_image, s).ttft_s <= target), default=0)


def load_words(tiers: list[SimpleNamespace], target: float, rank: int) -> str:
    """9.7: the tiers a rank-`rank` adapter loads from within the TTFT target, and the slowest one's time."""
    fast = [t.name for t in tiers if t.cap_s <= target]
    slow = [t for t in tiers if t.cap_s > target]
    out = (f"a rank-{rank} adapter loads in time from {listed(fast)}" if fast else
           f"a rank-{rank} adapter loads in time from none of these tiers")
    if slow:
        out += f"; from {slow[-1].name} it takes {fmt.seconds(slow[-1].cap_s)}, a miss the user sees"
    return out


def merge_words(fleets: list[SimpleNamespace]) -> str:
    """9.7: for each fleet, the replicas' worth of load the most popular adapter carries, and what that says."""
    return "; ".join(f"on {r.replicas} replicas it is {fmt.num(r.load)} replicas' worth, " + (
        "enough to keep a merged replica busy: merge it" if r.load >= 1 else
        "less than one: a merged replica would idle, so keep it in the pool") for r in fleets)


def encoders() -> SimpleNamespace:
    """9.1: one input as tokens, encoder by encoder."""
    spec = multimodal_specs()
    v, clip, ml = spec.vision.qwen2_5_vl, spec.vision.clip_vit_l_336, spec.vision.mllama
    llava = mm.fixed_grid_tokens(clip.image_pixels, clip.patch_pixels)
    tile = mm.fixed_grid_tokens(ml.image_pixels, ml.patch_pixels, ml.class_tokens)
    frame = vit_image(*VIDEO_FRAME)
    return SimpleNamespace(
        qwen=v, clip=clip, mllama=ml, whisper=spec.audio.whisper, qwen_audio=spec.audio.qwen2_audio,
        sources=[*vars(spec.vision).values(), *vars(spec.audio).values()], factor=v.patch_pixels * v.merge,
        max_tokens=v.max_pixels // (v.patch_pixels * v.merge) ** 2, llava=llava,
        llava_next=mm.tiled_image_tokens(clip.max_tiles, llava, clip.overview_tiles),
        llava_next_pixels=clip.image_pixels * math.isqrt(clip.max_tiles), mllama_tile=tile,
        mllama_tokens=mm.tiled_image_tokens(ml.max_tiles, tile), mllama_pixels=ml.image_pixels,
        whisper_rate=mm.audio_tokens(1, spec.audio.whisper.mel_frames_per_s, spec.audio.whisper.downsample),
        whisper_window=mm.audio_tokens(spec.audio.whisper.window_s, spec.audio.whisper.mel_frames_per_s,
                                       spec.audio.whisper.downsample),
        audio_rate=mm.audio_tokens(1, spec.audio.qwen2_audio.mel_frames_per_s, spec.audio.qwen2_audio.downsample),
        audio_s=AUDIO_S, audio_tokens=mm.audio_tokens(AUDIO_S, spec.audio.qwen2_audio.mel_frames_per_s,
                                                       spec.audio.qwen2_audio.downsample),
        video_s=VIDEO_S, video_frame=VIDEO_FRAME, frame_tokens=frame.tokens, four_k=vit_image(2160, 3840).tokens,
        four_k_ratio=vit_image(2160, 3840).tokens / vit_image(*IMAGE).tokens,
        window_patches=(v.window_pixels // v.patch_pixels) ** 2,
        video_tokens=mm.video_tokens(VIDEO_S, v.video_fps, v.temporal_patch, frame.tokens),
    )


def ttft_rows() -> SimpleNamespace:
    """9.3's request with 0 to 8 images, for the drawing (diagrams/multimodal_ttft.py), which reads no claim."""
    s, img = scenario(MODEL, GPU, gpus=GPUS), vit_image(*IMAGE)
    return SimpleNamespace(s=s, img=img, rows=[request(n, img, s) for n in IMAGE_COUNTS],
                           target=workloads()["ttft_target_s"], text_tokens=TEXT_TOKENS, image_height=IMAGE[0],
                           image_width=IMAGE[1])


def multimodal() -> SimpleNamespace:
    """9.2 to 9.4 on Qwen2.5-VL-72B: the encoder's cost, the worked request, cross-attention, the caches."""
    s, w = scenario(MODEL, GPU, gpus=GPUS), workloads()
    v, ml = multimodal_specs().vision.qwen2_5_vl, multimodal_specs().vision.mllama
    img, capped = vit_image(*IMAGE), vit_image(*IMAGE, cap=v.suggested_max_tokens * (v.patch_pixels * v.merge) ** 2)
    gpu, target = s.gpu_spec, w["ttft_target_s"]
    lm_flops = f.prefill_flops(s.active_params, img.tokens)
    link, latency = gpu.interconnect_bytes_per_s, catalog().claims[ALLREDUCE_LATENCY_CLAIM].low
    one_gpu_s = f.compute_time_s(img.flops, 1, gpu.bf16_flops)
    tp = [f.compute_time_s(n * img.flops, s.gpus, gpu.bf16_flops)
          + f.tp_allreduce_s(v.depth, s.gpus, n * img.patches, v.hidden, link, latency) for n in (1, IMAGES)]
    worked, worked_capped = request(IMAGES, img, s), request(IMAGES, capped, s)
    embed = mm.embedding_bytes(img.tokens, s.model_spec.hidden_size, 2)
    image_kv = model_kv_bytes_per_seq(s.model_spec, img.tokens)
    nic = catalog().claims["nic-bandwidth"].low
    vision_tokens = mm.tiled_image_tokens(ml.max_tiles, mm.fixed_grid_tokens(ml.image_pixels, ml.patch_pixels,
                                                                              ml.class_tokens))
    cross_token = f.kv_bytes_per_token_gqa(ml.cross_attention_layers, ml.kv_heads, ml.head_dim, 2)
    first_turn = TEXT_TOKENS + img.tokens
    return SimpleNamespace(
        s=s, v=v, img=img, capped=capped, target=target, efficiency=DEFAULT_EFFICIENCY, images=IMAGES,
        text_tokens=TEXT_TOKENS, image_height=IMAGE[0], image_width=IMAGE[1],
        # 9.2 the encoder's cost and where it runs
        encoder_one_gpu_s=one_gpu_s, lm_image_flops=lm_flops, encoder_share=img.flops / lm_flops,
        small_lm=get_model("llama-3.1-8b"),
        encoder_share_small=img.flops / f.prefill_flops(get_model("llama-3.1-8b").params, img.tokens),
        tp_one_s=tp[0], tp_many_s=tp[1], dp_one_s=one_gpu_s, dp_many_s=math.ceil(IMAGES / s.gpus) * one_gpu_s,
        tp_comm_one_s=f.tp_allreduce_s(v.depth, s.gpus, img.patches, v.hidden, link, latency),
        placement_words=placement_words(tp[0], one_gpu_s, tp[1], math.ceil(IMAGES / s.gpus) * one_gpu_s, IMAGES),
        encoder_params=img.body_params + img.merger_params, prompt_growth=worked.tokens / TEXT_TOKENS,
        encoder_copy_share=2 * (img.body_params + img.merger_params) / gpu.memory_bytes,
        # "next to the language model it is small"; "for a small model a real share"
        encoder_small=assume(img.flops / lm_flops < 0.1, f"encoder {fmt.pct(img.flops / lm_flops)} of the prefill",
                             "the encoder is no longer small next to the language model's prefill"),
        encoder_real_small_lm=assume(img.flops / f.prefill_flops(get_model("llama-3.1-8b").params, img.tokens) > 0.2,
                                     "encoder share behind the 8B model", "the encoder is small behind the 8B too"),
        # the follow-up's answer: sharding suits one image, whole images per GPU suit many
        placement_split=assume(tp[0] < one_gpu_s and math.ceil(IMAGES / s.gpus) * one_gpu_s < tp[1],
                               f"TP {fmt.ms(tp[0])} / {fmt.ms(tp[1])}, DP {fmt.ms(one_gpu_s)}",
                               "one placement now wins both cases: rewrite the follow-up's answer"),
        embed_bytes=embed, image_kv=image_kv, kv_over_embed=image_kv / embed, nic=nic,
        embed_nic_s=f.transfer_time_s(embed, nic), image_kv_nic_s=f.transfer_time_s(image_kv, nic),
        # 9.3 the worked request
        worked=worked, worked_capped=worked_capped, rows=ttft_rows().rows,
        kv_share=worked.kv / s.kv_budget_bytes, fit_requests=int(f.max_batch(s.kv_budget_bytes, worked.kv)),
        worked_words=within(worked.ttft_s, target, "target"),
        planned_words=within(f.planned_time_s(worked.ttft_s, DEFAULT_EFFICIENCY), target, "target"),
        capped_words=within(f.planned_time_s(worked_capped.ttft_s, DEFAULT_EFFICIENCY), target, "target"),
        planned_ttft_s=f.planned_time_s(worked.ttft_s, DEFAULT_EFFICIENCY),
        planned_over=assume(f.planned_time_s(worked.ttft_s, DEFAULT_EFFICIENCY) > target,
                            f"planned TTFT {fmt.ms(f.planned_time_s(worked.ttft_s, DEFAULT_EFFICIENCY))}",
                            "the planned request now meets the target: drop 'needs one of'"),
        planned_capped_s=f.planned_time_s(worked_capped.ttft_s, DEFAULT_EFFICIENCY),
        images_within=images_within(target, img, s),
        # Llama 3.2 Vision: the image's K and V in the cross-attention layers only
        vision_tokens=vision_tokens, cross_token=cross_token, cross_kv=cross_token * vision_tokens,
        self_kv=f.kv_bytes_per_token_gqa(ml.decoder_layers, ml.kv_heads, ml.head_dim, 2) * vision_tokens,
        # 9.4 caches keyed on the image
        follow_up=FOLLOW_UP_TOKENS, first_turn=first_turn,
        uncached_turn_s=mm.ttft_with_encoder_s(one_gpu_s, prefill_floor_s(s.model_spec, gpu, s.gpus, "bf16",
                                                                          first_turn + FOLLOW_UP_TOKENS)),
        cached_turn_s=prefill_floor_s(s.model_spec, gpu, s.gpus, "bf16", FOLLOW_UP_TOKENS, first_turn),
    )


def lora() -> SimpleNamespace:
    """9.5 to 9.7 on the anchor: adapter sizes, the step with many adapters, slots, loads, routing, merging."""
    i, w = lora_inputs(), workloads()
    s = anchor(batch=w["batch"])
    targets = tuple(i["targets"])
    a, a_cap, a_small = (adapter(s.model, i["rank"], targets), adapter(s.model, i["rank_cap"], targets),
                         adapter(s.model, 8, ("q", "v")))
    m = s.model_spec
    widths = f.lora_matrix_widths(m.hidden_size, m.query_heads, m.kv_heads, m.head_dim, m.ffn_size)
    steps = [SimpleNamespace(distinct=u, extra=u * a.bytes, step_s=f.memory_time_s(
        f.lora_step_bytes(s.decode_bytes, u, a.bytes), s.gpus, s.gpu_bandwidth_bytes_per_s),
        growth=u * a.bytes / s.decode_bytes) for u in LORA_DISTINCT]
    shares = f.zipf_shares(i["adapters"], i["popularity_exponent"])
    homed = mm.affinity_shares(shares, AFFINITY_REPLICAS)
    slots = int(f.max_batch(i["adapter_slice_bytes"], a.bytes))
    pcie, sources = w["pcie_bytes_per_s"], weight_sources()
    distinct_random = f.expected_distinct(shares, s.batch)
    distinct_affinity = sum(f.expected_distinct(mine, s.batch) for _, mine in homed) / AFFINITY_REPLICAS
    hit_random = f.popular_set_hit_rate(shares, slots)
    hit_affinity = sum(load * f.popular_set_hit_rate(mine, slots) for load, mine in homed)
    tiers = [SimpleNamespace(name=name, rate=rate, path=f.weight_load_bytes_per_s(rate, pcie, s.gpus),
                             rank_s=f.transfer_time_s(
        a.bytes, f.weight_load_bytes_per_s(rate, pcie, s.gpus)), cap_s=f.transfer_time_s(
        a_cap.bytes, f.weight_load_bytes_per_s(rate, pcie, s.gpus))) for name, rate in sorted(
        sources.items(), key=lambda kv: -kv[1])]
    fleets = [SimpleNamespace(replicas=r, load=mm.adapter_replica_load(shares[0], r)) for r in MERGE_FLEETS]
    return SimpleNamespace(
        s=s, i=i, a=a, a_cap=a_cap, a_small=a_small, targets=", ".join(targets), widths=widths,
        width_sum=sum(sum(widths[t]) for t in targets), flop_share=a.flops_per_token / (2 * m.params), steps=steps,
        batch=s.batch, distinct_random=distinct_random, replicas=AFFINITY_REPLICAS, distinct_affinity=distinct_affinity,
        slots=slots, slots_cap=int(f.max_batch(i["adapter_slice_bytes"], a_cap.bytes)),
        hit_random=hit_random, hit_affinity=hit_affinity, pcie=pcie, tiers=tiers, target=w["ttft_target_s"],
        load_words=load_words(tiers, w["ttft_target_s"], a_cap.rank),
        # "Its FLOPs are negligible"; "more than the slots"; affinity raises the hit rate and lowers the reads
        flops_negligible=assume(a.flops_per_token / (2 * m.params) < 0.01,
                                f"adapter FLOPs {fmt.pct(a.flops_per_token / (2 * m.params))} of the base's",
                                "the adapter's FLOPs are no longer negligible: say what share they are"),
        over_slots=assume(distinct_random > slots, f"{fmt.num(distinct_random)} distinct adapters, {slots} slots",
                          "a batch now fits in the slots: drop the scheduler's holding back"),
        affinity_helps=assume(hit_affinity > hit_random and distinct_affinity < distinct_random,
                              f"hits {fmt.pct(hit_random)} to {fmt.pct(hit_affinity)}, distinct "
                              f"{fmt.num(distinct_random)} to {fmt.num(distinct_affinity)}",
                              "affinity no longer raises hits or lowers the reads: say which"),
        top_share=shares[0], fleets=fleets, merged_read_share=a.bytes / s.decode_bytes,
        merge_words=merge_words(fleets),
    )


def model() -> SimpleNamespace:
    from ._multimodal_problems import problems  # it builds on vit_image() and within() above

    return SimpleNamespace(e=encoders(), m=multimodal(), l=lora(), p=problems(), gpu=get_gpu(GPU))
