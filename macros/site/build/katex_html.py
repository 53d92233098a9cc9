"""Math typeset at build time: every formula pymdownx.arithmatex leaves in a page (generic mode:
`<span class="arithmatex">\\( … \\)</span>`, `<div class="arithmatex">\\[ … \\]</div>`) becomes KaTeX's
HTML, so a page shows its math with no JavaScript and nothing flashes from TeX to typeset.

KaTeX is Node's, pinned in tools/katex/package-lock.json (`make setup` installs it with `npm ci`);
its CSS and fonts, of the same version, are vendored under docs/assets/katex. One Node process
(tools/katex/render.mjs) serves the whole build, a page's formulas to a message; a formula already
typeset in this build is not sent again.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
KATEX_DIR = ROOT / "tools" / "katex"
SCRIPT = KATEX_DIR / "render.mjs"
# The stylesheet the typeset math needs, under docs/ (its fonts sit beside it), and the two fonts
# that nearly every formula sets: KaTeX's roman (digits, operators, \\text) and its math italic.
STYLESHEET = "assets/katex/katex.min.css"
FONTS = ("assets/katex/fonts/KaTeX_Main-Regular.woff2", "assets/katex/fonts/KaTeX_Math-Italic.woff2")

# What arithmatex writes: the TeX, HTML-escaped, between \( \) (inline) or \[ \] (display).
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
DELIMITED = re.compile(r"\\\((.*)\\\)|\\\[(.*)\\\]", re.S)


class MathError(Exception):
    """A formula KaTeX cannot typeset, or no KaTeX to typeset with: one line for the reader."""


class Typesetter:
    """The Node process, started on the first page with math, and what it has typeset so far."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._typeset: dict[tuple[str, bool], str] = {}

    def start(self) -> None:
        if self._process is not None:
            return
        node = shutil.which("node")
        if node is None:
            raise MathError("Node is missing, and the build typesets the math with it: "
                            "apt-get install -y nodejs npm; make setup")
        if not (KATEX_DIR / "node_modules" / "katex" / "package.json").is_file():
            raise MathError("KaTeX is not installed: run `make setup` (npm ci --prefix tools/katex)")
        self._process = subprocess.Popen([node, str(SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True, encoding="utf-8", bufsize=1)

    def close(self) -> None:
        if self._process is not None:
            self._process.stdin.close()
            self._process.wait(timeout=10)
            self._process = None

    def _render(self, formulas: list[tuple[str, bool]]) -> list[dict[str, str]]:
        self.start()
        assert self._process is not None and self._process.stdin and self._process.stdout
        self._process.stdin.write(json.dumps(formulas) + "\n")
        answer = self._process.stdout.readline()
        if not answer:
            raise MathError(f"the KaTeX process ({SCRIPT.relative_to(ROOT)}) stopped, exit code {self._process.poll()}")
        return json.loads(answer)

    def typeset(self, page_html: str) -> str:
        """The page's HTML with every formula typeset; MathError names the first that cannot be."""
        found = [(m, _tex(m.group(2))) for m in FORMULA.finditer(page_html)]
        new = sorted({key for _, key in found if key not in self._typeset})
        if new:
            for key, result in zip(new, self._render(new)):
                if "error" in result:
                    raise MathError(f"KaTeX cannot typeset {_delimited(*key)}: {result['error']}")
                self._typeset[key] = result["html"]
        # Inside a <span>, as KaTeX's auto-render put it in the browser: Material's stylesheet sizes
        # a displayed formula's child (div.arithmatex > *) for that wrapper, not for KaTeX's own box.
        return FORMULA.sub(lambda m: f'<{m.group(1)} class="arithmatex"><span>{self._typeset[_tex(m.group(2))]}'
                                     f"</span></{m.group(1)}>", page_html)


def _tex(inner: str) -> tuple[str, bool]:
    """(TeX, display?) from what arithmatex put inside its element."""
    match = DELIMITED.fullmatch(html.unescape(inner).strip())
    if match is None:
        raise MathError(f"a formula without \\( \\) or \\[ \\] around it: {inner.strip()[:60]!r}")
    return (match.group(1), False) if match.group(1) is not None else (match.group(2), True)


def _delimited(tex: str, display: bool) -> str:
    return f"\\[{tex}\\]" if display else f"\\({tex}\\)"


def links(url: Callable[[str], str], preload_fonts: bool) -> str:
    """What a page with math links, ahead of its first formula, `url` giving each file's address from
    the page: the stylesheet (only pages with math load it, and Material's instant navigation swaps
    it in and out with the content), and KaTeX's roman and math italic, which nearly every formula
    sets, preloaded so that they arrive with the stylesheet rather than after the first paint, when
    the formulas would widen and the lines after them move."""
    found = [f'<link rel="stylesheet" href="{url(STYLESHEET)}">']
    if preload_fonts:
        found += [f'<link rel="preload" href="{url(font)}" as="font" type="font/woff2" crossorigin>' for font in FONTS]
    return "".join(found)
