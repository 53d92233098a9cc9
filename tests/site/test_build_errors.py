"""Errors are visible (macros/site/build/build_errors.py, macros/site/build/hooks.py): a page that fails to render is
one ERROR line naming the page, even under `mkdocs build -q`, with its traceback at DEBUG only; and a
build never publishes the error as the page's text. The record is the one mkdocs-macros 1.5.0 writes
(mkdocs_macros.errors.format_error, logged by trace() at WARNING), made here from a real exception."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
from conftest import copy_project
from mkdocs_macros.errors import format_error

from macros.engine.lookup import InputError
from macros.site.build import build_errors


def _report(error: Exception, markdown: str = "{{ x }}\n") -> str:
    """What mkdocs-macros logs for `error` raised while rendering docs/designs/rag.md."""
    page = SimpleNamespace(file=SimpleNamespace(src_path="designs/rag.md"))
    try:
        raise error
    except Exception as exc:  # format_error reads the traceback being handled, as in the plugin
        return format_error(exc, markdown=markdown, page=page)


def test_a_rendering_error_becomes_one_line_naming_the_page():
    text = _report(InputError("macros/data/designs/rag.toml: [variants.tp2]: the model is too big"))
    assert "Traceback" in text and text.count("\n") > 5  # what the plugin would print
    assert build_errors.one_line(text) == ("docs/designs/rag.md: InputError: macros/data/designs/rag.toml: "
                                           "[variants.tp2]: the model is too big")


def test_a_template_syntax_error_names_the_page_and_its_line():
    text = _report(jinja2.TemplateSyntaxError("unexpected '}'", lineno=2), markdown="# Title\n{{ x }}}\n")
    assert build_errors.one_line(text) == "docs/designs/rag.md:2: TemplateSyntaxError: unexpected '}'"


def test_other_records_are_not_rewritten():
    assert build_errors.one_line("[macros] - Macros arguments: {...}") is None


@pytest.fixture
def macros_logger() -> Iterator[logging.Logger]:
    """mkdocs-macros' logger with the filter installed, restored afterwards."""
    logger = logging.getLogger(build_errors.MACROS_LOGGER)
    filters, level = list(logger.filters), logger.level
    build_errors.install("docs")
    yield logger
    logger.filters[:] = filters
    logger.setLevel(level)


def test_the_filter_raises_the_record_to_error_and_keeps_quiet_for_the_rest(macros_logger, monkeypatch):
    mkdocs = logging.getLogger(build_errors.MKDOCS_LOGGER)
    monkeypatch.setattr(mkdocs, "level", logging.ERROR)  # what -q does
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append  # type: ignore[method-assign]
    monkeypatch.setattr(mkdocs, "handlers", [handler])
    macros_logger.warning(_report(ValueError("bad")))  # the plugin logs its page error at WARNING
    macros_logger.warning("[macros] - some other warning")  # -q hides this one, as before
    assert [(r.levelno, r.getMessage()) for r in seen] == [(logging.ERROR, "docs/designs/rag.md: ValueError: bad")]
    build_errors.install("docs")  # a second build (mkdocs serve) replaces the filter, not stacks it
    assert sum(type(f).__name__ == "OneLineErrors" for f in macros_logger.filters) == 1


def test_a_broken_page_under_q_prints_one_line_and_is_never_published(tmp_path: Path):
    # MACROS_FAIL=false is `make serve`'s setting; under `mkdocs build` the hook turns failing back on,
    # so the page is not published with the error as its text.
    project = copy_project(tmp_path / "project")
    (project / "docs" / "index.md").write_text("# Home\n\n{{ scenario('llama-7b', 'h100').max_batch }}\n")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MACROS_FAIL": "false", "DRAWINGS": "off"}
    # The `mkdocs` command itself, as a reader runs it: unlike `python -m mkdocs`, it does not put the project
    # on sys.path, so a hook that imports `macros` too early fails here.
    mkdocs = Path(sys.executable).parent / "mkdocs"
    result = subprocess.run([str(mkdocs), "build", "-q", "--strict", "-d", str(tmp_path / "out")],
                            cwd=project, env=env, capture_output=True, text=True, timeout=600)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode != 0
    assert "\n" not in output and output.startswith("ERROR")
    assert "docs/index.md: InputError: unknown model 'llama-7b'" in output
    page = tmp_path / "out" / "index.html"
    assert not page.exists() or "llama-7b" not in page.read_text()
