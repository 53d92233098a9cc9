"""docs/practice/drills.md: the timed drills' target times and the figures their model answers quote,
taken from the chapters' own page models (roofline, memory budget, design ChatGPT), so a drill's model
answer and the chapter it rehearses cannot disagree. Values in SI units; the page formats them.

Each drill also gets its timer (docs/assets/javascripts/practice/drills.js): `{{ d.timer('roofline') }}`
places an element carrying the drill's target and where its times are kept in the browser."""

from __future__ import annotations

from types import SimpleNamespace

from ...engine.workloads import workloads
from . import design_chatgpt, memory, roofline
from .mock_round import STORAGE_PREFIX

# Target times in seconds: how long a prepared candidate takes to say each drill aloud, cleanly.
TARGETS = SimpleNamespace(
    roofline=90,  # the 90-second roofline, from the spec sheet to the verdict
    memory=120,  # the memory budget, aloud, to the max batch
    altitude=60,  # from the scoping sentence to the replica, when asked to open it up
    evidence=20,  # the H100 against the H200, in two sentences
    follow_up=60,  # each of chapter 7's follow-ups
)
# Drill 5 asks these of chapter 7's follow-ups (design_chatgpt.follow_ups), in this order: the long
# prompt, rolling updates, a dead GPU, the heavy tenant, cost, agents.
FOLLOW_UPS = (1, 2, 3, 4, 5, 7)


def timer(key: str) -> str:
    """The timer's element for the drill whose target is TARGETS.<key>. The follow-up drill's timer
    asks its questions one at a time: they are the folded answers that follow it on the page."""
    target = getattr(TARGETS, key)
    sequence = ' data-sequence="1"' if key == "follow_up" else ""
    return (f'<div class="drill" data-drill="{key}" data-target-s="{target}" '
            f'data-storage="{STORAGE_PREFIX}:drill:{key}"{sequence}>'
            '<p class="drill__fallback">With JavaScript on, a clock runs here against the target, and your times '
            "are kept in this browser.</p></div>")


def model() -> SimpleNamespace:
    r, m, c = roofline.model(), memory.model(), design_chatgpt.model()
    return SimpleNamespace(
        t=TARGETS, r=r, m=m, c=c, s=m.s, chunk_tokens=workloads()["chunk_tokens"], timer=timer,
        follow_ups=[c.follow_ups[i] for i in FOLLOW_UPS],
    )
