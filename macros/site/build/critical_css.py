"""The first paint waits on nothing but the page: the styles its own HTML can use are inlined in its
<head>, and the stylesheets themselves move to the end of <body>.

On a slow link (Slow-4G: 0.56 s of latency on every request) a stylesheet in <head> holds the first
paint back by a whole round trip after the HTML, however small it is. So, as each page is written,
every rule of its <head> stylesheets (Material's, the palette's, extra_css) and of KaTeX's (linked
ahead of a page's first formula) that could apply to an element of the page's HTML is copied into one
<style> in <head>, in the stylesheets' order; a rule is left out only when its selector names a class
or an id that appears nowhere in the page. That copy styles everything the HTML holds, so the page
paints with its final layout as its HTML arrives. The stylesheets follow at the end of <body>, before
the scripts, which do not run until they have arrived (a stylesheet blocks the scripts after it): the
elements the scripts add (tooltips, search results, copy buttons) are styled by then. The browser
caches them for the next page, and Material's instant navigation keeps them, swapping each page's
<style> in with its <head>.

Stylesheets are read from the built site (mkdocs copies every static file before it writes a page).
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from ...engine.memo import memoized

# Where the moved stylesheets go: overrides/main.html puts this marker at the top of the scripts block.
MARKER = "<!-- stylesheets -->"
_LINK = re.compile(r'<link rel="stylesheet" href="([^"]+)">')
_FONT_PRELOAD = re.compile(r'<link rel="preload" href="[^"]+" as="font"[^>]*>')
_BODY = re.compile(r"<body[^>]*>")
_CLASS_ATTR = re.compile(r'\sclass="([^"]*)"')
_ID_ATTR = re.compile(r'\sid="([^"]*)"')
# Left out of the joined stylesheet: a @charset anywhere but first is an error, and a source map
# describes the file it came with.
_DROPPED = re.compile(r"""@charset\s*("[^"]*"|'[^']*')\s*;|/\*# sourceMappingURL=[^*]*\*/""")
JOINED_DIR = "assets/stylesheets"  # where the stylesheets a page links are written, joined in one
_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)""")
# At-rules whose block holds rules to filter; every other at-rule (@font-face, @keyframes, @page) is kept whole.
_GROUPING = ("@media", "@supports", "@layer", "@container")


class CriticalCssError(Exception):
    """A stylesheet a page links that the built site does not hold, or cannot be parsed."""


@dataclass(frozen=True)
class Rule:
    """One item of a stylesheet: a style rule, an at-rule kept whole, or a grouping at-rule's rules."""

    prelude: str  # the selector list, or the at-rule's head
    body: str | None  # the declarations; "" for a grouping at-rule (its rules are in `inner`), None for a statement
    needs: tuple[frozenset[str], ...] | None  # per selector, the classes and ids it names; None: always kept
    inner: tuple[Rule, ...] = ()

    def text(self, names: set[str]) -> str:
        """This rule as CSS if it can apply to a page whose classes and ids are `names`, else ""."""
        if self.inner:
            kept = "".join(rule.text(names) for rule in self.inner)
            return f"{self.prelude}{{{kept}}}" if kept else ""
        if self.body is None:
            return f"{self.prelude};"
        if self.needs is not None and not any(need <= names for need in self.needs):
            return ""
        return f"{self.prelude}{{{self.body}}}"


def _blocks(css: str, where: str) -> list[tuple[str, str | None]]:
    """The top-level items of `css` as (prelude, block); a statement at-rule's block is None."""
    items, depth, start, quote, i = [], 0, 0, "", 0
    open_at = 0
    while i < len(css):
        ch = css[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif css.startswith("/*", i):
            end = css.find("*/", i + 2)
            i = len(css) if end < 0 else end + 1
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            if depth == 0:
                open_at = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise CriticalCssError(f"{where}: an unmatched '}}' at character {i}")
            if depth == 0:
                items.append((css[start:open_at].strip(), css[open_at + 1:i]))
                start = i + 1
        elif ch == ";" and depth == 0:
            items.append((css[start:i].strip(), None))
            start = i + 1
        i += 1
    if depth or quote:
        raise CriticalCssError(f"{where}: a block or a string is not closed")
    return items


def _needs(selectors: str) -> tuple[frozenset[str], ...] | None:
    """Per selector of the list, the classes (".x") and ids ("#x") an element of the page must carry for
    it to match: those outside brackets and parentheses (":not(.x)" matches without .x, and an attribute
    value may hold a dot). None when a selector escapes a character: kept, as one this reading cannot judge."""
    if "\\" in selectors:
        return None
    flat = selectors
    while True:  # innermost groups first, so nested ones go too
        stripped = re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", flat)
        if stripped == flat:
            break
        flat = stripped
    return tuple(frozenset(re.findall(r"[.#]-?[_a-zA-Z][\w-]*", part)) for part in flat.split(","))


def parse(css: str, where: str) -> tuple[Rule, ...]:
    """The rules of one stylesheet; `where` names it in an error."""
    rules = []
    for prelude, block in _blocks(css, where):
        prelude = re.sub(r"/\*.*?\*/", "", prelude, flags=re.S).strip()  # a comment may name a class
        if block is None:
            if prelude:
                rules.append(Rule(prelude, None, None))
        elif prelude.startswith(_GROUPING):
            rules.append(Rule(prelude, "", None, parse(block, where)))
        elif prelude.startswith("@"):
            rules.append(Rule(prelude, block, None))
        else:
            rules.append(Rule(prelude, block, _needs(prelude)))
    return tuple(rules)


def names(html: str) -> set[str]:
    """Every class (".x") and id ("#x") the page's HTML gives an element."""
    found = {f".{c}" for attr in _CLASS_ATTR.findall(html) for c in attr.split()}
    return found | {f"#{i}" for i in _ID_ATTR.findall(html)}


@functools.cache
def _stylesheet(path: Path, mtime: float) -> tuple[str, tuple[Rule, ...]]:
    text = path.read_text(encoding="utf-8")
    return text, _parsed(text, path.name)


@memoized(keep=True)  # Material's stylesheets change only with its version: a rebuild reads their rules
def _parsed(text: str, name: str) -> tuple[Rule, ...]:
    return parse(text, name)


def _rebased(css: str, sheet_uri: str, to_dir: str) -> str:
    """`css` from the stylesheet at `sheet_uri` with its relative url()s made relative to `to_dir`."""
    def rebase(match: re.Match[str]) -> str:
        url = next(g for g in match.groups() if g is not None)
        if not url or re.match(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", url, re.I):
            return match.group(0)
        target = posixpath.normpath(posixpath.join(posixpath.dirname(sheet_uri), url))
        return f'url("{posixpath.relpath(target, to_dir or ".")}")'
    return _URL.sub(rebase, css)


def _joined(sheets: list[tuple[str, str]], site_dir: Path) -> str:
    """The site path of one stylesheet holding `sheets` ((site path, text) each) in order, written under
    `site_dir` and named by its content, so a browser caches it until it changes."""
    text = '@charset "UTF-8";\n' + "\n".join(_rebased(_DROPPED.sub("", css), uri, JOINED_DIR) for uri, css in sheets)
    uri = f"{JOINED_DIR}/all-{hashlib.sha256(text.encode()).hexdigest()[:12]}.css"
    path = site_dir / uri
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return uri


def inline(html: str, page_uri: str, site_dir: Path) -> str:
    """The page `html` (written at `page_uri` under `site_dir`) with its stylesheets' rules that can apply
    to it inlined where its first <head> stylesheet was, all its stylesheets, joined in one, linked at
    MARKER instead, and its font preloads first in <body>."""
    if MARKER not in html:
        raise CriticalCssError(f"{page_uri}: no {MARKER!r} in the page: overrides/main.html places it")
    page_dir = posixpath.dirname(page_uri)
    links = list(_LINK.finditer(html))
    if not links:
        return html
    used = names(html)
    critical, sheets = [], []
    for link in links:
        href = link.group(1)
        uri = posixpath.normpath(posixpath.join(page_dir, href))
        path = site_dir / uri
        if not path.is_file():
            raise CriticalCssError(f"{page_uri}: the stylesheet {href} is not in the built site")
        text, rules = _stylesheet(path, path.stat().st_mtime)
        critical.append(_rebased("".join(rule.text(used) for rule in rules), uri, page_dir))
        sheets.append((uri, text))
    style = "<style>" + "\n".join(critical) + "</style>"
    if style.count("</style") > 1:
        raise CriticalCssError(f"{page_uri}: a stylesheet holds '</style', which would end the inlined copy early")
    # One stylesheet, not a link each: it applies at once. Links apply one by one as they arrive, and
    # between two arrivals Material's rules (main.css, arrived, after the inlined copy) would override
    # extra.css's (in the copy, its own file not there yet): the tables' header cells moved and came back.
    joined = posixpath.relpath(_joined(sheets, site_dir), page_dir or ".")
    out = _LINK.sub("", html)
    at = links[0].start()  # the first link is in <head>, before anything removed: its offset still holds
    out = out[:at] + style + out[at:].replace(MARKER, f'<link rel="stylesheet" href="{joined}">', 1)
    # The fonts the page preloads (the text font, KaTeX's two), first thing in <body>: fetched as soon as
    # the page starts, so that they more often arrive before the first layout and nothing swaps. Not in
    # <head>: Chromium holds the first paint for a font preloaded there (0.9 s -> 1.7 s under Slow-4G).
    fonts = _FONT_PRELOAD.findall(out)
    out = _FONT_PRELOAD.sub("", out)
    body = _BODY.search(out)
    if body is None:
        raise CriticalCssError(f"{page_uri}: no <body> in the page")
    return out[:body.end()] + "".join(fonts) + out[body.end():]
