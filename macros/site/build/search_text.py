"""Readable search results: the math in the search index as plain text, not LaTeX.

The search plugin indexes each page's HTML before the hook typesets its math (katex_html.py), where
pymdownx.arithmatex left the TeX; results would show `\\( (M - R)/B \\)`. After the plugin writes
search/search_index.json, the hook rewrites every `\\( … \\)` and `\\[ … \\]` outside code as text
(`(M - R)/B`, `b_max = ⌊(g M - N w - g R)/KV per sequence⌋`), so results read well and a formula's
words (`KV per sequence`) are still found.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# Commands that are a character; spacing and sizing commands become a space or nothing, and \qquad,
# which separates two equations on one line, a semicolon.
SYMBOLS = {
    "approx": "≈", "cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠",
    "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "sum": "Σ", "infty": "∞", "to": "→",
    "rightarrow": "→", "alpha": "α", "beta": "β", "gamma": "γ", "eta": "η", "lambda": "λ", "mu": "μ",
    "sigma": "σ", "tau": "τ", "Delta": "Δ", "max": "max", "min": "min", "log": "log", "exp": "exp",
    "quad": " ", "qquad": "; ", ",": " ", ";": " ", ":": " ", " ": " ", "!": "", "%": "%", "$": "$",
    "{": "{", "}": "}", "_": "_", "left": "", "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "",
}
# Commands whose one argument is shown as it is.
UNWRAP = {"text", "mathrm", "mathit", "mathbf", "textbf", "textit", "operatorname", "overline", "mathsf"}
MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
CODE = re.compile(r"(<code>.*?</code>|<pre>.*?</pre>)", re.S)


def _group(tex: str, i: int) -> tuple[str, int]:
    """The argument starting at tex[i] (a {braced group} or one character) and the index after it."""
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex):
        return "", i
    if tex[i] != "{":
        if tex[i] == "\\":
            name = re.match(r"\\([A-Za-z]+|.)", tex[i:]).group(0)
            return name, i + len(name)
        return tex[i], i + 1
    depth = 0
    for j in range(i, len(tex)):
        depth += {"{": 1, "}": -1}.get(tex[j], 0)
        if depth == 0:
            return tex[i + 1:j], j + 1
    return tex[i + 1:], len(tex)


def _operand(text: str) -> str:
    """A fraction's part, in parentheses when it is more than one term."""
    return f"({text})" if re.search(r"[\s+\-·×/]", text.strip()) else text.strip()


def tex_to_text(tex: str) -> str:
    """One formula's TeX as plain text: commands as characters, \\frac{a}{b} as a/b, braces dropped,
    sub- and superscripts as _ and ^."""
    out: list[str] = []
    i = 0
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            name = re.match(r"\\([A-Za-z]+|.)", tex[i:]).group(1)
            i += 1 + len(name)
            if name == "frac":
                top, i = _group(tex, i)
                bottom, i = _group(tex, i)
                out.append(f"{_operand(tex_to_text(top))}/{_operand(tex_to_text(bottom))}")
            elif name == "sqrt":
                arg, i = _group(tex, i)
                out.append(f"√{_operand(tex_to_text(arg))}")
            elif name in UNWRAP:
                arg, i = _group(tex, i)
                out.append(tex_to_text(arg))
            else:
                out.append(SYMBOLS.get(name, name))
        elif c in "_^":
            arg, i = _group(tex, i + 1)
            out.append(c + _operand(tex_to_text(arg)))
        elif c in "{}":
            i += 1
        else:
            out.append(c)
            i += 1
    text = re.sub(r"\s+", " ", "".join(out)).strip()
    return re.sub(r"\s+(?=[;,⌋)])|(?<=[⌊(])\s+", "", text)


def plain_math(html: str) -> str:
    """Every \\( … \\) and \\[ … \\] in a search entry's text as plain text; code left as it is."""
    parts = CODE.split(html)
    for k in range(0, len(parts), 2):  # even parts are outside <code> and <pre>
        parts[k] = MATH.sub(lambda m: tex_to_text(m.group(1) or m.group(2)), parts[k])
    return "".join(parts)


def rewrite_index(path: Path) -> None:
    """Rewrite a search_index.json in place, titles and texts, in the search plugin's own format."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in data["docs"]:
        for field in ("title", "text"):
            if field in entry:
                entry[field] = plain_math(entry[field])
    path.write_text(json.dumps(data, separators=(",", ":"), default=str), encoding="utf-8")
