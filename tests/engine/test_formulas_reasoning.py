"""Chapter 8's formulas (macros/engine/formulas/reasoning.py) against values derived by hand, and the bad inputs
they refuse."""

from __future__ import annotations

import math

import numpy as np
import pytest

from macros.engine.formulas import reasoning as rf


def test_a_request_holds_its_prompt_and_half_its_output_on_average():
    # 1,000 prompt tokens, 16,000 decoded: the cache runs 1,000 -> 17,000, a straight line, mean 9,000
    assert rf.mean_context_tokens(1000, 16000) == 9000
    # a chat turn: 1,000 + 500 / 2 = 1,250
    assert rf.mean_context_tokens(1000, 500) == 1250


def test_replica_time_prefill_share_and_gpu_seconds():
    # 16,000 steps of 28 ms shared by 180 sequences: 16,000 x 0.028 / 180 = 2.4889 s of the replica
    assert rf.replica_seconds_per_request(16000, 0.028, 180) == pytest.approx(2.48888889)
    # a 5 ms prompt against that decode: 0.005 / (0.005 + 2.48889) = 0.2005%
    assert rf.prefill_share(0.005, 16000, 0.028, 180) == pytest.approx(0.005 / 2.49388889)
    # the same prompt against a 500-token chat turn at batch 1,000 and 25 ms: 0.005 / (0.005 + 0.0125) = 28.6%
    assert rf.prefill_share(0.005, 500, 0.025, 1000) == pytest.approx(0.005 / 0.0175)
    # 4 GPUs x 2.5 s of a replica = 10 GPU-seconds
    assert rf.gpu_seconds_per_request(4, 2.5) == 10


def test_cost_per_request():
    # 10 GPU-seconds at $3.60 an hour: $0.01 at the floor; planned at 40% efficiency, $0.025
    assert rf.cost_per_request_usd(3.6, 10, 0.4) == pytest.approx(0.025)
    with pytest.raises(ValueError, match="efficiency"):
        rf.cost_per_request_usd(3.6, 10, 0)


def test_the_first_visible_token_waits_for_the_thinking():
    # 12 ms of prefill, then 15,000 thinking tokens at 40 ms: 0.012 + 600 = 600.012 s
    assert rf.visible_ttft_s(0.012, 15000, 0.040) == pytest.approx(600.012)
    # no thinking: the chat TTFT, the prefill alone
    assert rf.visible_ttft_s(0.012, 0, 0.040) == 0.012


def test_parallel_samples_share_the_prompt():
    # 8 samples of a 1,000-token prompt, each holding 8,000 output tokens on average:
    # shared 1,000 + 8 x 8,000 = 65,000; unshared 8 x 9,000 = 72,000
    assert rf.sampled_kv_tokens(1000, 8000, 8, True) == 65000
    assert rf.sampled_kv_tokens(1000, 8000, 8, False) == 72000
    # one sample shares nothing: both are P + O
    assert rf.sampled_kv_tokens(1000, 8000, 1, True) == rf.sampled_kv_tokens(1000, 8000, 1, False) == 9000
    with pytest.raises(ValueError, match="samples"):
        rf.sampled_kv_tokens(1000, 8000, 0, True)


def test_the_naive_mask_walks_the_whole_vocabulary():
    # 128,256 tokens x 2 trie nodes x 13 cycles / 2 GHz = 3,334,656 cycles = 1.667 ms
    assert rf.trie_walk_mask_s(128256, 2, 13, 2e9) == pytest.approx(1.667328e-3)
    with pytest.raises(ValueError, match="clock_hz"):
        rf.trie_walk_mask_s(128256, 2, 13, 0)


def test_the_bitmask_is_a_bit_per_token_in_32_bit_words():
    # 128,256 / 32 = 4,008 words x 4 B = 16,032 B; 151,936 / 32 = 4,748 words = 18,992 B; 33 tokens need 2 words
    assert rf.token_bitmask_bytes(128256) == 16032
    assert rf.token_bitmask_bytes(151936) == 18992
    assert rf.token_bitmask_bytes(33) == 8


def test_the_masks_cpu_time_and_the_crossover():
    # 64 sequences x 728 us on one thread = 46.592 ms; on 8 threads 5.824 ms; 5 positions each: 29.12 ms
    assert rf.mask_cpu_s(64, 728e-6, 1) == pytest.approx(46.592e-3)
    assert rf.mask_cpu_s(64, 728e-6, 8) == pytest.approx(5.824e-3)
    assert rf.mask_cpu_s(64, 728e-6, 8, 5) == pytest.approx(29.12e-3)
    # W = 4.8 ms, c = 40 us a sequence, m = 728 us on 1 thread: 4.8 / (0.728 - 0.040) = 6.977
    assert rf.mask_crossover_batch(4.8e-3, 40e-6, 728e-6, 1) == pytest.approx(4.8 / 0.688)
    # at that batch the two sides are equal: 6.977 x 0.728 = 4.8 + 6.977 x 0.040 = 5.079 ms
    b = rf.mask_crossover_batch(4.8e-3, 40e-6, 728e-6, 1)
    assert rf.mask_cpu_s(b, 728e-6, 1) == pytest.approx(4.8e-3 + b * 40e-6)
    # 64 us over 8 threads is 8 us a sequence, below the 40 us KV read: the masks never catch the floor
    assert rf.mask_crossover_batch(4.8e-3, 40e-6, 64e-6, 8) == math.inf
    # llgtrt's README: 16 cores, a 10 ms step, 100 us a mask, no KV term: 10 / (0.1 / 16) = 1,600
    assert rf.mask_crossover_batch(10e-3, 0, 100e-6, 16) == pytest.approx(1600)
    # arrays: one finite, one never
    got = rf.mask_crossover_batch(4.8e-3, 40e-6, np.array([728e-6, 64e-6]), np.array([1, 8]))
    assert got[0] == pytest.approx(4.8 / 0.688) and got[1] == math.inf
    with pytest.raises(ValueError, match="threads"):
        rf.mask_cpu_s(64, 728e-6, 0)


def test_overlap_hides_the_shorter_side():
    # a 7.3 ms step and 46.6 ms of masks: overlapped 46.6 ms, serial 53.9 ms; masks of 4.1 ms are hidden
    assert rf.overlapped_step_s(7.3e-3, 46.6e-3) == 46.6e-3
    assert rf.serial_step_s(7.3e-3, 46.6e-3) == pytest.approx(53.9e-3)
    assert rf.overlapped_step_s(7.3e-3, 4.1e-3) == 7.3e-3


def test_a_step_waits_for_its_slowest_mask():
    # 64 sequences: 1 - 0.99^64 = 1 - 0.52556 = 47.44% of steps hold a mask beyond the p99
    assert rf.slow_mask_step_share(64, 0.99) == pytest.approx(1 - 0.99 ** 64)
    assert rf.slow_mask_step_share(64, 0.99) == pytest.approx(0.47440, abs=1e-5)
    # one sequence: 1%
    assert rf.slow_mask_step_share(1, 0.99) == pytest.approx(0.01)
    with pytest.raises(ValueError, match="quantile"):
        rf.slow_mask_step_share(64, 99)


def test_forced_tokens_bound_jump_forward():
    # 15% forced: 1 / 0.85 = 1.1765; nothing forced: 1
    assert rf.forced_token_speedup(0.15) == pytest.approx(1 / 0.85)
    assert rf.forced_token_speedup(0) == 1
    with pytest.raises(ValueError, match="forced_share"):
        rf.forced_token_speedup(1)


def test_a_zero_batch_is_refused():
    with pytest.raises(ValueError, match="batch"):
        rf.replica_seconds_per_request(16000, 0.028, 0)
    with pytest.raises(ValueError, match="batch"):
        rf.replica_seconds_per_request(16000, 0.028, float("nan"))
