"""The study guide teaches before it tells: chapters 1 to 7 each end with problems whose
answers are collapsed until the reader opens them, and the two curves the text names are drawn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CHAPTERS = ["inference", "roofline", "memory", "batching", "toolkit", "autoscaling", "design-chatgpt", "reasoning",
            "multimodal", "moe-at-scale", "long-context"]
H2 = re.compile(r"<h2 id=\"([^\"]*)\">(.*?)</h2>", re.S)


def _problems(html: str) -> str:
    """The chapter's last section, which must be its problems."""
    headings = H2.findall(html)
    assert headings, "no h2"
    last_id, last = headings[-1]
    assert re.sub(r"<[^>]+>|&para;|¶", "", last).strip() == "Problems", last
    return html[html.index(f'id="{last_id}"'):html.index("</article>")]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_ends_with_problems_answered_below_a_fold(built_site: Path, chapter: str):
    html = (built_site / "guide" / chapter / "index.html").read_text()
    section = _problems(html)
    questions = re.findall(r"<p><strong>\d+\.", section)
    folded = re.findall(r'<details class="answer">', section)
    assert len(questions) >= 3 and len(folded) >= len(questions), (len(questions), len(folded))
    # A "Check yourself" box keeps its answers folded too.
    for box in re.split(r'<p class="admonition-title">Check yourself</p>', html)[1:]:
        assert '<details class="answer">' in box[:box.find("<h2")], "a Check yourself answer is printed open"


def test_the_curves_the_text_names_are_drawn(built_site: Path):
    assert "assets/drawings/inference_timeline.svg" in (built_site / "guide" / "inference" / "index.html").read_text()
    assert "assets/drawings/latency_throughput.svg" in (built_site / "guide" / "batching" / "index.html").read_text()


def test_the_check_catches_a_chapter_without_problems():
    with pytest.raises(AssertionError):
        _problems('<h2 id="a">4.5 The scheduler</h2><p>…</p></article>')
