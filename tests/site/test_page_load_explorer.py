"""The Load explorer page: its page model sweeps the replica workloads.toml names, its knee is where the
definition puts it, and the built page carries the model's figures (the interactive part is the serving
twin's, held to the Python by tests/js/)."""

from __future__ import annotations

import re
from pathlib import Path

from macros.engine.serving.sweep import KNEE_FACTOR, SWEEP_FRACTIONS
from macros.engine.workloads import workloads
from macros.site.pages import load_explorer as page
from macros.text import fmt


def _text(site: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (site / "load-explorer" / "index.html").read_text()))


def test_the_page_model_sweeps_the_replica_workloads_toml_names():
    q, w = page.model(), workloads()
    assert q.start == {"model": w["load_model"], "gpu": w["load_gpu"], "gpus": w["load_gpus"],
                       "engine": w["load_engine"], "input_tokens": w["prompt_tokens"],
                       "output_tokens": w["load_output_tokens"]}
    assert len(q.points) == len(SWEEP_FRACTIONS) and (q.light, q.heavy) == (q.points[0], q.points[-1])


def test_the_knee_is_where_p99_ttft_first_passes_twice_the_lightest():
    q = page.model()
    assert KNEE_FACTOR == 2.0
    limit = 2.0 * q.light.ttft_p99_s
    at = q.points.index(q.knee)  # the worked replica has a knee inside the sweep
    assert 0 < at < len(q.points) - 1
    assert all(p.ttft_p99_s <= limit for p in q.points[1:at + 1]) and q.points[at + 1].ttft_p99_s > limit
    assert q.example_rate_per_s == q.knee.rate_per_s
    # Queueing: past the capacity the replica serves less than arrives, and the tail is far worse.
    assert q.heavy.requests_per_s < q.heavy.rate_per_s and q.heavy_over_light_p99 > KNEE_FACTOR


def test_the_page_carries_the_sweep(built_site: Path):
    q, text = page.model(), _text(built_site)
    assert f"Its capacity is {fmt.num(q.capacity_per_s)} requests/s" in text
    assert f"The knee is at {fmt.num(q.knee.rate_per_s)} requests/s" in text
    assert f"the 99th-percentile TTFT is {fmt.seconds(q.heavy.ttft_p99_s)}" in text
    html = (built_site / "load-explorer" / "index.html").read_text()
    assert 'data-tool="load" data-start="{&quot;model&quot;' in html  # the form's start, escaped in the attribute
