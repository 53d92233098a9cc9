"""A page that fails to render, as one line the build prints even under `mkdocs build -q`.

mkdocs-macros (1.5.0, MacrosPlugin.render) logs a page's error as one WARNING record holding a Markdown
block with the whole traceback, then exits with code 100 when `on_error_fail` is on. `-q` hides
warnings, so a failed quiet build printed nothing at all, and a loud one printed a traceback for what is
usually bad data. The filter here rewrites that record into one ERROR line,

    docs/designs/rag.md: PlanError: macros/data/designs/rag.toml: [variants.tp2]: …

and sends the original text, traceback included, to DEBUG (`mkdocs build -v`). The page models' own
errors name the entry (the design file, the variant, the field), so the line says what to fix.
"""

from __future__ import annotations

import logging
import re

MACROS_LOGGER = "mkdocs.plugins.mkdocs_macros.util"  # the logger mkdocs-macros' trace() writes to
DETAIL_LOGGER = "mkdocs.plugins.macros.build_errors"  # where the full text goes, at DEBUG
MKDOCS_LOGGER = "mkdocs"  # its level is what -q and -v set

_FILE = re.compile(r"_File_: `([^`]+)`")
# After the file: `_TypeError_: the message`, up to the blank line before the traceback's fence.
_RENDERING = re.compile(r"_File_: `[^`]+`\s*\n\s*_(\w+)_: (.*?)\n\s*\n\s*```", re.DOTALL)
_SYNTAX = re.compile(r"_Line (\d+) in Markdown file:_ \*\*(.*?)\*\*", re.DOTALL)


def one_line(text: str, docs_dir: str = "docs") -> str | None:
    """`<docs_dir>/<page>: <ErrorType>: <message>` from the text mkdocs-macros logs for a page that failed
    (mkdocs_macros/errors.py: format_error), or None when `text` is not such a report."""
    page = _FILE.search(text)
    if page is None or ("Macro Rendering Error" not in text and "Macro Syntax Error" not in text):
        return None
    where = f"{docs_dir}/{page.group(1)}"
    if (syntax := _SYNTAX.search(text)) is not None:
        return f"{where}:{syntax.group(1)}: TemplateSyntaxError: {' '.join(syntax.group(2).split())}"
    if (error := _RENDERING.search(text)) is not None:
        return f"{where}: {error.group(1)}: {' '.join(error.group(2).split())}"
    return f"{where}: the page failed to render (run with -v for the details)"


class OneLineErrors(logging.Filter):
    """Rewrites mkdocs-macros' page-error record into one ERROR line; lets its other records through at
    the level mkdocs was asked for."""

    def __init__(self, docs_dir: str) -> None:
        super().__init__()
        self.docs_dir = docs_dir

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        line = one_line(text, self.docs_dir)
        if line is None:
            return record.levelno >= logging.getLogger(MKDOCS_LOGGER).getEffectiveLevel()
        logging.getLogger(DETAIL_LOGGER).debug(text)
        record.msg, record.args = line, ()
        record.levelno, record.levelname = logging.ERROR, logging.getLevelName(logging.ERROR)
        return True


def install(docs_dir: str) -> None:
    """Put one OneLineErrors on mkdocs-macros' logger (from hooks.py's on_pre_build). It runs again on every
    `mkdocs serve` rebuild, with this module imported afresh (the hook drops macros* from sys.modules), so
    a filter from an earlier build is found by its class's name and replaced, not stacked."""
    logger = logging.getLogger(MACROS_LOGGER)
    for old in [f for f in logger.filters if type(f).__name__ == OneLineErrors.__name__]:
        logger.removeFilter(old)
    logger.addFilter(OneLineErrors(docs_dir))
    # -q raises the mkdocs logger to ERROR, and a logger drops a record below its level before any filter
    # sees it: this logger's own level lets the WARNING through to the filter, which then applies -q itself.
    logger.setLevel(logging.DEBUG)
