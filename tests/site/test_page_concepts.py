"""The concept inventory's model (macros/site/pages/concepts.py) against figures derived by hand.

Moved with the inventory from the overview's tests. Inputs, from the data: the 70B preset (N = 70e9,
L = 80, H_q = 64, H_kv = 8, d_h = 128, BF16) on 4 x H100 (80 GB, 3.35 TB/s, 989.4 TFLOP/s dense).
Then the reading path: the inventory after the chapters in the nav, nothing named before it is taught
on the pages read first, and the home page linking the path in order.
"""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import ROOT

from macros.site.pages import concepts


@pytest.fixture(scope="module")
def q():
    return concepts.model()


def test_inventory_scenarios(q):
    # FP8 KV halves 327,680 B per token to 163,840: floor(164e9 / (163,840 x 4,096)) = 244 sequences.
    assert q.kv_fp8.max_batch == 244
    # Twice the context: floor(164e9 / (327,680 x 8,192)) = 61.
    assert (q.double_context.seq_len, q.double_context.max_batch) == (8192, 61)
    # One 2,000-token prompt's KV: 327,680 x 2,000 = 655.36 MB; the 131,072-token maximum: 42.95 GB.
    assert q.prompt_kv == 327_680 * 2000
    assert q.max_context_kv == 327_680 * 131_072
    # GQA: 64 query heads over 8 KV heads.
    assert q.gqa_saving == 8


def test_mla_against_mha(q):
    # DeepSeek-V3 as MHA: L x H_q x (2 d_h + d_rope) x 2 B = 61 x 128 x (256 + 64) x 2 = 4,997,120 B.
    assert q.mla_model.key == "deepseek-v3"
    assert q.mla_as_mha_kv_per_token == 61 * 128 * 320 * 2


def test_request_spread(q):
    # 25 tokens against 104,000: 4,160x; FLOPs with attention (2 L H_q d_h = 1,310,720):
    small = 2 * 70e9 * 25 + 1_310_720 * 25 * 26
    big = 2 * 70e9 * 104_000 + 1_310_720 * 104_000 * 104_001
    assert q.spread.token_ratio == pytest.approx(4160)
    assert (q.spread.small_flops, q.spread.big_flops) == pytest.approx((small, big))


def test_preemption_swap_against_recompute(q):
    # D3 agrees with chapter 6.4: swap 1,342,177,280 B out and back at 64 GB/s = 41.9 ms; recompute is
    # a 4,096-token prefill, (2 x 70e9 x 4,096 + 4 x 64 x 128 x 80 x 4,096 x 4,097 / 2) / (4 x 989.4e12)
    # = 150.5 ms, so the swap is 3.59x faster on the floor.
    swap = 2 * 1_342_177_280 / 64e9
    recompute = (2 * 70e9 * 4096 + 2_621_440 * 4096 * 4097 / 2) / (4 * 989.4e12)
    assert q.swap_round_trip_s == pytest.approx(swap)
    assert q.swap_speedup == pytest.approx(recompute / swap)
    assert q.swap_speedup == pytest.approx(3.59, rel=1e-2)


def test_quantized_weights_shorten_the_floor(q):
    # D3: at batch 64 the step reads the weights plus 64 sequences' KV over 4 x 3.35 TB/s:
    # BF16 (140e9 + 64 x 1,342,177,280) / 13.4e12 = 16.86 ms; FP8 (70e9 + the same KV) = 11.63 ms.
    kv = 64 * 1_342_177_280
    assert q.at_batch_big.decode_step_s == pytest.approx((140e9 + kv) / 13.4e12)
    assert q.at_batch_big_fp8.decode_step_s == pytest.approx((70e9 + kv) / 13.4e12)


# --- the reading path: the inventory sits after the chapters that teach it ---------------------------

# Names the inventory uses that the chapters teach from chapter 4 on: none may appear on the pages
# read first (the home page and the overview) unless glossed with a link to the chapter that teaches it.
TAUGHT_LATER = {"PagedAttention": "guide/batching.md", "DistServe": "guide/toolkit.md", "MLA": "guide/memory.md",
                "RadixAttention": "guide/toolkit.md", "Sarathi": "guide/batching.md", "Orca": "guide/batching.md",
                "SageServe": "guide/autoscaling.md"}


def unglossed_names(text: str) -> list[str]:
    """Each later-taught name on a page that is not followed, within its sentence, by a link to its chapter."""
    found = []
    for name, chapter in TAUGHT_LATER.items():
        for m in re.finditer(rf"\b{name}\b", text):
            sentence = re.split(r"(?<=[.!?])\s", text[m.end():], maxsplit=1)[0]
            if f"]({chapter}" not in sentence:
                found.append(name)
    return found


def test_first_pages_name_nothing_untaught():
    for page in ("index.md", "overview.md"):
        text = (ROOT / "docs" / page).read_text()
        assert not unglossed_names(text), page
        assert not re.search(r"^#+ D\d", text, re.M), f"{page} still holds the concept inventory"


def test_the_check_catches_an_unglossed_name():
    assert unglossed_names("Dive into PagedAttention. It is in [§4.3](guide/batching.md).") == ["PagedAttention"]
    assert unglossed_names("PagedAttention (the KV layout, [§4.3](guide/batching.md)).") == []


def nav_pages(nav: list) -> list[str]:
    """The nav's pages in order, flattened."""
    out = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out += nav_pages(value) if isinstance(value, list) else [value]
    return out


def test_nav_puts_the_inventory_after_the_study_guide():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # BaseLoader: !ENV tags
    pages = nav_pages(config["nav"])
    last_chapter = max(i for i, p in enumerate(pages) if p.startswith("guide/"))
    assert pages.index("concepts.md") > last_chapter
    assert pages.index("overview.md") < min(i for i, p in enumerate(pages) if p.startswith("guide/"))


def test_home_page_links_the_path_in_order():
    # overview -> chapters -> designs -> practice -> reference, first link to each in that order.
    text = (ROOT / "docs" / "index.md").read_text()
    path = ["](overview.md)", "](guide/background.md)", "](designs/index.md)", "](practice/index.md)", "](concepts.md)"]
    positions = [text.find(link) for link in path]
    assert -1 not in positions and positions == sorted(positions), positions
