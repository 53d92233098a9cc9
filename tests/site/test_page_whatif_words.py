"""What the page models say when a changed spec takes away what the prose took for granted:
the worked batch no longer fits the anchor group, a design has no fleet, a usual replica no longer holds its
model. Each case patches one GPU in the loaded catalog and checks the words against figures derived by hand:
the 70B napkin preset (70e9 parameters in BF16, 80 layers, 8 KV heads of 128, 327,680 B of KV a token),
DeepSeek-V3 (671e9 parameters, FP8 1 B each), a 4e9 B reserve per GPU, 4,096-token sequences."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.specs import catalog
from macros.site.pages import _shared, concepts, design, design_batch_api, designs, questions

KV_SEQ = 327_680 * 4096  # 1,342,177,280 B


def _patch(monkeypatch: pytest.MonkeyPatch, gpu: str, **changes: float) -> None:
    gpus = catalog().gpus
    monkeypatch.setitem(gpus, gpu, dataclasses.replace(gpus[gpu], **changes))


def test_the_worked_batch_is_the_sources_while_it_fits():
    # 4 x 80e9 - 140e9 - 16e9 = 164e9 over 1,342,177,280 B: 122 sequences >= 64
    assert _shared.worked_batch() == 64 and _shared.worked_batch_words() == ""


def test_a_smaller_h100_works_at_the_batch_it_holds_and_says_so(monkeypatch: pytest.MonkeyPatch):
    _patch(monkeypatch, "h100", memory_bytes=48e9)
    # H100: 4 x 48e9 - 140e9 - 16e9 = 36e9 B, 26.8 sequences: 26. H200: 4 x 141e9 - 156e9 = 408e9 B: 303.
    assert _shared.worked_batch() == 26
    assert _shared.worked_batch_words() == (
        "The source's example batch of 64 sequences of 4,096 tokens does not fit on these specs (4 × H100 SXM "
        "hold at most 26; 4 × H200 SXM hold at most 303), so this page works at a batch of 26.")
    q = questions.model()
    assert q.batch_big == 26 and q.at_batch_big.batch == 26 and q.compared_at_batch_big.batch == 26
    assert concepts.model().at_batch_big_fp8.batch == 26
    # question 13: 3 GPUs hold 140e9 B of weights (144e9) but not the 12e9 B reserve too, so the fewest that
    # hold one sequence are 4, the anchor group itself: the sentence about a smaller group no longer holds
    assert q.min_group.gpus == 4 and not q.min_group_smaller.holds


def test_a_design_with_no_fleet_says_why_in_words(monkeypatch: pytest.MonkeyPatch):
    _patch(monkeypatch, "h200", memory_bytes=0.6 * 141e9)
    # 8 x 84.6e9 = 676.8e9 B against 671e9 B of FP8 weights and 8 x 4e9 of reserve = 703e9 B: no room
    d = design.model("batch-api", infeasible_ok=True)
    assert not d.feasible and not d.serves.holds
    reason = ("pinned at 8; no replica of up to 8 GPUs meets the targets: on this data 8 × H200 SXM cannot hold "
              "the weights, the reserve and one 2,500-token sequence")
    assert d.infeasible_words == f"On this data the planner finds no fleet for it: {reason}."
    assert d.serves.evidence == f"A batch inference API: {reason}"
    assert not design_batch_api.model().feasible
    assert f"none: {reason}" in designs.model().fleets


def test_a_revision_with_no_fleet_is_named(monkeypatch: pytest.MonkeyPatch):
    precisions = catalog().precisions
    monkeypatch.setitem(precisions, "fp8", dataclasses.replace(precisions["fp8"], bytes=1.5))
    # FP8 at 1.5 B: 671e9 x 1.5 = 1,006.5e9 B of weights. Under tp a node of 8 x 141e9 = 1,128e9 B keeps
    # 1,128e9 - 1,006.5e9 - 32e9 = 89.5e9 B for the cache; under dp-attention the attention weights (about
    # 11e9 parameters, 16.5e9 B) sit on 7 more ranks, +115.5e9 B, past the node: the revision has no fleet
    d = design.model("batch-api", infeasible_ok=True)
    assert not d.feasible
    reason = ("pinned at 8; no replica of up to 8 GPUs meets the targets: on this data 8 × H200 SXM cannot hold "
              "the weights, the reserve and one 2,500-token sequence")
    assert d.infeasible_words == ("On this data the planner finds no fleet for its revision "
                                  f"[variants.dp-attention]: {reason}.")
    assert d.serves.evidence == f"A batch inference API, [variants.dp-attention]: {reason}"
