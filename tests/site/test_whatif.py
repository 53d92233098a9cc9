"""What-ifs (tools/whatif.py): a plausible change to the data rebuilds into a site that is still true.

A few representative what-ifs from the tool's table are built here (each once per run, shared by the
xdist workers): a spec the prose compares (the H100's dense BF16 halved), a spec most figures follow
(its bandwidth up 40 %), the prices halved, and a model with more layers (the errata's source).
Two take a design's premise away (the H200's memory, its bandwidth down 40 %).
Each build must pass, or fail only with one-line "broken assumption" messages that name the page and
the sentence; never with an exception or another error. Every anchor figure that the change moves
must have moved on every page that showed it (test_drift's check, generalised to these changes).
The whole table runs with `python tools/whatif.py --all`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import whatif_build
from test_drift import anchor_figures, figures_moved, page_texts

from tools.whatif import BROKEN, FAILED, GREEN

# what-if -> the anchor figures before and after, derived by hand (test_drift.anchor_figures)
BEFORE = anchor_figures()
CASES = {
    "h100 bf16_flops x0.5": anchor_figures(peak=989.4e12 / 2),
    "h100 bandwidth_bytes_per_s x1.4": anchor_figures(bandwidth=3.35e12 * 1.4),
    # x0.5, not x2: at twice the price the FP8-cache cost comes to the old BF16 cost ($1.29, since FP8
    # doubles the batch), which a search for stale strings cannot tell from a figure left behind
    "every price x0.5": anchor_figures(price=2.5 / 2),
    "llama-70b layers 96": BEFORE,  # the napkin preset's anchor figures do not involve the layers ...
    # the anchor runs on H100s: these two move none of its figures, but take a design's fleet away (the batch
    # API's DeepSeek-V3 no longer fits a node of 84.6 GB H200s) and move the router's answer and its draws
    "h200 memory_bytes x0.6": BEFORE,
    "h200 bandwidth_bytes_per_s x0.6": BEFORE,
}
# ... but its KV cache does: one sequence of 4,096 tokens, 2 x 96 layers x 8 KV heads x 128 x 2 bytes.
KV_SEQ_96 = "1.61 GB"  # 2 * 96 * 8 * 128 * 2 * 4096 = 1,610,612,736 B
ONE_LINE = re.compile(r"^docs/\S+\.md: \u201c[^\n]+\u201d: [^\n]+\. Rewrite: [^\n]+$")


def _built(tmp_path_factory: pytest.TempPathFactory, name: str) -> tuple[str, list[str], Path]:
    verdict, lines, folder = whatif_build(tmp_path_factory, name)
    return verdict, lines, folder / "site"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project unchanged, built as the what-ifs are (drawings off)."""
    verdict, lines, site = _built(tmp_path_factory, "nothing changed")
    assert verdict == GREEN, lines
    return site


@pytest.fixture(scope="module", params=list(CASES))
def whatif(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, list, Path]:
    name = request.param
    return (name, *_built(tmp_path_factory, name))


def test_a_whatif_builds_or_names_its_broken_sentences(whatif):
    name, verdict, lines, _ = whatif
    assert verdict != FAILED, f"{name}: the build failed otherwise:\n" + "\n".join(lines)
    assert verdict in (GREEN, BROKEN)
    bad = [line for line in lines if not ONE_LINE.match(line)]
    assert not bad, f"{name}: not one line naming the page, the words, the figures and the fix: {bad}"


def test_every_figure_the_change_moves_has_moved(whatif, baseline: Path):
    name, _, _, site = whatif
    new = CASES[name]
    checked, problems = figures_moved(baseline, site, BEFORE, new)
    moving = [k for k in BEFORE if BEFORE[k] != new[k]]
    if moving:  # each change that moves an anchor figure is checked on several pages
        assert checked >= 2, f"{name}: {moving} should move, but few pages showed them ({checked})"
    assert not problems, f"{name}:\n" + "\n".join(problems)


def test_halving_the_h100s_compute_names_the_sentences_that_rested_on_it(tmp_path_factory):
    verdict, lines, site = _built(tmp_path_factory, "h100 bf16_flops x0.5")
    assert verdict == BROKEN
    named = "\n".join(lines)
    # the roofline chapter's reason for time to first token, and the interview script's counterfactual
    assert "docs/guide/roofline.md: \u201cbecause prefill is compute-bound and the compute is identical\u201d" in named
    assert "docs/questions.md: \u201cIf decode were compute-bound, it would be exactly as fast.\u201d" in named
    # the generated comparisons follow the data instead of being reported
    text = page_texts(site)
    assert "the same compute" not in text["guide/roofline/index.html"]
    assert "0.5\u00d7 the dense BF16 compute of the H100 SXM" not in text["guide/roofline/index.html"]
    assert "2\u00d7 the dense BF16 compute of the H100 SXM" in text["guide/roofline/index.html"]  # 989.4 / 494.7
    batching = " ".join(text["guide/batching/index.html"].split())
    assert "the answer is the same" not in batching
    assert "the H100 SXM has 0.5\u00d7 the dense BF16 compute of the H200 SXM" in batching


def test_more_layers_break_the_errata_diagnoses_not_the_quotations(tmp_path_factory, baseline: Path):
    verdict, lines, site = _built(tmp_path_factory, "llama-70b layers 96")
    # only the pages that diagnose the source's units (the errata, the units trap, chapter 3, question 14) name
    # sentences
    pages = {line.split(":")[0] for line in lines}
    assert verdict == BROKEN, lines
    assert pages == {"docs/errata.md", "docs/conventions.md", "docs/guide/memory.md", "docs/questions.md"}, lines
    assert any("\u201cUnits: 1.25 is the size in GiB.\u201d" in line for line in lines)
    errata = page_texts(site)["errata/index.html"]
    # the source is still quoted as it wrote ("1.25 GB", "320 KB"), never as today's data would put it
    assert '"1.25 GB"' in errata and '"320 KB"' in errata and "384 KB" not in errata
    assert KV_SEQ_96 in page_texts(site)["guide/memory/index.html"]
    assert KV_SEQ_96 not in page_texts(baseline)["guide/memory/index.html"]


def test_a_design_with_no_fleet_is_a_sentence_on_its_page(tmp_path_factory):
    verdict, lines, site = _built(tmp_path_factory, "h200 memory_bytes x0.6")
    assert verdict == BROKEN, lines
    # 8 x 84.6e9 = 676.8e9 B of H200s against 671e9 B of FP8 weights and 32e9 B of reserve: the batch API's
    # premise is named once on its page and once in the incident that borrows its nodes
    sentence = "\u201cThe worked answer sizes this design on 8 \u00d7 H200 SXM.\u201d"
    premise = [line for line in lines if sentence in line]
    assert [line.split(":")[0] for line in premise] == ["docs/designs/batch-api.md"], lines
    assert any(line.startswith("docs/practice/failure-modes.md: \u201cThe batch API borrows") for line in lines)
    page = " ".join(page_texts(site)["designs/batch-api/index.html"].split())
    assert ("On this data the planner finds no fleet for it: pinned at 8; no replica of up to 8 GPUs meets the "
            "targets: on this data 8 \u00d7 H200 SXM cannot hold the weights, the reserve and one 2,500-token "
            "sequence.") in page


def test_a_slower_h200_names_the_sentences_it_breaks_and_the_router_follows(tmp_path_factory):
    # H200 bandwidth x0.6: the cheat sheet's "faster decode" on the H200 is false, and named, one line; the router
    # (on H200) moves its answer and its further draws, and its sentences follow them (the gap paragraph reads the
    # draws either way), so none of its own is named.
    name = "h200 bandwidth_bytes_per_s x0.6"
    verdict, lines, _ = _built(tmp_path_factory, name)
    assert verdict == BROKEN, lines
    assert any(line.startswith("docs/cheatsheet.md: \u201cfaster decode\u201d") for line in lines), lines
    assert all(ONE_LINE.match(line) for line in lines), lines
    assert not [line for line in lines if line.startswith("docs/designs/router.md:")], lines
