"""The mock round's content (macros/site/pages/mock_round.py): exported from the data the pages print,
with each follow-up due at a checkpoint of the time plan, and safe to embed in a <script>."""

from __future__ import annotations

import json

from macros.engine.problems.rubric import rubric
from macros.site.pages import design, design_chatgpt, mock_round


def test_checkpoints_are_the_minutes_between_items():
    # items of 5, 5, 8 minutes: checkpoints at 5 and 10 (18 is the end of the round)
    assert mock_round.checkpoints([5, 5, 8]) == [5, 10]


def test_follow_ups_take_the_last_checkpoints_or_share_them():
    assert mock_round.due_minutes([5, 10, 18, 25], 2) == [18, 25]
    assert mock_round.due_minutes([5, 10], 4) == [5, 5, 10, 10]  # i * 2 // 4 for i = 0..3: 0, 0, 1, 1


def test_a_design_round_is_its_design_file():
    data = mock_round.round_data("consumer-chat")
    m = design.meta("consumer-chat")
    assert data["prompt"] == m.prompt
    assert [f["question"] for f in data["follow_ups"]] == [c.critique for c in m.critiques]
    assert [f["href"] for f in data["follow_ups"]] == [f"#revision-{n}" for n in range(1, 7)]
    # the consumer-chat plan: 5, 5, 8, 7, 8, 7, 5 minutes -> checkpoints 5, 10, 18, 25, 33, 40; six follow-ups
    assert data["checkpoints_s"] == [m * 60 for m in (5, 10, 18, 25, 33, 40)]
    assert [f["due_s"] for f in data["follow_ups"]] == data["checkpoints_s"]
    assert data["round_s"] == 45 * 60


def test_chapter_7s_round_is_its_data_file():
    data = mock_round.round_data("design-chatgpt")
    raw = design_chatgpt.ROUND_DATA
    assert data["prompt"] == raw["prompt"]
    assert len(data["follow_ups"]) == len(raw["follow_ups"]) == 9
    assert data["follow_ups"][1]["question"] == "A user sends a 100,000-token prompt. What happens to everyone else?"
    # twelve beats -> eleven checkpoints; nine follow-ups take the last nine: minutes 9 (3 + 1 + 5) onward
    assert data["follow_ups"][0]["due_s"] == 9 * 60


def test_the_rubric_goes_with_every_round():
    r = rubric()
    exported = mock_round.round_data("rag")["rubric"]
    assert [d["key"] for d in exported["dimensions"]] == [d.key for d in r.dimensions]
    assert [v["key"] for v in exported["verdicts"]] == ["strong-hire", "hire", "lean-no-hire", "no-hire"]


def test_the_embedded_json_cannot_close_its_script():
    text = mock_round.script_json({"x": "</script><b>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": "</script><b>&"}


def test_all_nine_rounds():
    assert list(mock_round.all_rounds()) == ["design-chatgpt", *design.slugs()]
    assert len(design.slugs()) == 8
