#!/usr/bin/env python3
"""What-ifs: change one input as a reader might, rebuild a copy of the site, and see what it says.

    python3 tools/whatif.py --list                       # the table of what-ifs
    python3 tools/whatif.py "h100 bf16_flops x0.6"       # one of them
    python3 tools/whatif.py --all                        # every one, and a results table

Each what-if is applied to a copy of the project in a temporary folder, which is built as CI
builds it (strict, drawings off) with `-q`. The verdict is one of three: built green; failed
only with "broken assumption" lines (a sentence whose figures no longer hold it up, named on
one line each: a writer can act on them); or failed otherwise (an exception or another error:
the first lines are shown). Exit code: 0 when every what-if run is green, 1 otherwise.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path("macros") / "data"
PREFIX = "broken assumption"  # macros/site/assumptions.py starts every message with it
GREEN, BROKEN, FAILED = "green", "broken assumptions", "failed"
SKIP = {".venv", ".git", ".pytest_cache", "site", "site-offline", "node_modules", ".cache"}


@dataclass(frozen=True)
class WhatIf:
    """One change: `apply` edits the copy of the project in place."""

    name: str
    apply: Callable[[Path], None]


@dataclass(frozen=True)
class Outcome:
    verdict: str  # GREEN, BROKEN or FAILED
    lines: list[str]  # the broken-assumption messages, or the first lines of another failure
    site: Path


def _table_span(text: str, table: str) -> tuple[int, int]:
    """Where the body of `[table]` (up to the next header) is in a TOML file's text."""
    head = re.search(rf"^\[{re.escape(table)}\]\s*$", text, re.M)
    if head is None:
        raise KeyError(f"no [{table}] table")
    nxt = re.search(r"^\[", text[head.end():], re.M)
    return head.end(), head.end() + nxt.start() if nxt else len(text)


def _field(text: str, table: str, field: str) -> re.Match[str]:
    start, end = _table_span(text, table)
    m = re.compile(rf"^{re.escape(field)}\s*=\s*([^#\n]+?)\s*(#.*)?$", re.M).search(text, start, end)
    if m is None:
        raise KeyError(f"[{table}] has no {field}")
    return m


def set_field(project: Path, file: str, table: str, field: str, value: Callable[[float], float]) -> None:
    """Replace one number in one table of a data file by `value(old)`."""
    path = project / DATA / file
    text = path.read_text()
    m = _field(text, table, field)
    new = value(float(m.group(1).replace("_", "")))
    path.write_text(text[:m.start(1)] + repr(new) + text[m.end(1):])


def scaled(file: str, table: str, field: str, factor: float) -> WhatIf:
    return WhatIf(f"{table} {field} x{factor:g}",
                  lambda p: set_field(p, file, table, field, lambda v: v * factor))


def set_to(file: str, table: str, field: str, value: float, name: str) -> WhatIf:
    return WhatIf(name, lambda p: set_field(p, file, table, field, lambda _: value))


def every_price(factor: float) -> WhatIf:
    def apply(project: Path) -> None:
        text = (project / DATA / "prices.toml").read_text()
        for table in re.findall(r"^\[([\w.-]+)\]\s*$", text, re.M):
            for field in ("low", "high", "typical"):
                set_field(project, "prices.toml", table, field, lambda v: v * factor)
    return WhatIf(f"every price x{factor:g}", apply)


def new_gpu(source: str, key: str) -> WhatIf:
    """A GPU added by copying an existing entry (and its sources) under a new key and name."""
    def apply(project: Path) -> None:
        path = project / DATA / "gpus.toml"
        text = path.read_text()
        start = re.search(rf"^\[{re.escape(source)}\]\s*$", text, re.M).start()
        _, end = _table_span(text, f"{source}.sources")
        entry = text[start:end].replace(f"[{source}]", f"[{key}]").replace(f"[{source}.sources]", f"[{key}.sources]")
        entry = re.sub(r'^name = "(.*)"', r'name = "\1 (copy)"', entry, count=1, flags=re.M)
        path.write_text(text.rstrip("\n") + "\n\n" + entry.rstrip("\n") + "\n")
    return WhatIf(f"new GPU {key} (a copy of {source})", apply)


def precision_size(key: str, factor: float) -> WhatIf:
    """A format's element size scaled, its stored bytes following its layout (precisions.toml's rule)."""
    def apply(project: Path) -> None:
        path = project / DATA / "precisions.toml"
        text = path.read_text()
        bits = round(float(_field(text, key, "element_bits").group(1)) * factor)  # a whole number of bits
        try:
            scale = float(_field(text, key, "scale_bits").group(1)) / float(_field(text, key, "block_size").group(1))
        except KeyError:
            scale = 0.0
        set_field(project, "precisions.toml", key, "element_bits", lambda _: bits)
        set_field(project, "precisions.toml", key, "bytes", lambda _: (bits + scale) / 8)
    return WhatIf(f"{key} size x{factor:g}", apply)


GPU_FIELDS = ("memory_bytes", "bandwidth_bytes_per_s", "bf16_flops", "fp8_flops", "bf16_sparse_flops",
              "interconnect_bytes_per_s")
PRECISIONS = ("bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "nvfp4")

WHATIFS: dict[str, WhatIf] = {w.name: w for w in [
    WhatIf("nothing changed", lambda project: None),  # the baseline, built as the others are
    *(scaled("gpus.toml", gpu, field, factor) for gpu in ("h100", "h200") for field in GPU_FIELDS
      for factor in (0.6, 1.4)),
    # the changes first tried by hand
    scaled("gpus.toml", "h100", "bf16_flops", 0.5),
    set_to("gpus.toml", "h100", "bandwidth_bytes_per_s", 2.0e12, "h100 bandwidth 2.0 TB/s"),
    set_to("gpus.toml", "h100", "memory_bytes", 64e9, "h100 memory 64 GB"),
    set_to("gpus.toml", "h200", "bandwidth_bytes_per_s", 6e12, "h200 bandwidth 6 TB/s"),
    every_price(0.5), every_price(2),
    new_gpu("h100", "h100-nvl"),
    WhatIf("llama-70b layers 96", lambda p: set_field(p, "models.toml", "llama-70b", "layers", lambda _: 96)),
    *(precision_size(key, 1.5) for key in PRECISIONS),
]}


def _changed_project(project: Path) -> None:
    WHATIFS["h100 bandwidth_bytes_per_s x1.4"].apply(project)
    set_field(project, "designs/consumer-chat.toml", "traffic", "requests_per_day", lambda v: v * 2)


# The test suite's "changed project" (tests/conftest.py): a spec edit and a workload edit in one copy.
CHANGED_PROJECT = WhatIf("h100 bandwidth x1.4 and consumer-chat traffic x2", _changed_project)
WHATIFS[CHANGED_PROJECT.name] = CHANGED_PROJECT

# The what-ifs the test suite builds (tests/site/test_whatif.py, test_whatifs_build.py, conftest's changed project;
# the drawings test's spec change is the x1.4 bandwidth). The runs they ask for beyond the site's memo are kept in
# tests/simulated/ (`make generated` writes them), so the suite's copies of the project simulate nothing.
SUITE = ("nothing changed", "h100 bf16_flops x0.5", "h100 bandwidth_bytes_per_s x1.4", "every price x0.5",
         "llama-70b layers 96", "h200 memory_bytes x0.6", "h200 bandwidth_bytes_per_s x0.6", "h100 bandwidth 2.0 TB/s",
         "h100 memory 64 GB", CHANGED_PROJECT.name)


def copy_project(dest: Path) -> Path:
    def ignore(folder: str, names: list[str]) -> set[str]:
        top = SKIP & set(names) if Path(folder) == ROOT else set()
        return top | {n for n in names if n == "__pycache__"}

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def verdict(returncode: int, output: str) -> tuple[str, list[str]]:
    """Green, broken assumptions only (strict mode's exit code 1 and nothing but their lines), or failed."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    broken = [line.split(PREFIX, 1)[1].lstrip(": ") for line in lines if PREFIX in line]
    if returncode == 0 and not broken:
        return GREEN, []
    others = [line for line in lines if PREFIX not in line and not line.startswith("Aborted with")]
    if returncode == 1 and broken and not others:
        return BROKEN, broken
    if any(line.startswith("Traceback") for line in others):  # the exception is what names the cause
        others = [line for line in others if not line.startswith(("File ", "^", "Traceback"))][-3:]
    return FAILED, others[:12]


BUILD_TIMEOUT_S = 600  # a what-if the suite builds reads its kept runs; one on empty caches may take longer


def _build(project: Path, site: Path, quiet: bool, env_extra: dict[str, str] | None = None,
           timeout: float | None = BUILD_TIMEOUT_S) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MACROS_FAIL": "true", "DRAWINGS": "off", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", *(["-q"] if quiet else []),
                           "-d", str(site)], cwd=project, env=env, capture_output=True, text=True, timeout=timeout)


def run(what: WhatIf, folder: Path, env_extra: dict[str, str] | None = None,
        timeout: float | None = BUILD_TIMEOUT_S) -> Outcome:
    """Apply `what` to a copy of the project in `folder` and build it into folder/site (with `env_extra` in its
    environment), each build stopped after `timeout` seconds (None: no limit)."""
    project = copy_project(folder / "project")
    what.apply(project)
    result = _build(project, folder / "site", quiet=True, env_extra=env_extra, timeout=timeout)
    v, lines = verdict(result.returncode, result.stdout + result.stderr)
    if v == FAILED and not lines:  # a page error that -q did not show: build again without -q to read it
        loud = _build(project, folder / "site", quiet=False, env_extra=env_extra, timeout=timeout)
        said = [line for line in (loud.stdout + loud.stderr).splitlines()
                if line.startswith(("ERROR", "WARNING", "_")) and PREFIX not in line]
        lines = [f"exit code {result.returncode} under -q, nothing else printed; without -q:", *said[:6]]
    return Outcome(v, lines, folder / "site")


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "--list":
        print("\n".join(WHATIFS))
        return 0
    names = list(WHATIFS) if argv[0] == "--all" else argv
    unknown = [n for n in names if n not in WHATIFS]
    if unknown:
        print(f"whatif: no what-if named {unknown[0]!r} (see --list)", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix="whatif-") as tmp:
            out = run(WHATIFS[name], Path(tmp))
        rows.append((name, out))
        print(f"{name}: {out.verdict}", flush=True)
        for line in out.lines:
            print(f"    {line}", flush=True)
    if len(rows) > 1:
        print("\n| what-if | result |\n|---|---|")
        for name, out in rows:
            print(f"| {name} | {out.verdict}{f' ({len(out.lines)})' if out.lines else ''} |")
    return 0 if all(out.verdict == GREEN for _, out in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
