"""Chapter 9's page model (macros/site/pages/multimodal.py and _multimodal_problems.py) against figures derived by
hand from the data: the encoders' configs read here straight from macros/data/topics/multimodal.toml, Qwen2.5-72B
(72,706,203,648 parameters; 80 layers, 64 query heads, 8 KV heads of 128; width 8,192: 327,680 B of KV a token) on
4 x H100 (80e9 B, 3.35e12 B/s, 989.4e12 FLOP/s dense BF16, a 4e9 B reserve per GPU), the anchor Llama-70B
(70e9 parameters, 80 layers, width 8,192, feed-forward 28,672) for the adapters, and the LoRA design's mix (5,000
adapters, Zipf exponent 1, rank 16 and 64, a 10e9 B slice). Then the sentences whose words follow a comparison,
each flipped by a case built to flip it."""

from __future__ import annotations

import math
import tomllib
from types import SimpleNamespace

import pytest

from macros.engine.problems.multimodal import PATH
from macros.site.pages import _multimodal_problems as problems_page
from macros.site.pages import multimodal

DATA = tomllib.loads(PATH.read_text())
QWEN = DATA["vision"]["qwen2_5_vl"]
N_72B, H100_PEAK, H100_BW = 72_706_203_648, 989.4e12, 3.35e12
KV_72B = 2 * 80 * 8 * 128 * 2  # 327,680 B a token


@pytest.fixture(scope="module")
def q():
    return multimodal.model()


def _image_flops(patches: int, tokens: int) -> float:
    """Qwen2.5-VL's encoder over one image, by hand: the layers' matrices, full and windowed attention, merger."""
    d, ff, depth = QWEN["hidden"], QWEN["ffn"], QWEN["depth"]
    body = depth * (4 * d * d + 3 * d * ff)  # 629,964,800
    merger = (4 * d) ** 2 + 4 * d * QWEN["out_hidden"]  # 68,157,440
    full, window = QWEN["full_attention_layers"], (QWEN["window_pixels"] // QWEN["patch_pixels"]) ** 2
    attention = 4 * d * (full * patches ** 2 + (depth - full) * patches * window)
    return 2 * body * patches + attention + 2 * merger * tokens


def test_the_encoders_token_counts(q):
    e, clip, ml = q.e, DATA["vision"]["clip_vit_l_336"], DATA["vision"]["mllama"]
    # LLaVA-1.5: (336 / 14)^2 = 576; LLaVA-NeXT: (4 + 1) x 576 = 2,880; Llama 3.2 Vision: 4 x (40^2 + 1) = 6,404
    assert e.llava == (clip["image_pixels"] // clip["patch_pixels"]) ** 2 == 576
    assert e.llava_next == (clip["max_tiles"] + clip["overview_tiles"]) * 576 == 2880
    assert e.mllama_tokens == ml["max_tiles"] * ((ml["image_pixels"] // ml["patch_pixels"]) ** 2 + 1) == 6404
    # an hour at 100 / 4 = 25 tokens a second: 90,000; Whisper's 30 s at 100 / 2: 1,500
    assert e.audio_tokens == 3600 * 25 == 90_000 and e.whisper_window == 1500
    # a minute at 2 frames a second, frames paired: 60 grids of (448 / 28)^2 = 256 tokens = 15,360
    assert e.video_tokens == 60 * 256


def test_the_screenshot_and_its_encoder(q):
    # 1,080 x 1,920 rounds to 39 x 69 blocks of 28 pixels (2,109,744 pixels, inside the budget): 2,691 tokens over
    # 4 x 2,691 = 10,764 patches; 16,400,354,181,120 FLOP, 16.58 ms at one H100's dense peak
    img = q.m.img
    assert (img.height, img.width, img.tokens, img.patches) == (1092, 1932, 2691, 10764)
    assert img.flops == _image_flops(10764, 2691) == 16_400_354_181_120
    assert q.m.encoder_one_gpu_s == pytest.approx(16_400_354_181_120 / H100_PEAK)
    # capped at 1,280 tokens (1,003,520 pixels): scaled by sqrt(2,073,600 / 1,003,520), 26 x 47 = 1,222 tokens
    assert q.m.capped.tokens == 1222
    # against the 72B's prefill of the same tokens, 2 x 72,706,203,648 x 2,691 FLOP: 4.19%
    assert q.m.encoder_share == pytest.approx(16_400_354_181_120 / (2 * N_72B * 2691))


def test_the_worked_request(q):
    w = q.m.worked
    # 500 + 4 x 2,691 = 11,264 tokens; x 327,680 B = 3,690,987,520 B of KV
    assert (w.tokens, w.kv) == (11_264, 11_264 * KV_72B)
    # budget 4 x 80e9 - 2 x 72,706,203,648 - 4 x 4e9 = 158,587,592,704 B: 42 such requests at once
    budget = 4 * 80e9 - 2 * N_72B - 4 * 4e9
    assert q.m.fit_requests == math.floor(budget / (11_264 * KV_72B)) == 42
    # prefill: 2 N n + 2 x 80 x 64 x 128 x n (n + 1) FLOP over 4 x 989.4e12 (compute-bound: the weights' read is
    # 145.4e9 / 13.4e12 = 10.9 ms); the encoder, one image per GPU: one image's time
    n = 11_264
    prefill = (2 * N_72B * n + 2 * 80 * 64 * 128 * n * (n + 1)) / (4 * H100_PEAK)
    assert w.prefill_s == pytest.approx(prefill)
    assert w.encoder_s == pytest.approx(16_400_354_181_120 / H100_PEAK)
    assert w.ttft_s == pytest.approx(prefill + 16_400_354_181_120 / H100_PEAK)
    assert q.m.planned_ttft_s == pytest.approx(w.ttft_s / 0.4)


def test_what_an_encoder_pool_ships_and_what_cross_attention_holds(q):
    # 2,691 x 8,192 x 2 B = 44,089,344 B of embeddings against 2,691 x 327,680 B of KV: 20 times
    assert q.m.embed_bytes == 44_089_344 and q.m.kv_over_embed == 20
    assert q.m.embed_nic_s == pytest.approx(44_089_344 / 50e9)
    # Llama 3.2 Vision: 2 x 8 x 8 x 128 x 2 = 32,768 B a vision token, 6,404 tokens: 209,846,272 B; in all 40
    # layers 5 times that
    assert (q.m.cross_token, q.m.cross_kv) == (32_768, 32_768 * 6404)
    assert q.m.self_kv == 5 * q.m.cross_kv


def test_the_adapters_on_the_anchor(q):
    a = q.l.a
    # Llama-70B's seven projections: q 8,192 + 8,192; k, v 8,192 + 1,024; o 8,192 + 8,192; gate, up 8,192 + 28,672;
    # down 28,672 + 8,192: 161,792 a layer; rank 16 over 80 layers: 207,093,760 parameters, 414,187,520 B
    assert q.l.width_sum == 161_792 and (a.params, a.bytes) == (207_093_760, 414_187_520)
    assert q.l.a_cap.bytes == 4 * 414_187_520
    # batch 64 at 4,096 tokens: 140e9 + 64 x 1,342,177,280 B; 64 distinct adapters add 64 x 414,187,520 B
    base = 140e9 + 64 * 1_342_177_280
    last = q.l.steps[-1]
    assert last.distinct == 64 and last.step_s == pytest.approx((base + 64 * 414_187_520) / (4 * H100_BW))
    # slots in the 10e9 B slice: 24 at rank 16, 6 at rank 64
    assert (q.l.slots, q.l.slots_cap) == (24, 6)
    # network storage at 1.25e9 B/s binds before 4 PCIe links of 64e9: a rank-64 adapter in 1.325 s
    slowest = min(q.l.tiers, key=lambda t: t.rate)
    assert slowest.cap_s == pytest.approx(4 * 414_187_520 / 1.25e9)


def test_affinity_hits_are_the_fleets_top_slots(q):
    # Zipf 1 over 5,000: share of rank i is (1 / i) / H. Random routing caches the top 24 on every replica;
    # homing rank i on replica i mod 8 gives replica r the ranks r + 8j, whose top 24 are j < 24: together the
    # top 8 x 24 = 192 ranks
    harmonic = sum(1 / i for i in range(1, 5001))
    shares = [1 / i / harmonic for i in range(1, 5001)]
    assert q.l.hit_random == pytest.approx(sum(shares[:24]))
    assert q.l.hit_affinity == pytest.approx(sum(shares[:192]))
    assert q.l.top_share == pytest.approx(1 / harmonic)


def test_the_problems(q):
    p = q.p
    # P1: LLaVA-NeXT on one L4: 2,880 + 200 = 3,080 tokens x 131,072 B = 403,701,760 B; the L4's budget
    # 24e9 - 2 x 8,030,261,248 - 4e9 = 3,939,477,504 B holds 9 of them
    assert (p.llava.next.prompt, p.llava.next.kv) == (3080, 3080 * 131_072)
    assert p.llava.next.fits == math.floor((24e9 - 2 * 8_030_261_248 - 4e9) / (3080 * 131_072)) == 9
    # P3: 90,000 tokens of Llama-3.1-70B's 327,680 B each; Whisper's rate, 180,000 tokens, over 131,072
    assert p.audio.kv == 90_000 * 327_680 and p.audio.whisper == 180_000
    # P5: one H200 at 40% of 989.4e12 encodes 395.76e12 / 16,400,354,181,120 = 24.13 images a second: 9 GPUs
    assert p.pool.gpus == math.ceil(200 / (0.4 * 989.4e12 / 16_400_354_181_120)) == 9
    # P10: Zipf 0.7 over 5,000: the top share is 1 / sum(i^-0.7); a fleet of ceil(1 / share) replicas holds it
    top = 1 / sum(i ** -0.7 for i in range(1, 5001))
    assert p.merge.top == pytest.approx(top) and p.merge.smallest == math.ceil(1 / top)


# --- the sentences whose words follow a comparison ---------------------------------------------------------------


def test_within_or_over_the_target():
    assert multimodal.within(0.4, 0.5, "target") == "within the 500 ms target, 100 ms to spare"
    assert multimodal.within(0.6, 0.5, "target") == "over the 500 ms target by 100 ms"


def test_the_placement_words_follow_the_timings():
    # sharding faster for one image, whole images faster for four: as on the page
    both = multimodal.placement_words(0.010, 0.016, 0.040, 0.016, 4)
    assert "one image, sharding is faster" in both and "4 images, one image per GPU is faster" in both
    # the opposite timings flip both halves
    flipped = multimodal.placement_words(0.020, 0.016, 0.012, 0.016, 4)
    assert "one whole GPU is faster" in flipped and "sharding is still faster" in flipped


def test_the_load_words_name_the_tiers_in_time():
    tiers = [SimpleNamespace(name="host memory", cap_s=0.01), SimpleNamespace(name="a local NVMe copy", cap_s=0.3),
             SimpleNamespace(name="network storage", cap_s=1.3)]
    assert multimodal.load_words(tiers, 0.5, 64) == ("a rank-64 adapter loads in time from host memory and a local "
                                                      "NVMe copy; from network storage it takes 1.3 s, a miss the "
                                                      "user sees")
    assert multimodal.load_words(tiers, 0.001, 64).startswith("a rank-64 adapter loads in time from none")
    assert "miss" not in multimodal.load_words(tiers, 2.0, 64)


def test_the_merge_words_follow_the_load():
    merged, pooled = (SimpleNamespace(replicas=40, load=4.4), SimpleNamespace(replicas=8, load=0.88))
    assert multimodal.merge_words([merged]).endswith("merge it")
    assert multimodal.merge_words([pooled]).endswith("keep it in the pool")


def test_the_context_words_follow_the_context():
    assert problems_page.context_words(180_000, 131_072).startswith("it does not fit")
    assert problems_page.context_words(90_000, 131_072) == "it fits"


def test_the_declared_assumptions_hold_today(q):
    declared = [q.m.encoder_small, q.m.encoder_real_small_lm, q.m.placement_split, q.m.planned_over,
                q.l.flops_negligible, q.l.over_slots, q.l.affinity_helps, q.p.cross.image_most, q.p.pool.pool_small,
                q.p.pool.one_link, q.p.cold.host_in_time, q.p.routing.mostly_hits]
    assert all(a.holds for a in declared), [a.evidence for a in declared if not a.holds]
    # the planned request is over the target because 1.18 s > 0.5 s: at the floor it is within
    assert q.m.planned_ttft_s > q.m.target >= q.m.worked.ttft_s
