"""Chapter 8's data file and its two problem kinds (macros/engine/problems/reasoning.py): the data is checked
value by value, one line naming the file and the entry; each kind is solved here by hand, on stated inputs and
on every problem the practice set draws."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from macros.engine.problems import BY_NAME, settings
from macros.engine.problems.base import generate
from macros.engine.problems.reasoning import PATH, load_topic, solve_grammar_mask, solve_reasoning_kv, topic
from macros.engine.specs import SpecError

HAND_KV = dict(params=70e9, bytes_per_weight=2, layers=80, kv_heads=8, head_dim=128, bytes_per_kv=2, gpus=4,
               memory=80e9, reserve=4e9, prompt=1000, output=16000)


def test_the_data_loads_with_its_sources():
    t = topic()
    assert t.mask_time.xgrammar.p99 > t.mask_time.xgrammar.mean > t.mask_time.xgrammar.p50
    assert t.self_consistency.majority_accuracy > t.self_consistency.pass_at_1
    assert "2501.12948" in t.self_consistency.source and t.self_consistency.date == "2025-01-22"


@pytest.mark.parametrize("old, new, message", [
    ("p99 = 5687e-6", "p99 = -5687e-6", "[mask_time.xgrammar]: p99 must be between"),
    ("p99 = 5687e-6", "p99 = nan", "[mask_time.xgrammar]: p99 must be a finite number"),
    ('model = "qwen3-235b-a22b"', 'model = "qwen9"', "[example]: model must name a model"),
    ('date = "2025-01-22"', 'date = "January 2025"', "[self_consistency]: date must be a date"),
    ("tokens = [1000, 2000, 4000, 8000]", "tokens = [4000, 1000]", "[thinking_budgets] tokens must be in ascending"),
    ("samples = 8\n", "samples = 8.5\n", "[sampling]: samples must be a finite whole number"),
])
def test_a_bad_value_is_one_line_naming_the_file_and_the_entry(tmp_path: Path, old: str, new: str, message: str):
    text = PATH.read_text()
    assert old in text
    bad = tmp_path / "reasoning.toml"
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(SpecError) as err:
        load_topic(bad)
    assert message in str(err.value) and "reasoning.toml" in str(err.value) and "\n" not in str(err.value)


def test_a_missing_source_is_refused(tmp_path: Path):
    text = PATH.read_text()
    start = text.index("[llgtrt]")
    bad = tmp_path / "reasoning.toml"
    kept = (line for line in text[start:].splitlines() if not line.startswith("source"))
    bad.write_text(text[:start] + "\n".join(kept))
    with pytest.raises(SpecError, match=r"\[llgtrt\]: source must be non-empty text"):
        load_topic(bad)


def test_reasoning_kv_by_hand():
    # KV a token: 2 x 80 x 8 x 128 x 2 B = 327,680 B. Budget: 4 x 80e9 - 70e9 x 2 - 4 x 4e9 = 164e9 B.
    # On average a request holds 1,000 + 16,000 / 2 = 9,000 tokens = 2,949,120,000 B: floor(55.6) = 55.
    # Reserving the whole output: 17,000 tokens = 5,570,560,000 B: floor(29.4) = 29. One copy (4 GPUs <= 8 heads).
    s = solve_reasoning_kv({**HAND_KV, "mode": "average"})
    assert (s["kv_per_token"], s["budget"], s["copies"]) == (327680, 164e9, 1)
    assert (s["mean_tokens"], s["answer"], s["reserved"]) == (9000, 55, 29)
    assert solve_reasoning_kv({**HAND_KV, "mode": "reserve"})["answer"] == 29
    # on 16 GPUs each KV head is held twice: 16 x 80e9 - 140e9 - 64e9 = 1,076e9 over 2 x 2.94912e9 -> 182
    assert solve_reasoning_kv({**HAND_KV, "gpus": 16, "mode": "average"})["answer"] == 182


def test_grammar_mask_by_hand():
    # W = 8e9 x 2 B / 3.35e12 B/s = 4.7761 ms; c = 131,072,000 B / 3.35e12 = 39.126 us.
    # One thread, 728 us a mask: 4.7761 / (0.728 - 0.039126) = 6.933 -> from 7 sequences.
    hand = dict(params=8e9, bytes_per_weight=2, gpus=1, bandwidth=3.35e12, kv_per_seq=131_072_000.0, mask=728e-6,
                threads=1, draft_tokens=0)
    s = solve_grammar_mask(hand)
    assert s["crossover"] == pytest.approx(16e9 / 3.35e12 / (728e-6 - 131_072_000 / 3.35e12))
    assert s["answer"] == 7
    assert s["cpu_at"] > s["gpu_at"]  # at 7 the masks already take longer ...
    w, c, m = 16e9 / 3.35e12, 131_072_000 / 3.35e12, 728e-6
    assert 6 * m < w + 6 * c  # ... and at 6 not yet
    # 4 drafts on 8 threads: 5 x 728 / 8 = 455 us a sequence: 4.7761 / (0.455 - 0.039126) = 11.48 -> 12
    assert solve_grammar_mask({**hand, "threads": 8, "draft_tokens": 4})["answer"] == 12
    # 64 us over 8 threads is below the KV read: never (0)
    assert solve_grammar_mask({**hand, "threads": 8, "mask": 64e-6})["answer"] == 0


def _kind(name: str):
    return generate(name, 12, settings()["seed"], BY_NAME[name].draw, BY_NAME[name].solve)


def test_every_reasoning_kv_problem_solved_by_hand():
    problems = _kind("reasoning-kv")
    assert {p.variant for p in problems} == {"average", "reserve"}
    for p in problems:
        i = p.inputs
        kv_token = 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * i["bytes_per_kv"]
        budget = i["gpus"] * (i["memory"] - i["reserve"]) - i["params"] * i["bytes_per_weight"]
        copies = max(1, i["gpus"] / i["kv_heads"])
        held = i["prompt"] + (i["output"] / 2 if i["mode"] == "average" else i["output"])
        assert p.answer == math.floor(budget / (copies * kv_token * held)) >= 1, p.id


def test_every_grammar_mask_problem_solved_by_hand():
    problems = _kind("grammar-mask")
    assert {p.variant for p in problems} == {"plain", "speculative"}
    for p in problems:
        i = p.inputs
        w = i["params"] * i["bytes_per_weight"] / (i["gpus"] * i["bandwidth"])
        c = i["kv_per_seq"] / (i["gpus"] * i["bandwidth"])
        per = (i["draft_tokens"] + 1) * i["mask"] / i["threads"]
        b = p.answer
        # the first whole batch at which the masks outlast the floor: past it at b, not yet at b - 1
        assert b * per > w + b * c and (b - 1) * per <= w + (b - 1) * c, p.id
        assert (i["draft_tokens"] > 0) == (p.variant == "speculative"), p.id
