"""Chapter 9's formulas (macros/engine/formulas/multimodal.py) against values derived by hand in each test: an image
resized and merged into tokens the way Qwen2.5-VL's processor does it, fixed and tiled grids, audio and video rates,
a ViT's parameters and FLOPs, the embeddings an encoder hands over, and adapters homed by affinity. Each expected
value is worked out in the comment above it, never taken from the function under test."""

from __future__ import annotations

import pytest

from macros.engine.formulas import multimodal as mm

QWEN_MAX, QWEN_MIN = 16384 * 28 * 28, 56 * 56  # 12,845,056 and 3,136 pixels


def test_a_full_hd_screenshot_keeps_its_size_within_the_default_budget():
    # 1,080 / 28 = 38.57 -> 39 blocks = 1,092 pixels; 1,920 / 28 = 68.57 -> 69 blocks = 1,932 pixels;
    # 1,092 x 1,932 = 2,109,744 pixels, between 3,136 and 12,845,056: kept
    assert mm.dynamic_resolution_size(1080, 1920, 28, QWEN_MIN, QWEN_MAX) == (1092, 1932)
    # 39 x 69 = 2,691 tokens; the ViT runs 4 x 2,691 = 10,764 patches
    assert mm.merged_patch_tokens(1092, 1932, 14, 2) == 2691


def test_a_pixel_cap_scales_both_sides_down_and_rounds_down():
    # Capped at 1,280 tokens, 1,280 x 784 = 1,003,520 pixels. The rounded area 2,109,744 is over, so
    # beta = sqrt(1,080 x 1,920 / 1,003,520) = sqrt(2.066327) = 1.437473; 1,080 / 1.437473 / 28 = 26.83 -> 26 blocks
    # = 728 pixels; 1,920 / 1.437473 / 28 = 47.70 -> 47 blocks = 1,316 pixels: 26 x 47 = 1,222 tokens
    assert mm.dynamic_resolution_size(1080, 1920, 28, QWEN_MIN, 1280 * 784) == (728, 1316)
    assert mm.merged_patch_tokens(728, 1316, 14, 2) == 1222


def test_a_small_image_is_scaled_up_and_rounded_up():
    # 20 x 50 rounds to 28 x 56 = 1,568 pixels, under 3,136: beta = sqrt(3,136 / 1,000) = 1.770875;
    # 20 x 1.770875 / 28 = 1.26 -> 2 blocks = 56; 50 x 1.770875 / 28 = 3.16 -> 4 blocks = 112
    assert mm.dynamic_resolution_size(20, 50, 28, QWEN_MIN, QWEN_MAX) == (56, 112)


def test_a_side_at_half_a_block_rounds_to_the_even_block():
    # 70 / 28 = 2.5 and 42 / 28 = 1.5 both round to 2 blocks (Python's round, as the reference uses it): 56 x 56
    assert mm.dynamic_resolution_size(70, 42, 28, 784, QWEN_MAX) == (56, 56)


@pytest.mark.parametrize("args", [(0, 100, 28, QWEN_MIN, QWEN_MAX), (100, 100, 28, 5000, 4000),
                                  (10, 2010, 28, QWEN_MIN, QWEN_MAX), (100, 100, 0, QWEN_MIN, QWEN_MAX)])
def test_a_bad_image_or_budget_raises(args):
    # no pixels; a minimum above the maximum; 2,010 / 10 = 201 times longer than wide; a block of 0 pixels
    with pytest.raises(ValueError):
        mm.dynamic_resolution_size(*args)


def test_a_size_that_is_not_whole_blocks_raises():
    # 1,000 / 28 = 35.7 blocks: not resized yet
    with pytest.raises(ValueError, match="not a whole number"):
        mm.merged_patch_tokens(1000, 1932, 14, 2)


def test_fixed_and_tiled_grids():
    # LLaVA-1.5: (336 / 14)^2 = 24^2 = 576; a Llama 3.2 Vision tile: (560 / 14)^2 + 1 class token = 1,601
    assert mm.fixed_grid_tokens(336, 14) == 576
    assert mm.fixed_grid_tokens(560, 14, 1) == 1601
    # LLaVA-NeXT: 4 tiles and 1 overview of 576 = 2,880; Llama 3.2 Vision: 4 x 1,601 = 6,404, no overview
    assert mm.tiled_image_tokens(4, 576, 1) == 2880
    assert mm.tiled_image_tokens(4, 1601) == 6404
    with pytest.raises(ValueError):
        mm.fixed_grid_tokens(330, 14)  # 330 / 14 = 23.6 patches


def test_audio_and_video_rates():
    # Whisper: 30 s x 100 frames / 2 = 1,500 (its max_source_positions); Qwen2-Audio: 3,600 s x 100 / 4 = 90,000
    assert mm.audio_tokens(30, 100, 2) == 1500
    assert mm.audio_tokens(3600, 100, 4) == 90000
    # A minute at 2 frames a second: 120 frames in 60 pairs, each 16 x 16 = 256 tokens at 448 x 448: 15,360
    assert mm.video_tokens(60, 2, 2, 256) == 15360
    # 1.5 s at 2 frames a second is 3 frames: the odd one still takes a pair, ceil(1.5) = 2 pairs, 512 tokens
    assert mm.video_tokens(1.5, 2, 2, 256) == 512
    with pytest.raises(ValueError):
        mm.video_tokens(60, 0, 2, 256)


def test_vit_and_merger_parameters():
    # Qwen2.5-VL's ViT: 32 x (4 x 1,280^2 + 3 x 1,280 x 3,420) = 32 x (6,553,600 + 13,132,800) = 629,964,800
    assert mm.vit_params(32, 1280, 3420, 3) == 629_964_800
    # CLIP ViT-L/14: 24 x (4 x 1,024^2 + 2 x 1,024 x 4,096) = 24 x 12,582,912 = 301,989,888 (CLIP reports 304M)
    assert mm.vit_params(24, 1024, 4096, 2) == 301_989_888
    # the merger into the 72B's width: (4 x 1,280)^2 + 5,120 x 8,192 = 26,214,400 + 41,943,040 = 68,157,440
    assert mm.patch_merger_params(1280, 2, 8192) == 68_157_440


def test_vit_attention_flops():
    # 10,764 patches, d = 1,280: 4 full layers of 10,764^2 = 115,863,696 pairs and 28 windowed layers of
    # 10,764 x 64 = 688,896 pairs: 4 x 1,280 x (463,454,784 + 19,289,088) = 5,120 x 482,743,872 = 2,471,648,624,640
    assert mm.vit_attention_flops(10764, 1280, 4, 28, 64) == 2_471_648_624_640
    # a video: 60 pairs of 1,024 patches attend within themselves: 60 x 5,120 x (4 x 1,048,576 + 28 x 65,536)
    assert mm.vit_attention_flops(1024, 1280, 4, 28, 64, groups=60) == 60 * 5120 * (4_194_304 + 1_835_008)
    # a window wider than the image is the image: 16 patches, window 64 -> 16: 5,120 x (256 + 28 x 256)
    assert mm.vit_attention_flops(16, 1280, 1, 28, 64) == 5120 * (256 + 28 * 256)


def test_encoder_flops_are_a_prefill_over_the_patches():
    # 2 x 629,964,800 x 10,764 = 13,561,882,214,400; + attention 2,471,648,624,640;
    # + the merger 2 x 68,157,440 x 2,691 = 366,823,342,080: 16,400,354,181,120 FLOP
    flops = mm.encoder_flops(629_964_800, 10764, 2_471_648_624_640, 68_157_440, 2691)
    assert flops == 16_400_354_181_120


def test_embeddings_and_the_ttft_they_add():
    # 2,691 tokens x 8,192 x 2 B = 44,089,344 B; the same tokens' KV in the 72B: 2,691 x 327,680 B, 20 times more
    assert mm.embedding_bytes(2691, 8192, 2) == 44_089_344
    assert 2691 * 327_680 / mm.embedding_bytes(2691, 8192, 2) == 20
    # 16.6 ms of encoder, 0.9 ms of transfer, 456 ms of prefill: 473.5 ms
    assert mm.ttft_with_encoder_s(0.0166, 0.456, 0.0009) == pytest.approx(0.4735)


def test_affinity_homes_popularity_ranks_round_robin():
    # shares 0.4, 0.3, 0.2, 0.1 on 2 replicas: replica 0 homes ranks 1 and 3 (0.4 + 0.2 = 0.6, renormalised
    # 2/3 and 1/3), replica 1 ranks 2 and 4 (0.3 + 0.1 = 0.4: 3/4 and 1/4)
    (load0, mine0), (load1, mine1) = mm.affinity_shares([0.4, 0.3, 0.2, 0.1], 2)
    assert (load0, load1) == (pytest.approx(0.6), pytest.approx(0.4))
    assert mine0 == pytest.approx([2 / 3, 1 / 3]) and mine1 == pytest.approx([0.75, 0.25])
    # more replicas than adapters: the fifth homes nothing
    assert mm.affinity_shares([0.4, 0.3, 0.2, 0.1], 5)[4] == (0, [])
    with pytest.raises(ValueError):
        mm.affinity_shares([1.0], 0)


def test_an_adapters_load_in_replicas():
    # 11% of a fleet of 8 replicas' traffic is 0.88 of a replica; of 40, 4.4
    assert mm.adapter_replica_load(0.11, 8) == pytest.approx(0.88)
    assert mm.adapter_replica_load(0.11, 40) == pytest.approx(4.4)
