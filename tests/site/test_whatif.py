"""What-ifs (tools/whatif.py): a plausible change to the data rebuilds into a site that is still true.

A few representative what-ifs from the tool's table are built here (each once per run, shared by the
xdist workers): a spec the prose compares (the H100's dense BF16 halved), a spec most figures follow
(its bandwidth up 40 %), the prices halved, and a model with more layers (the errata's source).
Each build must pass, or fail only with one-line "broken assumption" messages that name the page and
the sentence; never with an exception or another error. Every anchor figure that the change moves
must have moved on every page that showed it (test_drift's check, generalised to these changes).
The whole table runs with `python tools/whatif.py --all`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import made_once
from test_drift import anchor_figures, figures_moved, page_texts

from tools.whatif import BROKEN, FAILED, GREEN, WHATIFS, WhatIf, run

# what-if -> the anchor figures before and after, derived by hand (test_drift.anchor_figures)
BEFORE = anchor_figures()
CASES = {
    "h100 bf16_flops x0.5": anchor_figures(peak=989.4e12 / 2),
    "h100 bandwidth_bytes_per_s x1.4": anchor_figures(bandwidth=3.35e12 * 1.4),
    # x0.5, not x2: at twice the price the FP8-cache cost comes to the old BF16 cost ($1.29, since FP8
    # doubles the batch), which a search for stale strings cannot tell from a figure left behind
    "every price x0.5": anchor_figures(price=2.5 / 2),
    "llama-70b layers 96": BEFORE,  # the napkin preset's anchor figures do not involve the layers ...
}
# ... but its KV cache does: one sequence of 4,096 tokens, 2 x 96 layers x 8 KV heads x 128 x 2 bytes.
KV_SEQ_96 = "1.61 GB"  # 2 * 96 * 8 * 128 * 2 * 4096 = 1,610,612,736 B
ONE_LINE = re.compile(r"^docs/\S+\.md: \u201c[^\n]+\u201d: [^\n]+\. Rewrite: [^\n]+$")


def _built(tmp_path_factory: pytest.TempPathFactory, name: str, what: WhatIf) -> tuple[str, list[str], Path]:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")

    def make(folder: Path) -> None:
        out = run(what, folder)
        (folder / "outcome.json").write_text(json.dumps({"verdict": out.verdict, "lines": out.lines}))

    folder = made_once(tmp_path_factory, f"whatif-{slug}", make)
    outcome = json.loads((folder / "outcome.json").read_text())
    return outcome["verdict"], outcome["lines"], folder / "site"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project unchanged, built as the what-ifs are (drawings off)."""
    verdict, lines, site = _built(tmp_path_factory, "baseline", WhatIf("baseline", lambda project: None))
    assert verdict == GREEN, lines
    return site


@pytest.fixture(scope="module", params=list(CASES))
def whatif(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, list, Path]:
    name = request.param
    return (name, *_built(tmp_path_factory, name, WHATIFS[name]))


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
    verdict, lines, site = _built(tmp_path_factory, "h100 bf16_flops x0.5", WHATIFS["h100 bf16_flops x0.5"])
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
    verdict, lines, site = _built(tmp_path_factory, "llama-70b layers 96", WHATIFS["llama-70b layers 96"])
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
