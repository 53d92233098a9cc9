"""Chapters 6 and 7 and the errata page: their formulas against hand-derived values, and the
built pages against the corrected figures (never the source's wrong ones)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from macros.engine import formulas as f


def test_transfer_time_weights_from_network_storage():
    # 140e9 B of weights over a 10 Gbit/s path = 1.25e9 B/s: 140e9 / 1.25e9 = 112 s
    assert f.transfer_time_s(140e9, 1.25e9) == pytest.approx(112.0)


def test_transfer_time_kv_over_pcie():
    # One 4,096-token Llama-70B sequence: 327,680 B x 4,096 = 1,342,177,280 B;
    # over PCIe Gen5 x16 one way at 64e9 B/s: 1,342,177,280 / 64e9 = 0.02097152 s (21.0 ms)
    assert f.transfer_time_s(327_680 * 4096, 64e9) == pytest.approx(0.02097152)


def test_scaling_signal_takes_the_constraint_closer_to_its_limit():
    # KV: 0.93 / 0.85 = 1.0941...; queue: 0.15 s / 0.2 s = 0.75; the larger is the KV term
    assert f.scaling_signal(0.93, 0.85, 0.15, 0.2) == pytest.approx(0.93 / 0.85)
    # Queue binds: KV 0.5 / 0.85 = 0.588; queue 0.3 / 0.2 = 1.5
    assert f.scaling_signal(0.5, 0.85, 0.3, 0.2) == pytest.approx(1.5)


def test_scaling_signal_broadcasts():
    kv = np.array([0.85, 0.425])
    # [0.85/0.85, 0.425/0.85] = [1, 0.5]; queue 0.1/0.2 = 0.5 -> [1, 0.5]
    assert f.scaling_signal(kv, 0.85, 0.1, 0.2) == pytest.approx([1.0, 0.5])


def test_desired_replicas_is_the_hpa_rule():
    # ceil(10 x 1.0941) = ceil(10.94) = 11
    assert f.desired_replicas(10, 0.93 / 0.85) == 11
    # 10 x 1.2 is 12.000000000000002 in floating point: the HPA answer is 12, not 13
    assert f.desired_replicas(10, 1.2) == 12
    # a signal below 1 never scales up: ceil(10 x 0.918) = 10
    assert f.desired_replicas(10, 0.918) == 10
    assert list(f.desired_replicas(np.array([10, 4]), 1.2)) == [12, 5]  # ceil(4.8) = 5


def _text(site: Path, page: str) -> str:
    html = (site / page / "index.html").read_text()
    article = re.search(r"<article.*?</article>", html, re.DOTALL).group(0)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", article))


def test_design_page_shows_the_corrected_figures(built_site: Path):
    text = _text(built_site, "guide/design-chatgpt")
    # The anchor's corrected floor, rates and cost (seed-errata section 3): 22.7 ms, 5,380 and
    # 44.1 tokens/s, $1.29 per million at $2.50/h and 40%; a 2,000-token prefill on 4 GPUs
    # is (2 x 70e9 x 2,000 + 4 x 64 x 128 x 80 x 2,000 x 2,001 / 2) / (4 x 989.4e12)
    # = (280 + 5.2455) TFLOP / 3,957.6 TFLOP/s = 72.1 ms; 100,000 x 327,680 B = 32.8 GB.
    for figure in ("22.7 ms", "5,380 tokens/s", "44.1 tokens/s", "$1.29", "72.1 ms", "32.8 GB", "122"):
        assert figure in text, figure
    # The source's wrong figures appear nowhere on the page (the errata page quotes them), as figures of their
    # own: "91 ms" is not in "491 ms" or "91.6 ms".
    for wrong in ("91 ms", "1,440", "141 ms", "11 tokens/s", "31 GB"):
        assert not re.search(r"(?<![\d.,])" + re.escape(wrong) + r"(?![\d,])", text), wrong


def test_autoscaling_page_computes_the_spread(built_site: Path):
    text = _text(built_site, "guide/autoscaling")
    # (100,000 + 4,000) / (20 + 5) = 4,160
    assert "4,160×" in text
    # The composite signal's worked example: max(0.93 / 0.85, 150 / 200) = 1.09 -> 10 replicas become 11
    assert "1.09" in text and "10 replicas to 11" in text


def test_errata_quotes_the_source_beside_the_computed_figure(built_site: Path):
    text = _text(built_site, "errata")
    for seed, site in (("91 ms", "22.7 ms"), ("1,440 tok/s", "5,380 tokens/s"), ("131", "122"),
                       ("1.25 GB", "1.34 GB"), ("10,000×", "4,160×"), ("$5", "$1.29")):
        assert seed in text and site in text, (seed, site)
