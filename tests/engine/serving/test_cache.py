"""The cache of simulated runs (macros/engine/serving/cache.py): a cached run is the run, every input is in
its name and nothing else is, a file cut short is simulated again, and the cache keeps its size. (That an edit
to a GPU renames that GPU's runs only is tested on the pages' own runs, in test_memo.py, which asks for them.)"""

from __future__ import annotations

import dataclasses
import os

from macros.engine import sources
from macros.engine.serving import cache
from macros.engine.serving import run as run_module
from macros.engine.serving.run import RunRequest, run

TINY = RunRequest(model="llama-3.1-8b", gpu="h100", gpus=1, input_tokens=200, output_tokens=5, concurrency=1,
                  requests=5)


def test_a_cached_run_is_the_run_and_every_input_names_it(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    fresh = run(TINY)
    assert cache.cached_run(TINY) == fresh  # simulated and stored ...
    assert (tmp_path / f"{cache.key(TINY)}.json").is_file()
    assert cache.cached_run(TINY) == fresh  # ... then read back
    others = [dataclasses.replace(TINY, **{name: value}) for name, value in
              (("seed", 1), ("prefix_hit_rate", 0.5), ("engine", "sglang"), ("requests", 6), ("input_tokens", 201))]
    assert len({cache.key(q) for q in [TINY, *others]}) == 1 + len(others)


def test_a_file_cut_short_is_simulated_again(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    (tmp_path / f"{cache.key(TINY)}.json").write_text('{"ttft_s": ')
    assert cache.cached_run(TINY) == run(TINY)


def test_past_its_size_the_cache_deletes_its_oldest_half(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    monkeypatch.setattr(cache, "CACHE_RUNS", 3)
    cache._prune.cache_clear()
    olds = [tmp_path / f"old{i}.json" for i in range(4)]
    for age, old in enumerate(olds):
        old.write_text("{}")
        os.utime(old, (age, age))  # old0 the oldest
    cache.cached_run(TINY)  # four runs, one over the size: the oldest two go before the new one is stored
    cache._prune.cache_clear()
    assert [o.exists() for o in olds] == [False, False, True, True]
    assert (tmp_path / f"{cache.key(TINY)}.json").is_file()


def test_no_simulated_run_reads_the_planner_the_export_the_text_or_the_pages():
    read = {p.relative_to(sources.PROJECT).as_posix() for p in sources.closure(run_module.__name__)}
    assert "macros/engine/serving/step.py" in read and "macros/engine/specs.py" in read
    for module in ("macros/engine/export.py", "macros/engine/fleet/planner.py",
                   "macros/engine/fleet/planner_simulated.py"):
        assert module not in read
    assert not any(path.startswith(("macros/site/", "macros/text/")) for path in read)
    # The formulas package re-exports every subject; a run imports the subjects it uses, so an edit to the RAG
    # or agents formulas (design arithmetic, not the step) re-simulates nothing.
    assert "macros/engine/formulas/__init__.py" not in read
    assert "macros/engine/formulas/rag.py" not in read and "macros/engine/formulas/agents.py" not in read


def test_a_comment_or_docstring_changes_no_code_digest_and_a_statement_does(tmp_path):
    plain = "def f(x):\n    return x + 1\n"
    worded = '"""A module."""\n\n\ndef f(x):  # the successor\n    """One more."""\n    return x + 1\n'
    changed = "def f(x):\n    return x + 2\n"
    texts = {}
    for name, text in (("plain", plain), ("worded", worded), ("changed", changed)):
        (tmp_path / f"{name}.py").write_text(text)
        texts[name] = sources.code(tmp_path / f"{name}.py")
    assert texts["plain"] == texts["worded"] != texts["changed"]
