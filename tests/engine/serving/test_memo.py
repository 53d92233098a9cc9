"""The repository's memo of simulated runs (macros/data/simulated/, serving/cache.py) holds every run the
pages need, so a clean build simulates nothing: with an empty cache and SIMULATIONS=memo-only, a run the memo
lacks is an error, and each page that prints simulated figures is worked out here. When this fails after a
change to the engine's code or data, `make generated` rewrites the memo (tests/test_generated.py checks that it
holds no run besides)."""

from __future__ import annotations

import dataclasses

import pytest

from macros.engine.serving import cache
from macros.engine.serving.run import RunRequest
from macros.engine.specs import catalog
from macros.site.pages import design, planner


@pytest.fixture
def memo_only(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path / "empty")
    monkeypatch.setenv(cache.MODE, "memo-only")


@pytest.fixture(scope="module")
def pages_runs(tmp_path_factory) -> list[RunRequest]:
    """Every run the site's pages ask the cache for (each design's simulated answer and the planner page), asked
    with an empty cache under memo-only: a run the memo lacks raises MissingRun here. Made once for both tests."""
    asked: list[RunRequest] = []
    real = cache.key

    def recording(q):
        asked.append(q if isinstance(q, RunRequest) else q.request)
        return real(q)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cache, "CACHE_DIR", tmp_path_factory.mktemp("empty"))
        mp.setenv(cache.MODE, "memo-only")
        mp.setattr(cache, "key", recording)
        planner.model()
        for slug in design.slugs():
            design.model(slug, infeasible_ok=True)  # its answers and the variants' are simulated as it is made
    return list(dict.fromkeys(asked))


# Every page model worked out (seconds): make test's tier. The site build's memo check
# (tests/test_generated.py) asks the same of the built pages; this one names a missing run without a build.
@pytest.mark.slow
def test_every_page_s_simulated_runs_are_in_the_memo(pages_runs):
    assert all((cache.MEMO_DIR / f"{cache.key(q)}.json").is_file() for q in pages_runs)


# Runs on four GPUs of three families, dense and MoE, under two engines and both layouts: every kind of entry a
# run reads from the data (its GPU, model, formats, engine and calibration scope).
KEYED_RUNS = [RunRequest(model=m, gpu=g, gpus=8, input_tokens=1000, output_tokens=200, engine=e, layout=lay,
                         concurrency=16)
              for m, lay in (("llama-3.1-70b", "tp"), ("mixtral-8x22b", "dp-attention"), ("gpt-oss-120b", "tp"))
              for g in ("h100", "h200", "b200", "mi300x") for e in ("vllm", "sglang")]


def test_a_gpu_edit_renames_that_gpu_s_runs_only_and_a_price_edit_none(monkeypatch):
    runs = KEYED_RUNS  # H200's runs share H100's family and fitted parameters, and must keep their names
    before = {q: cache.key(q) for q in runs}
    assert len(set(before.values())) == len(runs)  # each run its own name
    gpus, prices = catalog().gpus, catalog().prices
    on_h100 = [q for q in runs if q.gpu == "h100"]
    assert on_h100 and len(on_h100) < len(runs)  # other GPUs too, or the test proves nothing
    monkeypatch.setitem(prices, next(iter(prices)), dataclasses.replace(next(iter(prices.values())), typical=0.01))
    assert {q: cache.key(q) for q in runs} == before  # prices are read by no simulation
    monkeypatch.setitem(gpus, "h100", dataclasses.replace(gpus["h100"], bandwidth_bytes_per_s=4.35e12))
    after = {q: cache.key(q) for q in runs}
    assert {q for q in runs if after[q] != before[q]} == set(on_h100)


def test_a_run_the_memo_lacks_is_an_error_naming_the_remedy(memo_only):
    # A run no page asks for: the memo cannot hold it.
    q = RunRequest(model="llama-3.1-8b", gpu="h100", gpus=1, input_tokens=123, output_tokens=45, concurrency=3,
                   requests=30)
    with pytest.raises(cache.MissingRun, match="make generated"):
        cache.cached_run(q)

