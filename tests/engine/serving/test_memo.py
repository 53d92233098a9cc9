"""The repository's memo of simulated runs (macros/data/simulated/, serving/cache.py) holds every run the
pages need, so a clean build simulates nothing: with an empty cache and SIMULATIONS=memo-only, a run the memo
lacks is an error, and each page that prints simulated figures is worked out here. When this fails after a
change to the engine's code or data, `make generated` rewrites the memo (tests/test_generated.py checks that it
holds no run besides)."""

from __future__ import annotations

import pytest

from macros.engine.serving import cache
from macros.engine.serving.run import RunRequest
from macros.site.pages import design, planner


@pytest.fixture
def memo_only(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path / "empty")
    monkeypatch.setenv(cache.MODE, "memo-only")


def test_every_page_s_simulated_runs_are_in_the_memo(memo_only):
    planner.model()
    for slug in design.slugs():
        design.model(slug, infeasible_ok=True)  # its answers and the variants' are simulated as it is made


def test_a_run_the_memo_lacks_is_an_error_naming_the_remedy(memo_only):
    # A run no page asks for: the memo cannot hold it.
    q = RunRequest(model="llama-3.1-8b", gpu="h100", gpus=1, input_tokens=123, output_tokens=45, concurrency=3,
                   requests=30)
    with pytest.raises(cache.MissingRun, match="make generated"):
        cache.cached_run(q)

