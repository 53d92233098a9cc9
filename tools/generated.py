#!/usr/bin/env python3
"""Writes, or checks, every generated file the repository keeps (the list: macros/engine/generated.py).

    python3 tools/generated.py           # rewrite them all: `make generated`, after any change to the engine or data
    python3 tools/generated.py --check   # say which are stale, exit 1 if any (tests/test_generated.py checks each)

The simulations memo is rewritten by a strict build with drawings off that stores every run the pages ask for
(SIMULATIONS=memo-write): the runs already cached under .cache/ are read, not simulated again. The suite's runs
(tests/simulated/) are the runs the test suite's what-if builds ask for beyond the memo, written by those builds,
and the runs `make check`'s tests simulate, written by running that tier once (named in tests/simulated/check-tier.txt).
The fitted model (calibration.toml) takes `make calibrate`; this only checks it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from macros.engine.generated import CALIBRATION, CHECK_TIER_LIST, KEPT, MEMO, TEXT_ARTIFACTS, Artifact  # noqa: E402


def tool(artifact: Artifact) -> ModuleType:
    """The artifact's generator, imported from its file (tools/ is not a package: its scripts import each other as
    siblings, as when run from the command line)."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location(Path(artifact.tool).stem, ROOT / artifact.tool)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stale(artifact: Artifact) -> bool:
    """Whether the committed file differs from what its generator writes now."""
    if artifact is CALIBRATION:  # fitted to both measured files: either changed, and the fit is stale
        from macros.engine.calibration.measured import data_hash
        from macros.engine.calibration.mlperf import PATH as MLPERF
        from macros.engine.serving.calibration import calibration
        cal = calibration()
        return cal.data_sha256 != data_hash() or cal.raw.get("data", {}).get("mlperf_sha256") != data_hash(MLPERF)
    out = ROOT / artifact.path
    return not out.is_file() or out.read_text() != tool(artifact).text()


def write_memo() -> None:
    memo = ROOT / MEMO.path
    shutil.rmtree(memo, ignore_errors=True)
    env = {**os.environ, "SIMULATIONS": "memo-write", "DRAWINGS": "off", "NO_MKDOCS_2_WARNING": "1"}
    with tempfile.TemporaryDirectory() as site:
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", site], cwd=ROOT, env=env,
                       check=True)
    print(f"wrote {MEMO.path}/ ({len(list(memo.glob('*.json')))} runs)")


def logged(log: Path) -> dict[str, str]:
    """A SIMULATIONS_LOG: run file name -> where it was held ("memo", "kept" or "missing")."""
    return dict(line.split() for line in log.read_text().splitlines()) if log.is_file() else {}


def write_kept() -> None:
    """Build each of the suite's what-ifs (two at a time, each on its own copy and cache) and keep in tests/simulated/
    every run they ask for that the memo lacks. A run kept before is read, not simulated again; the copies that
    come later read what the earlier ones kept (the changed project, last, reads the x1.4 bandwidth's runs)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from whatif import FAILED, SUITE, WHATIFS, run

    kept = ROOT / KEPT.path
    kept.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        def build(i: int, name: str) -> set[str]:
            folder = Path(tmp) / str(i)
            folder.mkdir()
            env = {"SIMULATIONS_CACHE": str(folder / "cache"), "SIMULATIONS_KEPT": str(kept),
                   "SIMULATIONS_LOG": str(folder / "log")}
            out = run(WHATIFS[name], folder, env, timeout=None)  # on empty caches: every run it touches, simulated
            if out.verdict == FAILED:
                raise SystemExit(f"what-if {name!r} failed to build:\n" + "\n".join(out.lines))
            asked = {n for n, held in logged(folder / "log").items() if held != "memo"}
            for n in asked - {p.name for p in kept.iterdir()}:
                shutil.copyfile(folder / "cache" / n, kept / n)
            return asked

        with ThreadPoolExecutor(2) as pool:
            needed = set().union(*pool.map(build, range(len(SUITE)), SUITE))
        quick = check_tier_runs(Path(tmp) / "check", kept)
    (kept / CHECK_TIER_LIST).write_text("".join(f"{n}\n" for n in sorted(quick)))
    for old in {p.name for p in kept.glob("*.json")} - needed - quick:
        (kept / old).unlink()
    print(f"wrote {KEPT.path}/ ({len(needed)} what-if runs, {len(quick - needed)} more for make check)")


def check_tier_runs(folder: Path, kept: Path) -> set[str]:
    """Run make check's tier (the tests marked neither site nor slow) on empty caches and keep every run it
    simulates beyond the memo: a fresh clone's `make check` then reads them. Returns their names."""
    folder.mkdir()
    env = {**os.environ, "SIMULATIONS_CACHE": str(folder / "cache"), "SIMULATIONS_LOG": str(folder / "log"),
           "SIMULATIONS_KEPT": str(kept)}
    tier = subprocess.run([sys.executable, "-m", "pytest", "tests", "-q", "-m", "not site and not slow", "-p",
                           "no:cacheprovider", f"--basetemp={folder / 'pytest'}"], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL)
    if tier.returncode != 0:  # its runs are kept all the same: a failing test is make check's to report
        print("make check's tier failed while its runs were kept: run `make check`", file=sys.stderr)
    asked = {n for n, held in logged(folder / "log").items() if held != "memo"}
    # In the tests' own process a run is cached where SIMULATIONS_CACHE said; in a command they start, in the
    # session's folder (tests/conftest.py, shared_simulations).
    for n in asked - {p.name for p in kept.iterdir()}:
        made = [f for f in (folder / "cache" / n, folder / "pytest" / "simulations" / n) if f.is_file()]
        if made:
            shutil.copyfile(made[0], kept / n)
    return {n for n in asked if (kept / n).is_file()}


def main() -> int:
    if "--check" in sys.argv:
        old = [a for a in (*TEXT_ARTIFACTS, CALIBRATION) if stale(a)]
        for a in old:
            print(f"{a.path} ({a.name}) is stale: run `{a.command}`", file=sys.stderr)
        return int(bool(old))
    write_memo()  # first: the vectors' plans read the runs it caches, and the what-ifs read the memo
    for a in TEXT_ARTIFACTS:
        text = tool(a).text()
        out = ROOT / a.path
        if not out.is_file() or out.read_text() != text:
            out.write_text(text)
            print(f"wrote {a.path} ({a.name})")
    write_kept()  # last: make check's tier, run to keep its runs, checks the files above
    if stale(CALIBRATION):
        print(f"{CALIBRATION.path} was fitted to other measured runs: run `{CALIBRATION.command}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
