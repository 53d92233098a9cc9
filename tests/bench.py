"""`make bench`: clean build time (target under 15 s), no-change rebuild time, the same build with
drawing switched off (DRAWINGS=off), and calculator start-up time. The no-change rebuild takes every drawing from
the cache, so it should cost little more than not drawing at all: the target is within 1.5x.
Last, the test suite from a warm cache, median of three runs (target: at most 60 s on the 2-core
machine), whole and without the browser tests (tests/browser), with the options `make test` gives it
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
    from macros.engine.serving.calibration import calibration
    from macros.engine.serving.fitting import fit_data, simulate_run
    from macros.engine.serving.measured import runs

    d = fit_data(runs())
    i = max(range(len(d.runs)), key=lambda j: d.runs[j].concurrency * d.runs[j].osl)
    values = calibration().values
    start = time.perf_counter()
    simulate_run(d, i, values)
    took = time.perf_counter() - start
    n = d.runs[i].workload().requests
    print(f"simulator              {took:6.2f} s  for {d.runs[i].id} ({n} requests: {n / took:,.0f} requests/s; "
          f"target ≤ 2 s)")
    print(f"calibration            {calibration().raw['data']['seconds']:6.0f} s  (as `make calibrate` recorded it)")


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
    rebuild, off = statistics.median(rebuilds), statistics.median(drawings_off)
    print(f"no-change rebuild      {rebuild:6.2f} s  (median of 5)")
    print(f"build, DRAWINGS=off    {off:6.2f} s  (median of 5)")
    print(f"rebuild / drawings off {rebuild / off:6.2f}×  (target ≤ 1.5×)")
    print(f"calculator start-up    {statistics.median(startup):6.3f} s  (median of 5; target < 0.3 s)")
    pytest = [sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider"]
    for label, cmd in (("test suite, warm cache", pytest),
                       ("  without tests/browser", [*pytest, "--ignore=tests/browser"])):
        runs = [timed(cmd) for _ in range(3)]
        print(f"{label:22s} {statistics.median(runs):6.2f} s  (median of 3: "
              f"{', '.join(f'{s:.1f}' for s in runs)}; target ≤ 60 s)")
    print(f"  pytest options: {os.environ.get('PYTEST_ADDOPTS') or 'none (serial)'}")


if __name__ == "__main__":
    main()
