"""The hosting recipe: the GitHub Pages workflow runs the README's build (the Makefile's targets, not
a copy of their commands), sets SITE_URL from the Pages address, and deploys with GitHub's own
actions pinned to a version. And the offline and print builds stay out of the hosted site."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
# A release tag (v6.0.3) or a full commit hash: never a moving major tag (v6) or a branch.
PINNED = re.compile(r"^actions/[\w.-]+@(v\d+\.\d+\.\d+|[0-9a-f]{40})$")
DEPLOY_ACTIONS = ("actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages")


def make_target_output(makefile: str, target: str) -> str | None:
    """The directory the target's `mkdocs build -d DIR` writes, or None without such a target."""
    match = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M)
    built = match and re.search(r"mkdocs build\b.*?-d (\S+)", match.group(1))
    return built.group(1) if built else None


def workflow_problems(workflow: dict[str, Any], makefile: str) -> list[str]:
    problems = []
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    uses = [step["uses"] for step in steps if "uses" in step]
    problems += [f"not pinned to a release of GitHub's own actions: {u}" for u in uses if not PINNED.match(u)]
    problems += [f"does not use {a}" for a in DEPLOY_ACTIONS if not any(u.startswith(a + "@") for u in uses)]

    build = [step for step in steps if re.search(r"^\s*make\b[^\n]*\bbuild\b", step.get("run", ""), re.M)]
    if not build:
        return problems + ["no step runs `make build`, the README's build"]
    site_dir = make_target_output(makefile, "build")
    if site_dir is None:
        problems.append("the Makefile has no `build` target running mkdocs build -d DIR")
    configure = next((s for s in steps if s.get("uses", "").startswith("actions/configure-pages@")), {})
    base_url = f"steps.{configure.get('id')}.outputs.base_url"
    if base_url not in str(build[0].get("env", {}).get("SITE_URL", "")):
        problems.append(f"the `make build` step does not set SITE_URL from {base_url}")
    upload = next((s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@")), {})
    if site_dir and str(upload.get("with", {}).get("path", "")).strip("./") != site_dir.strip("./"):
        problems.append(f"uploads {upload.get('with', {}).get('path')!r}, not the build's {site_dir!r}")
    permissions = workflow.get("permissions", {})
    problems += [f"needs permission {p}: write" for p in ("pages", "id-token") if permissions.get(p) != "write"]
    triggers = workflow.get("on", workflow.get(True, {}))  # YAML 1.1 reads the key `on` as True
    if "main" not in triggers.get("push", {}).get("branches", []):
        problems.append("does not deploy on a push to main")
    return problems


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text())


@pytest.fixture(scope="module")
def makefile() -> str:
    return (ROOT / "Makefile").read_text()


def test_the_pages_workflow_runs_the_readmes_build(workflow, makefile):
    assert make_target_output(makefile, "build") == "site"
    assert workflow_problems(workflow, makefile) == []


def _step(workflow: dict[str, Any], match: str) -> dict[str, Any]:
    return next(s for job in workflow["jobs"].values() for s in job.get("steps", [])
                if match in s.get("run", "") + s.get("uses", ""))


@pytest.mark.parametrize("breakage, expected", [
    (lambda w: _step(w, "make build").pop("env"), "does not set SITE_URL"),
    (lambda w: _step(w, "make build").update(run="pip install -r requirements.txt && mkdocs build"),
     "no step runs `make build`"),
    (lambda w: _step(w, "actions/checkout").update(uses="actions/checkout@v6"), "not pinned"),
    (lambda w: _step(w, "actions/deploy-pages").update(uses="peaceiris/actions-gh-pages@v4.0.0"),
     "does not use actions/deploy-pages"),
    (lambda w: _step(w, "upload-pages-artifact")["with"].update(path="docs"), "not the build's 'site'"),
    (lambda w: w["permissions"].pop("id-token"), "id-token: write"),
])
def test_the_check_catches_a_broken_workflow(workflow, makefile, breakage, expected):
    broken = copy.deepcopy(workflow)
    breakage(broken)
    assert any(expected in problem for problem in workflow_problems(broken, makefile))


def test_the_offline_and_print_builds_stay_out_of_the_hosted_site(built_site: Path):
    # Directory URLs (guide/roofline/) and no print page: the offline and print-site plugins are
    # off unless `make offline` or `make pdf` turns them on.
    assert (built_site / "guide" / "roofline" / "index.html").is_file()
    assert not (built_site / "guide" / "roofline.html").exists()
    assert not (built_site / "print_page").exists()
    assert not (built_site / "search" / "search_index.js").exists()


def test_the_offline_copy_links_files_and_inlines_its_search_index(offline_site: Path):
    assert (offline_site / "guide" / "roofline.html").is_file()
    assert (offline_site / "search" / "search_index.js").read_text().startswith("var __index = {")
    page = (offline_site / "guide" / "roofline.html").read_text()
    assert '<script src="../assets/iframe-worker/shim.js"></script>' in page
    # Instant navigation fetches pages, which file:// forbids: off in the copy, on in the hosted site.
    assert '"navigation.instant"' not in page


def test_the_hosted_site_keeps_instant_navigation(built_site: Path):
    assert '"navigation.instant"' in (built_site / "guide" / "roofline" / "index.html").read_text()
