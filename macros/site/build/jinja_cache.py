"""Compiled page templates kept on disk: mkdocs-macros compiles every page's Markdown as a Jinja template on every
build (Environment.from_string), about a third of a warm build's time, though a page's text rarely changes
between builds. The compiled code is cached under .cache/jinja/, named by a hash of the text, Python's and
Jinja's versions (marshalled code is Python's own) and the settings that shape the code; a what-if build on a
copy of the tree (which copies .cache/) changes data, not pages, so it compiles nothing. A cache that cannot be
read or written is skipped.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import jinja2

CACHE_DIR = Path(__file__).resolve().parents[3] / ".cache" / "jinja"


def _settings(env: jinja2.Environment) -> str:
    """What besides the text decides the compiled code: the delimiters, the extensions, the escaping."""
    return repr((sys.version, jinja2.__version__, env.block_start_string, env.block_end_string,
                 env.variable_start_string, env.variable_end_string, env.comment_start_string, env.comment_end_string,
                 env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks,
                 env.newline_sequence, env.keep_trailing_newline, sorted(env.extensions), env.autoescape,
                 env.optimized))


def install(env: jinja2.Environment) -> None:
    """Make `env.from_string` compile through the cache; templates behave exactly as before."""
    settings = _settings(env)

    def from_string(source: str, globals: dict[str, Any] | None = None, template_class: Any = None) -> Any:
        name = hashlib.sha256(f"{settings}\0{source}".encode()).hexdigest()
        path = CACHE_DIR / f"{name}.code"
        try:
            code = marshal.loads(path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            code = env.compile(source)
            try:
                CACHE_DIR.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile("wb", dir=CACHE_DIR, delete=False) as fh:
                    fh.write(marshal.dumps(code))
                os.replace(fh.name, path)
            except OSError:
                pass
        cls = template_class or env.template_class
        return cls.from_code(env, code, env.make_globals(globals), None)

    env.from_string = from_string
