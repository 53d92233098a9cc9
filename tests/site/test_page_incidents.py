"""The serving incidents (docs/practice/failure-modes.md, macros/site/pages/incidents.py): at least
twenty, each symptom -> signal -> cause -> fix and its cost with a link to the page that explains it,
the five the issue names among them, and their figures derived by hand for the anchor (Llama-70B,
BF16, 4 x H100, 4,096 tokens: budget 164e9 B, 327,680 B of KV per token, 122 sequences, 989.4e12
FLOP/s per GPU) and the consumer-chat plan (600 replicas, 161 sequences at the SLO)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from macros.site.pages import incidents

PAGE = Path(__file__).resolve().parents[2] / "docs" / "practice" / "failure-modes.md"
LABELS = ("**Symptom.**", "**The signal.**", "**Cause.**", "**Fix, and its cost.**")
NAMED = ("preemption-storm", "prefix-collapse", "retry-storm", "long-prompt-stutter", "cold-rollout")


@pytest.fixture(scope="module")
def q():
    return incidents.model()


def sections() -> dict[str, str]:
    text = PAGE.read_text()
    parts = re.split(r"^### .*\{ #([a-z0-9-]+) \.incident \}$", text, flags=re.M)
    body = dict(zip(parts[1::2], parts[2::2]))
    return {key: re.split(r"^##? ", value, flags=re.M)[0] for key, value in body.items()}


def test_twenty_incidents_each_in_four_parts_with_a_link():
    found = sections()
    assert len(found) >= 20
    for key, text in found.items():
        positions = [text.find(label) for label in LABELS]
        assert -1 not in positions and positions == sorted(positions), key
        assert re.search(r"\]\(\.\./[a-z0-9/._-]+\.md(#[a-z0-9-]+)?\)", text), f"{key} links nowhere"
        assert "{{" in text.split("**Cause.**")[0], f"{key}: no computed figure in its symptom or signal"


def test_the_five_named_incidents_are_there():
    assert set(NAMED) <= set(sections())


def test_preemption_storm(q):
    # admitted at 2,000-token prompts: 164e9 / (327,680 x 2,000) = 250.2 -> 250; 122 fit at 4,096: 128 preempted
    p = q.preemption
    assert (p.admitted, p.fits, p.preempted) == (250, 122, 128)
    # each recomputes a 4,096-token prefill: 2 x 70e9 x 4,096 + causal attention 4 x 64 x 128 x 80 x 4,096 x 4,097 / 2
    prefill_s = (2 * 70e9 * 4096 + 4 * 64 * 128 * 80 * 4096 * 4097 / 2) / (4 * 989.4e12)
    assert p.recompute_s == pytest.approx(128 * prefill_s)
    assert p.used_at_admission == pytest.approx(2000 / 4096)


def test_long_prompt_chunks(q):
    # a 512-token chunk: 2 x 70e9 x 512 / (4 x 989.4e12) = 18.1 ms; ceil(100,000 / 512) = 196 chunks
    assert q.long.chunk_s == pytest.approx(2 * 70e9 * 512 / (4 * 989.4e12))
    assert q.long.chunks == math.ceil(100_000 / 512) == 196


def test_retry_storm_and_hung_replica(q):
    # 2e8 requests a day at a peak of 2x the mean: 2e8 / 86,400 = 2,314.8 requests/s over 600 replicas
    assert q.per_replica_rps == pytest.approx(2e8 / 86_400 / 600)
    assert q.hung_requests == pytest.approx(2e8 / 86_400 / 600 * 30)
    assert q.spare_replicas == pytest.approx(600 - q.p.replica_seconds_per_s)
    assert q.storm_replica_s == pytest.approx(3 * q.x.reprefill_batch_s)


def test_measured_efficiency(q):
    # TPOT 50 ms at 25%: floor <= 12.5 ms, so 141.1e9 B + b x 327,680 x 2,400 B <= 12.5e-3 x 4 x 3.35e12 = 167.5e9
    weights = 70_553_706_496 * 2
    assert q.measured.slo_batch == int((12.5e-3 * 4 * 3.35e12 - weights) // (327_680 * 2400)) == 33
