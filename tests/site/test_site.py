"""The site builds strictly, every macro renders, errors stop the build instead of being
published, and no page asks another host for anything."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import build_site, copy_project

ERROR_MARKERS = ("{{", "{%", "Macro Rendering Error", "Traceback", "_TypeError_", "UndefinedError")
# What makes a browser fetch: src=, CSS url() and @import, and <link> tags other than the
# canonical/alternate ones (which only name a URL).
EXTERNAL = r"""(?:https?:)?//"""
FETCHES = [re.compile(r"""\bsrc\s*=\s*["']?""" + EXTERNAL, re.I),
           re.compile(r"""url\(\s*["']?""" + EXTERNAL, re.I),
           re.compile(r"""@import\s+["']""" + EXTERNAL, re.I),
           re.compile(r"""<link(?![^>]*rel="(?:canonical|alternate)")[^>]*href\s*=\s*["']?""" + EXTERNAL, re.I)]


def html_pages(site: Path) -> list[Path]:
    return [p for p in site.rglob("*.html")]


def test_every_page_rendered(built_site: Path):
    pages = html_pages(built_site)
    assert any(p.name == "index.html" for p in pages)
    for page in pages:
        text = page.read_text()
        for marker in ERROR_MARKERS:
            assert marker not in text, f"{page.relative_to(built_site)} contains {marker!r}"


def fetches_from_another_host(site: Path) -> list[str]:
    found = []
    for path in [*site.rglob("*.html"), *site.rglob("*.css"), *site.rglob("*.js")]:
        if "search" in path.parts and path.suffix == ".js":
            continue  # lunr's worker and the offline copy's inlined index: text, no fetches
        text = path.read_text(errors="replace")
        found += [f"{path.relative_to(site)}: {m.group(0)!r}" for pattern in FETCHES if (m := pattern.search(text))]
    return found


# The hosted site, the offline copy (`make offline`) and the page printed to PDF (`make pdf`).
@pytest.mark.parametrize("build", ["built_site", "offline_site", "print_site"])
def test_no_request_to_another_host(build: str, request: pytest.FixtureRequest):
    assert fetches_from_another_host(request.getfixturevalue(build)) == []


def test_the_check_catches_the_offline_plugins_own_shim(tmp_path: Path):
    # What Material's offline plugin adds by default (macros/hooks.py swaps in the vendored copy).
    (tmp_path / "index.html").write_text('<script src="https://unpkg.com/iframe-worker/shim"></script>')
    assert fetches_from_another_host(tmp_path) == ["index.html: 'src=\"https://'"]


def test_home_page_carries_computed_anchor(built_site: Path):
    text = (built_site / "index.html").read_text()
    assert "122 sequences" in text and "22.7 ms" in text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def test_undefined_macro_fails_the_build(project: Path, tmp_path: Path):
    (project / "docs" / "index.md").write_text("# Home\n\n{{ no_such_macro() }}\n")
    result = build_site(project, tmp_path / "out", {"DRAWINGS": "off"})
    assert result.returncode != 0
    page = tmp_path / "out" / "index.html"
    assert not page.exists() or "no_such_macro" not in page.read_text()


def test_unknown_model_in_a_page_fails_the_build(project: Path, tmp_path: Path):
    (project / "docs" / "index.md").write_text("# Home\n\n{{ scenario('llama-7b', 'h100').max_batch }}\n")
    result = build_site(project, tmp_path / "out", {"DRAWINGS": "off"})
    assert result.returncode != 0
    assert "unknown model 'llama-7b'" in result.stdout + result.stderr


def test_data_error_fails_the_build_in_one_line(project: Path, tmp_path: Path):
    gpus = project / "macros" / "data" / "gpus.toml"
    gpus.write_text(gpus.read_text().replace("bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = -1", 1))
    result = build_site(project, tmp_path / "out", {"DRAWINGS": "off"})
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "macros/data/gpus.toml: [h100] bandwidth_bytes_per_s must be a positive number, got -1" in output
    assert "Traceback" not in output
