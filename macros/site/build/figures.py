"""The `figure` macro: a rendered drawing (drawings.py) placed on a page, legible at every width.

Each drawing's SVG records the font sizes of its text (diagrams/_style.py). From them and its viewBox
the page learns the width below which the drawing must not shrink for its smallest text to stay
legible; a drawing wider than the column at that width scrolls in its frame, and a hint says so.
"""

from __future__ import annotations

import functools
import math
import posixpath
import re
from pathlib import Path
from typing import Any

from .drawings import SITE_DIR, DrawingError, alt_text, cached, css_size, drawn, file_stem, forms, load, variants

# The smallest text a drawing may show, in CSS px: on a phone (below a tablet's width, where a narrow
# form replaces the wide one), and wider. The content column of a 390 px phone and of a 1280 px laptop,
# in CSS px: a drawing whose legible width is wider scrolls in its frame there, and says so.
MIN_TEXT_PX = {"phone": 11, "wide": 12}
COLUMN_PX = {"phone": 358, "wide": 688}
CARD_PADDING_PX = 16  # the white card's 0.4rem either side (extra.css), at Material's 20 px rem
_FONT_SIZES = re.compile(rb'<svg[^>]*?\sdata-font-sizes="([\d. ]+)"')
_VIEWBOX = re.compile(rb'<svg[^>]*?\sviewBox="[\d.-]+[ ,]+[\d.-]+[ ,]+([\d.]+)')


def legible_width(path: Path, text_px: float) -> int:
    """The CSS width at which a rendered SVG shows its smallest text at `text_px` (its padding aside):
    its viewBox width times text_px over the smallest font size its renderer recorded."""
    head = path.read_bytes()[:4000]
    sizes, width = _FONT_SIZES.search(head), _VIEWBOX.search(head)
    if not sizes or not width:
        raise DrawingError(f"{path.name}: no data-font-sizes or viewBox on its <svg> element")
    return math.ceil(float(width.group(1)) * text_px / min(float(v) for v in sizes.group(1).split()))


# The drawings a page places are rendered in the background while the pages are (drawings.start), and their
# sizes are known only once they are: the `figure` macro writes a token where each size-dependent piece goes
# (<img> width, height and legible widths, the hints), and fill() puts the pieces in when the page is written
# (hooks.on_page_context), after every page is rendered: no page's rendering waits for its pictures.
_TOKEN = re.compile(r"@@drawing:(\d+):(\w+)@@")
_WIDE_HINT = '<span class="drawing__hint drawing__hint--wide">@@drawing:{}:widehint@@</span>'
_placed: list[tuple[str, str | None, bool]] = []  # token number -> (name, variant, narrow)
HINTS = {"phone": "Tap the drawing to open it full size.",
         "phone scrolls": "Wide drawing: scroll it sideways, or tap it to open it full size.",
         "wide scrolls": "Wide drawing: scroll it sideways, or click it to open it full size."}


def _number(key: tuple[str, str | None, bool]) -> int:
    """The drawing's number in the tokens, given the first time it is placed."""
    if key not in _placed:
        _placed.append(key)
    return _placed.index(key)


def _token(key: tuple[str, str | None, bool], piece: str) -> str:
    return f"@@drawing:{_number(key)}:{piece}@@"


def _image(alt: str, rel: str, key: tuple[str, str | None, bool] | None, form: str) -> str:
    """One form of a drawing as a Markdown image: lazy, with its size given (the page does not jump
    when it arrives), and never narrower than it must be for its text to be legible at each width."""
    attrs = f".drawing__{form}"
    if key is not None:
        attrs += (f' width="{_token(key, "width")}" height="{_token(key, "height")}"'
                  f' style="--legible: {_token(key, "legible")}px; --legible-phone: {_token(key, "legiblephone")}px"')
    return f'![{alt}]({rel}){{ {attrs} loading="lazy" decoding="async" }}'


def _scrolls(path: Path, where: str) -> bool:
    """Whether the drawing is wider than the column at its legible width (its card's padding
    included), so that it scrolls sideways there."""
    return legible_width(path, MIN_TEXT_PX[where]) + CARD_PADDING_PX > COLUMN_PX[where]


@functools.cache
def _pieces(key: tuple[str, str | None, bool]) -> dict[str, str]:
    """What each of a picture's tokens stands for, read once from the rendered picture (waiting for it if it is
    still being drawn): every page that places it, the print page and the search index ask again."""
    path = cached(*key)[0]
    width, height = css_size(path)
    return {"width": str(width), "height": str(height), "legible": str(legible_width(path, MIN_TEXT_PX["wide"])),
            "legiblephone": str(legible_width(path, MIN_TEXT_PX["phone"])),
            "phonehint": HINTS["phone scrolls" if _scrolls(path, "phone") else "phone"],
            "widehint": HINTS["wide scrolls"] if _scrolls(path, "wide") else ""}


def fill(text: str) -> str:
    """A rendered page (or the search index's text of it) with its drawings' tokens replaced by what they
    stand for; the hint for wide screens, and its span, are dropped where the drawing does not scroll there."""
    for number, key in enumerate(_placed):
        span = _WIDE_HINT.format(number)
        if span in text and not _pieces(key)["widehint"]:
            text = text.replace(span, "")
    return _TOKEN.sub(lambda m: _pieces(_placed[int(m.group(1))])[m.group(2)], text)


def figure(env: Any, name: str, variant: str | None = None, caption: str = "") -> str:
    """A rendered drawing from diagrams/<name>.py as Markdown, with its alt text and a caption.

    Both forms (wide, and narrow when the module draws one) are placed, and the stylesheet shows one
    by the screen's width; a lazy image hidden by the stylesheet is never fetched. The picture sits in
    a frame that scrolls sideways when the drawing is wider than the column at its legible width, and
    links to its wide form, so a reader can open it full size (SVG stays sharp at any zoom); a hint
    under it says so, on a phone, and wherever the drawing scrolls. (With drawings off, the placeholders
    have no size, and never scroll.)"""
    module = load(name)
    if variant not in variants(module):
        raise DrawingError(f"diagrams/{name}.py has no variant {variant!r}")
    alt = alt_text(name, variant).replace("[", "(").replace("]", ")").replace("\n", " ")
    here = posixpath.dirname(env.page.file.src_uri) or "."
    shown = {}  # form -> (relative link, the drawing's key, or None when drawings are off)
    for narrow in forms(module):
        target = f"{SITE_DIR}/{file_stem(name, variant, narrow)}.{module.FORMAT}"
        shown["narrow" if narrow else "wide"] = (posixpath.relpath(target, here),
                                                 (name, variant, narrow) if drawn(name) else None)
    images = "".join(_image(alt, rel, key, form) for form, (rel, key) in shown.items())
    phone_key = shown.get("narrow", shown["wide"])[1]
    hints = {"phone": HINTS["phone"] if phone_key is None else _token(phone_key, "phonehint")}
    classes = "drawing drawing--narrow" if "narrow" in shown else "drawing"
    text = (f'<figure class="{classes}" markdown="span">\n'
            f'<span class="drawing__frame">[{images}]({shown["wide"][0]})</span>')
    text += f'<span class="drawing__hint drawing__hint--phone">{hints["phone"]}</span>'
    if shown["wide"][1] is not None:
        text += _WIDE_HINT.format(_number(shown["wide"][1]))
    if caption:
        # Its own markdown="span": the caption is Markdown, so the glossary's abbreviations reach it too.
        text += f'\n<figcaption markdown="span">{caption}</figcaption>'
    return text + "\n</figure>"


def register(env: Any) -> None:
    """Called by define_env(): the `figure` macro, which needs the page being rendered."""
    env.macro(lambda name, variant=None, caption="": figure(env, name, variant, caption), "figure")
