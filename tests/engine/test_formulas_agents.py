"""The agent-loop formulas (macros/engine/formulas/agents.py) against values derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from macros.engine import formulas as f


def test_task_prompt_tokens_is_quadratic_in_the_steps():
    # 3 steps from a 1,000-token first prompt, 100 appended each: 1,000 + 1,100 + 1,200 = 3,300
    assert f.task_prompt_tokens(3, 1000, 100) == 3300
    # 50 steps from 10,400, 800 a step: 50 x 10,400 + 800 x 50 x 49 / 2 = 520,000 + 980,000
    assert f.task_prompt_tokens(50, 10_400, 800) == 1_500_000


def test_task_mean_prompt_tokens():
    # 3,300 / 3 = 1,100 = 1,000 + 100 x 2 / 2
    assert f.task_mean_prompt_tokens(3, 1000, 100) == pytest.approx(1100)
    # 10,400 + 800 x 49 / 2 = 30,000: the agent design's prompt_tokens
    assert f.task_mean_prompt_tokens(50, 10_400, 800) == pytest.approx(30_000)


def test_task_hit_rate_ceiling():
    # 3 steps, 1,000-token first prompt of which 400 are the task's own, 100 appended a step:
    # new = 400 + 100 x 2 = 600 of 3,300, so 1 - 600 / 3,300 = 0.81818...
    assert f.task_hit_rate_ceiling(3, 1000, 400, 100) == pytest.approx(1 - 600 / 3300)
    # the design: new = 2,400 + 800 x 49 = 41,600 of 1,500,000: 0.972267
    assert f.task_hit_rate_ceiling(50, 10_400, 2400, 800) == pytest.approx(0.972267, abs=1e-6)
    # one step: only the task's own prefix misses
    assert f.task_hit_rate_ceiling(1, 1000, 400, 100) == pytest.approx(0.6)


def test_task_time_s():
    # 50 x (0.05 + 300 x 0.05 + 10) = 50 x 25.05 = 1,252.5 s
    assert f.task_time_s(50, 0.05, 300, 0.05, 10) == pytest.approx(1252.5)


def test_any_step_beyond_quantile():
    # 1 - 0.99^2 = 0.0199; 1 - 0.95^1 = 0.05
    assert f.any_step_beyond_quantile(0.99, 2) == pytest.approx(0.0199)
    assert f.any_step_beyond_quantile(0.95, 1) == pytest.approx(0.05)
    assert f.any_step_beyond_quantile(np.array([0.99, 0.5]), 2) == pytest.approx([0.0199, 0.75])


def test_idle_sequences_and_tasks_in_flight():
    # 100 running, 10 s of tool for every 20 s of model: 50 waiting
    assert f.idle_sequences(100, 10, 20) == pytest.approx(50)
    # Little's law: 5 tasks/s for 1,000 s each is 5,000 under way
    assert f.tasks_in_flight(5, 1000) == pytest.approx(5000)


def test_kept_share_and_blended_hit_rate():
    assert f.kept_share(100e9, 400e9) == pytest.approx(0.25)
    assert f.kept_share(500e9, 400e9) == 1.0
    # a quarter keep 90%, the rest keep 20%: 0.225 + 0.15 = 0.375
    assert f.blended_hit_rate(0.25, 0.9, 0.2) == pytest.approx(0.375)
