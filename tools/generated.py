#!/usr/bin/env python3
"""Writes, or checks, every generated file the repository keeps (the list: macros/engine/generated.py).

    python3 tools/generated.py           # rewrite them all: `make generated`, after any change to the engine or data
    python3 tools/generated.py --check   # say which are stale, exit 1 if any (tests/test_generated.py checks each)

The simulations memo is rewritten by a strict build with drawings off that stores every run the pages ask for
(SIMULATIONS=memo-write): the runs already cached under .cache/ are read, not simulated again. The fitted model
(calibration.toml) takes `make calibrate`; this only checks it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from macros.engine.generated import CALIBRATION, MEMO, TEXT_ARTIFACTS, Artifact  # noqa: E402


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


def main() -> int:
    if "--check" in sys.argv:
        old = [a for a in (*TEXT_ARTIFACTS, CALIBRATION) if stale(a)]
        for a in old:
            print(f"{a.path} ({a.name}) is stale: run `{a.command}`", file=sys.stderr)
        return int(bool(old))
    write_memo()  # first: the vectors' plans read the runs it caches
    for a in TEXT_ARTIFACTS:
        text = tool(a).text()
        out = ROOT / a.path
        if not out.is_file() or out.read_text() != text:
            out.write_text(text)
            print(f"wrote {a.path} ({a.name})")
    if stale(CALIBRATION):
        print(f"{CALIBRATION.path} was fitted to other measured runs: run `{CALIBRATION.command}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
