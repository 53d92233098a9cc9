"""Chapter 0's page model (macros/site/pages/background.py): the anchor and the compared GPU."""

from __future__ import annotations

from macros.site.pages import background


def test_anchor_and_compared_gpu():
    q = background.model()
    # The anchor from workloads.toml: 70e9 x 2 B = 140 GB of weights on H100s.
    assert (q.anchor.model, q.gpu.key) == ("llama-70b", "h100")
    assert q.anchor.weight_bytes == 140e9
    # The H200: the same 989.4 TFLOP/s dense, 4.8 TB/s against 3.35.
    assert q.compared_gpu.bf16_flops == q.gpu.bf16_flops
    assert q.compared_gpu.bandwidth_bytes_per_s == 4.8e12


def test_napkin_preset_and_the_request_spread():
    q = background.model()
    # The preset rounds Llama-3.1-70B's 70,553,706,496 parameters to 70e9
    assert q.real_model.params == 70_553_706_496 and q.model.params == 70e9
    # (100,000 + 4,000) / (20 + 5) = 4,160 tokens
    assert q.spread.token_ratio == 4160
