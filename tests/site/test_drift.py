"""Change one GPU spec, rebuild, and every figure that depends on it changes on every page.

The H100's bandwidth moves from 3.35 to 4.69 TB/s in a temporary copy of the project. The
figures that depend on it (the bandwidth itself, the machine balance, the 4 x H100 anchor's
decode floor, throughput, per-user rate and cost) are computed here from the formulas with the
old and the new value. Each page that showed an old figure must show none of them after the
rebuild, and must show the new figure instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import CHANGED_BANDWIDTH

from macros.engine import formulas as f
from macros.text import fmt

OLD_BW, NEW_BW = 3.35e12, CHANGED_BANDWIDTH
SPEC_LINE = "bandwidth_bytes_per_s = 3.35e12"
TAG = re.compile(r"<[^>]+>")


def anchor_figures(bandwidth: float = OLD_BW, peak: float = 989.4e12, price: float = 2.5) -> dict[str, str]:
    """The 70B napkin preset on 4 x H100 at 4,096 tokens, formatted as the pages format it, for an H100
    with this bandwidth and dense BF16 peak at this price per GPU-hour."""
    weights, kv_seq = 70e9 * 2, 2 * 80 * 8 * 128 * 2 * 4096
    batch = int(f.max_batch(f.kv_budget_bytes(4, 80e9, weights, 4e9), kv_seq))
    moved = f.decode_step_bytes(weights, batch, kv_seq)
    step = f.step_floor_s(moved, f.decode_step_flops(70e9, batch), 4, bandwidth, peak)
    rate = f.tokens_per_s(batch, step)
    return {
        "bandwidth": fmt.bandwidth(bandwidth),
        "machine balance": f"{fmt.num(f.machine_balance(peak, bandwidth))} FLOP",
        "decode floor": fmt.ms(step),
        "aggregate": fmt.tokens_per_s(rate),
        "per user": fmt.tokens_per_s(1 / step),
        "cost": fmt.usd(f.cost_per_million_tokens(price, 4, rate, 0.4)),
    }


def figures_moved(before: Path, after: Path, old: dict[str, str], new: dict[str, str]) -> tuple[int, list[str]]:
    """Every page of the site `before` that showed one of the `old` figures that the change moves must
    show it no longer in the site `after`, and show the new one. (How many were checked, the problems.)"""
    before_text, after_text = page_texts(before), page_texts(after)

    def at(figure: str, text: str) -> list[int]:  # as a figure of its own: "22.7 ms" is not in "122.7 ms"
        return [m.start() for m in re.finditer(r"(?<![\d.,])" + re.escape(figure), text)]

    def shows(figure: str, text: str) -> bool:
        return bool(at(figure, text))

    checked, problems = 0, []
    for page, text in before_text.items():
        for name, figure in old.items():
            if not shows(figure, text) or figure == new[name] or (page, name) in NOT_THIS_FIGURE:
                continue
            checked += 1
            # Each place the old figure stood, with the words before it, must be gone: a figure elsewhere on the
            # page that the change happens to bring to the same digits (a fleet's cost) is not the anchor's.
            if any(text[max(0, i - CONTEXT):i] + figure in after_text[page] for i in at(figure, text)):
                problems.append(f"{page}: the old {name} {figure!r} is still there")
            if not shows(new[name], after_text[page]):
                problems.append(f"{page}: the new {name} {new[name]!r} is missing")
    return checked, problems


# The generated problems draw their numbers from the specs at random and never pose the anchor, so an anchor
# figure there is a coincidence (a cost problem's own floor step of 22.7 ms on 2 x H100); how they follow a
# spec change is tests/site/test_flashcards.py's check. The load explorer shows the simulator's figures for its
# own example on its own GPU, never the anchor's floor (its p99 TPOT is 22.7 ms as this fit stands); its
# figures follow a change through tests/site/test_page_load_explorer.py.
NOT_ANCHOR_PAGES = {"practice/problems/index.html", "load-explorer/index.html"}
# A page that states none of one anchor figure but prints the same digits for something else: the validation page
# shows no decode floor of the anchor, and TensorRT-LLM's fitted request overhead reads 22.7 ms as this fit stands;
# consumer chat's long-history revision simulates a p95 TPOT of 22.7 ms on 8 x H100.
NOT_THIS_FIGURE = {("model-vs-measured/index.html", "decode floor"),
                   ("designs/consumer-chat/index.html", "decode floor")}


CONTEXT = 12  # characters before an anchor figure that place it on its page (") × 10⁶ = " before a cost)
ABBR = re.compile(r"</?abbr[^>]*>")  # the glossary's hover marks sit inside words and figures: no space for them


def page_texts(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): TAG.sub(" ", ABBR.sub("", p.read_text())) for p in site.rglob("*.html")
            if "search" not in p.parts and p.relative_to(site).as_posix() not in NOT_ANCHOR_PAGES}


def test_one_spec_change_reaches_every_page(built_site: Path, changed_project: tuple[Path, Path]):
    old, new = anchor_figures(OLD_BW), anchor_figures(NEW_BW)
    assert all(old[k] != new[k] for k in old), "the test's spec change must move every figure"
    # The session's changed copy (conftest.py) raised the H100's bandwidth from OLD_BW to NEW_BW.
    checked, problems = figures_moved(built_site, changed_project[1], old, new)
    assert checked >= 5, f"expected the anchor figures on several pages, found {checked}"
    assert not problems, "\n".join(problems)


def test_the_check_flags_a_site_that_did_not_follow(built_site: Path):
    # The same site before and after: every anchor figure stands where it stood, so every check is a stale figure
    # (the words before each occurrence place it, so a look-alike elsewhere cannot hide one that stayed).
    checked, problems = figures_moved(built_site, built_site, anchor_figures(OLD_BW), anchor_figures(NEW_BW))
    assert checked >= 5 and len([p for p in problems if "is still there" in p]) == checked
