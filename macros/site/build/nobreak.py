"""Keep identifiers whole at the end of a line. Browsers may break after any hyphen, so a narrow
column or a phone showed "Llama-3.1-" on one line and "70B" on the next, and "--" apart from
"seq-len". After Markdown, every hyphenated word with a digit in it (model names and keys, GPU keys,
"4,096-token") and every command-line flag in the page's text is wrapped in <span class="nobr">,
which extra.css keeps on one line. Tags and their attributes, code blocks, scripts and math are
left exactly as they are.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"(<[^>]*>)")
# Elements whose text is verbatim (code blocks), not laid out (script, style), or plain text only (title).
_VERBATIM = ("pre", "script", "style", "title", "textarea")
# A flag (--seq-len) or a hyphenated word (Qwen3-235B-A22B, llama-3.1-8b, 2,000-token).
_WORD = re.compile(r"(?<![\w-])(?:--[a-z][a-z0-9-]*[a-z0-9]|[\w.,]*\w-[\w.,-]*\w)(?![\w-])")
_OPEN = '<span class="nobr">'


def _keep(match: re.Match[str]) -> str:
    word = match.group(0)
    if word.startswith("--") or any(ch.isdigit() for ch in word):
        return f"{_OPEN}{word}</span>"
    return word


def keep_together(html: str) -> str:
    """`html` with its flags and hyphenated identifiers wrapped so that no line breaks inside them."""
    out, inside = [], None
    for part in _TAG.split(html):
        if part.startswith("<"):
            name = re.match(r"</?([a-zA-Z0-9]+)", part)
            tag = name.group(1).lower() if name else ""
            if inside is None and tag in _VERBATIM and not part.startswith("</") and not part.endswith("/>"):
                inside = tag
            elif inside == tag and part.startswith("</"):
                inside = None
            out.append(part)
        elif inside is None and "\\(" not in part and "\\[" not in part and "-" in part:
            out.append(_WORD.sub(_keep, part))  # text outside math (\( \) and \[ \] stay raw for KaTeX)
        else:
            out.append(part)
    return "".join(out)
