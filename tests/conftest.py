"""Shared fixtures: the repository root, a built site, and CI's rule that a skip is a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build_site(project: Path, site_dir: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run a strict `mkdocs build` of `project` into `site_dir`, as CI does."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MACROS_FAIL": "true", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project / "mkdocs.yml"),
         "-d", str(site_dir)],
        cwd=project, env=env, capture_output=True, text=True, timeout=600,
    )


def copy_project(dest: Path) -> Path:
    """A copy of the project without build output, caches or the virtualenv."""
    anywhere = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    at_root = {".venv", "site", ".git", ".cache"}  # only the build output `site/`, not macros/site/

    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(anywhere(folder, names)) | (at_root & set(names) if Path(folder) == ROOT else set())

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real project, built once per test session."""
    site = tmp_path_factory.mktemp("site")
    result = build_site(ROOT, site)
    assert result.returncode == 0, f"strict build failed:\n{result.stdout}\n{result.stderr}"
    return site


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Under CI (CI=true) a skipped test fails: a missing browser must not pass silently."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") == "true" and report.skipped and call.when in ("setup", "call"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which counts as a failure: {reason}"
