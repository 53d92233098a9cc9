"""The worked designs read as one answer, in a length a reader finishes: outside section 3 (the napkin, then the
answer) no design page's Markdown names the napkin's fleet, GPUs or cost (a revision or trade-off priced there
would be the napkin's), and no design page has more than 4,000 words of prose outside its tables."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import pytest
from conftest import ROOT

from macros.site.pages import design

DESIGNS = ROOT / "docs" / "designs"
MOST_WORDS = 4000
# The napkin's fleet as a page writes it: its plan's (p) or a variant's GPUs, replicas and costs, or its changes.
NAPKIN_FLEET = re.compile(r"d\.changes\b|d\.variants\[[^\]]+\]\.(gpus|replicas|cost_per_day|cost_per_million\w*)\b"
                          r"|\bp\.(gpus|replicas|cost_per_day|cost_per_million_output_tokens)\b")
SECTION = re.compile(r"^## (\d+)\.")
# What a reader does not read as prose: tables, code, drawings and typeset math (KaTeX inside arithmatex).
SKIPPED_TAGS = {"script", "style", "table", "pre", "figure", "svg"}
SKIPPED_CLASSES = {"arithmatex", "katex", "katex-display"}
VOID = {"br", "img", "hr", "input", "meta", "link", "source", "wbr", "col", "area", "base", "embed", "track"}


class _Prose(html.parser.HTMLParser):
    """The article's text, each skipped element's subtree left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside, self.skipping, self.words = False, 0, 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "article":
            self.inside = True
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        if self.skipping or tag in SKIPPED_TAGS or classes & SKIPPED_CLASSES:
            self.skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self.inside = False
        if tag not in VOID and self.skipping:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if self.inside and not self.skipping:
            self.words += len(data.split())


def napkin_fleet_lines(markdown: str) -> list[str]:
    """Lines of prose outside section 3 that name the napkin's fleet (a table row may set it beside the answer's,
    under a heading that says which is which)."""
    found, section = [], None
    for line in markdown.splitlines():
        if m := SECTION.match(line):
            section = int(m.group(1))
        elif line.startswith("## "):
            section = None
        if section != 3 and not line.lstrip().startswith("|") and NAPKIN_FLEET.search(line):
            found.append(line.strip())
    return found


def test_the_check_catches_the_napkins_fleet_in_prose():
    # a revision priced on the napkin, a trade-off on its plan: caught; the same in section 3 or a table: not
    page = ("## 3. Sizing\n\n{{ p.gpus }} GPUs on the napkin.\n\n## 9. Trade-offs\n\n- TP8 saves "
            "{{ d.changes['tp8'].extra_gpus }} GPUs at {{ p.cost_per_day | usd }}.\n| napkin | {{ p.gpus }} |\n")
    assert napkin_fleet_lines(page) == ["- TP8 saves {{ d.changes['tp8'].extra_gpus }} GPUs at "
                                        "{{ p.cost_per_day | usd }}."]
    assert napkin_fleet_lines("## 7. Scaling\n\n{{ d.answer.gpus }} GPUs, {{ d.answers['tp8'].gpus }}.") == []


@pytest.mark.parametrize("slug", design.slugs())
def test_no_design_names_the_napkins_fleet_outside_its_section_3(slug: str):
    assert napkin_fleet_lines((DESIGNS / f"{slug}.md").read_text()) == []


def prose_words(page_html: str) -> int:
    """Words of the article's prose: its text without tables, code, drawings or math."""
    parser = _Prose()
    parser.feed(page_html)
    return parser.words


def test_prose_words_leave_out_tables_and_math():
    # 2 + 1 words of prose; the table's and the formula's words are not counted
    page = ('<p>outside</p><article><p>Two words</p><table><tr><td>a b c</td></tr></table><span class="arithmatex">'
            '<span class="katex"><span>x y</span></span></span><br><p>three</p></article>')
    assert prose_words(page) == 3


@pytest.mark.parametrize("slug", design.slugs())
def test_a_design_reads_in_at_most_4000_words_of_prose(built_site: Path, slug: str):
    words = prose_words((built_site / "designs" / slug / "index.html").read_text())
    assert words <= MOST_WORDS, f"designs/{slug}: {words:,} words of prose outside its tables"
