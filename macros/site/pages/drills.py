"""docs/practice/drills.md: the timed drills' target times and the figures their model answers quote,
taken from the chapters' own page models (roofline, memory budget, design ChatGPT), so a drill's model
answer and the chapter it rehearses cannot disagree. Values in SI units; the page formats them."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.workloads import workloads
from . import design_chatgpt, memory, roofline

# Target times in seconds: how long a prepared candidate takes to say each drill aloud, cleanly.
TARGETS = SimpleNamespace(
    roofline=90,  # the 90-second roofline, from the spec sheet to the verdict
    memory=120,  # the memory budget, aloud, to the max batch
    altitude=60,  # from the scoping sentence to the replica, when asked to open it up
    evidence=20,  # the H100 against the H200, in two sentences
    follow_up=60,  # each of chapter 7's follow-ups
)


def model() -> SimpleNamespace:
    r, m, c = roofline.model(), memory.model(), design_chatgpt.model()
    return SimpleNamespace(
        t=TARGETS, r=r, m=m, c=c, s=m.s, chunk_tokens=workloads()["chunk_tokens"],
    )
