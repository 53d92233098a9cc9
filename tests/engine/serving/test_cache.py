"""The cache of simulated runs (macros/engine/serving/cache.py): a cached run is the run, every input is in
its name, a file cut short is simulated again, and runs of other code or data are deleted."""

from __future__ import annotations

import dataclasses

from macros.engine.serving import cache
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


def test_runs_of_other_code_or_data_are_deleted_and_this_codes_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    cache._prune.cache_clear()
    other, mine = tmp_path / f"{'0' * 16}-abc.json", tmp_path / f"{cache.inputs_digest()[:16]}-abc.json"
    other.write_text("{}")
    mine.write_text("{}")
    cache.cached_run(TINY)
    assert not other.exists() and mine.exists()
