"""The build's memo (macros/engine/memo.py): off, a memoized function computes every time; on, an answer is
computed once per value of the arguments (a dataclass by its fields, so an edited copy is a new question), and
a failure is never remembered."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine import memo


@dataclasses.dataclass(frozen=True)
class Shape:
    gpus: int
    extras: dict


def counted():
    calls = []

    @memo.memoized
    def area(shape: Shape, scale: float = 1.0) -> float:
        calls.append(shape)
        if shape.gpus < 0:
            raise ValueError("no negative GPUs")
        return shape.gpus * scale

    return area, calls


@pytest.fixture
def switched_on():
    memo.switch_on()
    yield
    memo.switch_off()


def test_off_it_computes_every_time():
    area, calls = counted()
    assert area(Shape(4, {})) == area(Shape(4, {})) == 4
    assert len(calls) == 2


def test_on_it_computes_once_per_value_and_an_edited_copy_is_a_new_question(switched_on):
    area, calls = counted()
    one = Shape(4, {"note": [1, 2]})
    assert area(one) == area(Shape(4, {"note": [1, 2]})) == area(one) == 4  # equal values: one computation
    assert len(calls) == 1
    assert area(dataclasses.replace(one, gpus=8)) == 8  # another value: computed
    assert area(one, scale=2.0) == 8 and area(one, 2.0) == 8  # keyword and position are different keys
    assert area(Shape(4, {"note": [1, 3]})) == 4  # a field's contents count too
    assert len(calls) == 5


def test_a_failure_is_not_remembered(switched_on):
    area, calls = counted()
    for _ in range(2):
        with pytest.raises(ValueError, match="no negative GPUs"):
            area(Shape(-1, {}))
    assert len(calls) == 2


def test_switched_off_it_forgets(switched_on):
    area, calls = counted()
    area(Shape(4, {}))
    memo.switch_off()
    memo.switch_on()
    area(Shape(4, {}))
    assert len(calls) == 2


def kept(tmp_path, monkeypatch, data: str = "data v1"):
    """A function memoized with keep=True, its code and data named by the test (what sources.digest and the data
    files would give), switched on with a folder in tmp_path."""
    monkeypatch.setattr(memo.sources, "digest", lambda module: "code v1")
    monkeypatch.setattr(memo, "data_digest", lambda: data)
    calls = []

    @memo.memoized(keep=True)
    def area(shape: Shape) -> float:
        calls.append(shape)
        return shape.gpus * 2.0

    memo.switch_on(tmp_path / "kept")
    return area, calls


def test_a_kept_answer_is_read_by_the_next_build_and_not_computed_again(tmp_path, monkeypatch):
    area, calls = kept(tmp_path, monkeypatch)
    try:
        assert area(Shape(4, {})) == 8.0 and len(calls) == 1
        memo.switch_off()  # the build ends; the next one starts with an empty memo and the same folder
        memo.switch_on(tmp_path / "kept")
        assert area(Shape(4, {})) == 8.0 and len(calls) == 1  # read from the folder
        assert area(Shape(5, {})) == 10.0 and len(calls) == 2  # another value: computed
        assert len(list((tmp_path / "kept").glob("*.pickle"))) == 2
    finally:
        memo.switch_off()


def test_changed_data_or_code_names_every_answer_afresh(tmp_path, monkeypatch):
    area, calls = kept(tmp_path, monkeypatch)
    try:
        area(Shape(4, {}))
        memo.switch_off()
        monkeypatch.setattr(memo, "data_digest", lambda: "data v2")  # a data file edited
        memo.switch_on(tmp_path / "kept")
        area(Shape(4, {}))
        memo.switch_off()
        monkeypatch.setattr(memo.sources, "digest", lambda module: "code v2")  # the code edited
        memo.switch_on(tmp_path / "kept")
        area(Shape(4, {}))
        assert len(calls) == 3
    finally:
        memo.switch_off()


def test_without_a_folder_or_off_nothing_is_kept(tmp_path, monkeypatch):
    area, calls = kept(tmp_path, monkeypatch)
    memo.switch_off()
    memo.switch_on()  # a build whose simulations are watched keeps nothing
    try:
        area(Shape(4, {}))
        memo.switch_off()
        memo.switch_on()
        area(Shape(4, {}))
        assert len(calls) == 2 and not (tmp_path / "kept").exists()
    finally:
        memo.switch_off()


def test_memoizing_a_memoized_function_wraps_it_once(switched_on):
    # the registry memoizes every page model, some of which memoize themselves for their direct callers
    area, calls = counted()
    assert memo.memoized(area) is area
    assert memo.memoized(area, keep=True) is not area  # keeping on disk as well is a different wrapper
