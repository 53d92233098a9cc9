"""`make bench`: clean build time (target under 15 s), no-change rebuild time, the same build with
drawing switched off (DRAWINGS=off), and calculator start-up time. The no-change rebuild takes every drawing from
the cache, so it should cost little more than not drawing at all: the target is within 1.5x.
Last, the test suite from a warm cache: `make check`'s tier, median of three runs (target: at most 30 s on
the 2-core machine), and the whole suite once (target: at most 180 s), with the options `make test` gives it
(`make bench` passes them in PYTEST_ADDOPTS). Between the two, the first contentful paint of the
home page, a chapter and the numbers sheet on a phone under Slow-4G, served with gzip as a static
host serves them (tests/browser/first_paint.py; target under 2 s). A measurement to read, not a timed
test: timings on a shared machine are noisy.

    python tests/bench.py [--paint-only]   # --paint-only: one build, then the first paints
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))  # headless.py and first_paint.py


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, env={**os.environ, **(env or {})})
    return time.perf_counter() - start


def serving() -> None:
    """The serving simulator's speed on the longest measured run (1,280 requests of ~7,400 output tokens at
    concurrency 128), and the calibration's time as `make calibrate` last recorded it."""
    sys.path.insert(0, str(ROOT))
    from macros.engine.calibration.fitting import fit_data, simulate_measured_run
    from macros.engine.calibration.measured import runs
    from macros.engine.serving.calibration import calibration

    d = fit_data(runs())
    i = max(range(len(d.runs)), key=lambda j: d.runs[j].concurrency * d.runs[j].osl)
    values = calibration().values
    start = time.perf_counter()
    simulate_measured_run(d, i, values)
    took = time.perf_counter() - start
    n = d.runs[i].workload().requests
    print(f"simulator              {took:6.2f} s  for {d.runs[i].id} ({n} requests: {n / took:,.0f} requests/s; "
          f"target ≤ 2 s)")
    print(f"calibration            {calibration().raw['data']['seconds']:6.0f} s  (as `make calibrate` recorded it)")


# Dropped after the macros plugin (and every other) has rendered each page: its Markdown, written out as is.
_DUMP_HOOK = """
from pathlib import Path
from mkdocs.plugins import event_priority

@event_priority(-100)
def on_page_markdown(markdown, page, **kwargs):
    out = Path({out!r}) / page.file.src_uri
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown)
    return markdown
"""


def bare_project(tmp: Path) -> Path:
    """A project of the site's Markdown as its pages render (every macro already replaced), with Material, the same
    Markdown extensions and navigation, and search: what Material alone costs to build the same text, the
    yardstick for what the figures, drawings, typesetting and styles add."""
    from mkdocs.utils.yaml import yaml_load

    docs = tmp / "bare" / "docs"
    (tmp / "dump.py").write_text(_DUMP_HOOK.format(out=str(docs)))
    config = ROOT / ".bench-dump.yml"  # beside mkdocs.yml, so its relative paths hold
    config.write_text(f"INHERIT: mkdocs.yml\nhooks:\n  - macros/site/build/hooks.py\n  - {tmp / 'dump.py'}\n")
    try:
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(tmp / "full")],
                       cwd=ROOT, check=True, capture_output=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    finally:
        config.unlink()
    with (ROOT / "mkdocs.yml").open() as fh:
        ours = yaml_load(fh)
    bare = {"site_name": ours["site_name"], "theme": {k: v for k, v in ours["theme"].items() if k != "custom_dir"},
            "plugins": ["search"], "markdown_extensions": ours["markdown_extensions"], "nav": ours["nav"]}
    import yaml
    (tmp / "bare" / "mkdocs.yml").write_text(yaml.safe_dump(bare, sort_keys=False))
    return tmp / "bare"


def side_by_side(env: dict[str, str]) -> None:
    """A warm build of the site (every drawing and simulated run cached: nothing to draw or simulate) against a
    bare Material build of the same rendered Markdown, alternated five times in one run (target ≤ 2.5×)."""
    with tempfile.TemporaryDirectory() as tmp:
        bare = bare_project(Path(tmp))
        ours = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(Path(tmp) / "ours")]
        theirs = [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(bare / "mkdocs.yml"), "-d",
                  str(Path(tmp) / "theirs")]
        timed(ours, env)  # warm: the cache holds every drawing and run
        pairs = [(timed(ours, env), timed(theirs, env)) for _ in range(5)]
    warm, plain = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
    print(f"warm build             {warm:6.2f} s  (median of 5; nothing to draw or simulate)")
    print(f"bare Material build    {plain:6.2f} s  (the same rendered Markdown, median of 5)")
    print(f"warm / bare            {warm / plain:6.2f}×  (target ≤ 2.5×)")


def first_paints(site: Path) -> None:
    import first_paint
    import headless

    if headless.chromium() is None:
        print("first contentful paint: not measured, Chromium or Playwright is missing (make browser-deps)")
        return
    with headless.launch() as chromium:
        print("\n".join(first_paint.report(first_paint.measure_all(chromium, site))))


def main() -> None:
    parser = argparse.ArgumentParser(description="make bench: build times, first paints, test-suite times")
    parser.add_argument("--paint-only", action="store_true", help="one build, then the first paints only")
    paint_only = parser.parse_args().paint_only
    if not paint_only:
        serving()
    env = {"NO_MKDOCS_2_WARNING": "1"}
    with tempfile.TemporaryDirectory() as out:
        build = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", out]
        shutil.rmtree(ROOT / ".cache", ignore_errors=True)
        clean = timed(build, env)
        print(f"clean build            {clean:6.2f} s  (target < 15 s)")
        first_paints(Path(out))  # the site as built, before the builds below replace it
        if paint_only:
            return
        rebuilds = [timed(build, env) for _ in range(5)]
        drawings_off = [timed(build, {**env, "DRAWINGS": "off"}) for _ in range(5)]
    startup = [timed([sys.executable, "gpu_math.py", "--model", "llama-70b", "--gpu", "h100", "--json"])
               for _ in range(5)]
    side_by_side(env)
    rebuild, off = statistics.median(rebuilds), statistics.median(drawings_off)
    print(f"no-change rebuild      {rebuild:6.2f} s  (median of 5)")
    print(f"build, DRAWINGS=off    {off:6.2f} s  (median of 5)")
    print(f"rebuild / drawings off {rebuild / off:6.2f}×  (target ≤ 1.5×)")
    print(f"calculator start-up    {statistics.median(startup):6.3f} s  (median of 5; target < 0.3 s)")
    check = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not site and not slow",
             "tests/engine", "tests/text", "tests/js", *map(str, sorted((ROOT / "tests").glob("test_*.py")))]
    runs = [timed(check) for _ in range(3)]
    print(f"make check's tests      {statistics.median(runs):6.2f} s  (median of 3: "
          f"{', '.join(f'{s:.1f}' for s in runs)}; target ≤ 30 s)")
    whole = timed([sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider"])
    print(f"make test's tests      {whole:6.2f} s  (once, warm cache; target ≤ 180 s)")
    print(f"  pytest options: {os.environ.get('PYTEST_ADDOPTS') or 'none (serial)'}")


if __name__ == "__main__":
    main()
