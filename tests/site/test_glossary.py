"""The glossary (macros/data/glossary.toml, macros/site/glossary.py): its entries are checked where they
are read, every page of the built site shows each abbreviation with its definition, and every entry's
`teaches` link lands on a heading that exists."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import build_site, copy_project

from macros.site import glossary
from macros.site.pages import glossary as glossary_page

# Not prose a reader sees as words: code, scripts, drawings, typeset math (KaTeX's HTML and MathML), and
# the abbreviations themselves (their text already carries the definition).
SKIPPED_TAGS = {"pre", "code", "script", "style", "svg", "math", "abbr", "kbd"}
SKIPPED_CLASSES = {"katex", "katex-display", "arithmatex"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class ProseText(HTMLParser):
    """The article's text outside SKIPPED_TAGS and SKIPPED_CLASSES, and each <abbr> with its title."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: whether it starts a skipped region
        self.skipping = 0
        self.in_article = 0
        self.text: list[str] = []
        self.abbrs: list[tuple[str, str]] = []
        self._abbr_title: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        found = dict(attrs)
        if tag == "article":
            self.in_article += 1
        skip = tag in SKIPPED_TAGS or bool(SKIPPED_CLASSES & set((found.get("class") or "").split()))
        self.stack.append(skip)
        self.skipping += skip
        if tag == "abbr":
            self._abbr_title = found.get("title") or ""
            self.abbrs.append((self._abbr_title, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.stack:
            return
        if tag == "article":
            self.in_article -= 1
        self.skipping -= self.stack.pop()
        if tag == "abbr":
            self._abbr_title = None

    def handle_data(self, data: str) -> None:
        if self._abbr_title is not None and self.abbrs:
            title, text = self.abbrs[-1]
            self.abbrs[-1] = (title, text + data)
        if self.in_article and not self.skipping:
            self.text.append(data)


def prose(page_html: str) -> ProseText:
    parser = ProseText()
    parser.feed(page_html)
    return parser


def uncovered(page_html: str, entries: list[glossary.Entry]) -> list[str]:
    """Each glossary spelling the page's prose uses outside an <abbr>: a use the reader cannot hover.
    Matched as Python-Markdown's abbr matches, longest first at whole words."""
    spellings = sorted((s for e in entries for s in e.hovered), key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(s) for s in spellings) + r")\b")
    text = " ".join(prose(page_html).text)
    return [f"{m.group(0)!r} in …{text[max(0, m.start() - 40):m.end() + 20]}…" for m in pattern.finditer(text)]


@pytest.fixture(scope="module")
def entries() -> list[glossary.Entry]:
    return glossary.load()


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.glob("**/index.html") if p.parent.name not in ("404",))


# --- what the built site shows --------------------------------------------------------------------


def test_every_abbreviation_on_every_page_has_its_definition(built_site: Path, entries):
    tooltip = {s: e.tooltip for e in entries for s in e.hovered}
    bare, wrong, hovered = {}, {}, 0
    for page in pages(built_site):
        html = page.read_text(encoding="utf-8")
        if misses := uncovered(html, entries):
            bare[str(page.relative_to(built_site))] = misses[:3]
        for title, text in prose(html).abbrs:
            hovered += 1
            if tooltip.get(text) != title:
                wrong[str(page.relative_to(built_site))] = (text, title)
    assert not bare, f"abbreviations with no definition on the page: {bare}"
    assert not wrong, f"an <abbr> whose title is not its glossary definition: {wrong}"
    # The chapters use TTFT, KV cache and FLOP/s, so the mechanism must have fired, and widely.
    assert hovered > 1000


def test_the_checker_finds_a_bare_abbreviation(entries):
    # The check above must be able to fail: a TTFT outside an <abbr> is found; one inside code, math or
    # an <abbr> is not; a longer spelling wins at the same place ("KV cache", not "KV").
    page = ('<article><p>The TTFT is short. <abbr title="x">TPOT</abbr> <code>TTFT</code>'
            '<span class="katex">TTFT</span> and the KV cache.</p></article><p>TTFT outside</p>')
    found = uncovered(page, entries)
    assert [f.split(" in ")[0] for f in found] == ["'TTFT'", "'KV cache'"]


def test_abbreviations_leave_headings_anchors_and_math_intact(built_site: Path):
    # The toolkit's "5.4 Parallelism: TP, PP, EP" holds three abbreviations; its anchor is still the
    # slug of its plain text, and the table of contents shows plain text.
    toolkit = (built_site / "guide" / "toolkit" / "index.html").read_text(encoding="utf-8")
    heading = re.search(r'<h2 id="54-parallelism-tp-pp-ep">(.*?)</h2>', toolkit, re.S)
    assert heading and heading.group(1).count("<abbr") == 3
    toc_entry = re.search(r'href="#54-parallelism-tp-pp-ep" class="md-nav__link">\s*<span[^>]*>\s*([^<]*?)\s*<',
                          toolkit)
    assert toc_entry and toc_entry.group(1) == "5.4 Parallelism: TP, PP, EP"
    for name in ("guide/roofline", "numbers", "calculator"):
        html = (built_site / name / "index.html").read_text(encoding="utf-8")
        # No <abbr> inside typeset math or code: KaTeX's output and code blocks are left alone.
        for block in re.findall(r'<span class="katex">.*?</annotation>|<pre.*?</pre>', html, re.S):
            assert "<abbr" not in block, name


def test_every_teaches_link_lands_on_a_heading(built_site: Path, entries):
    missing = []
    for entry in entries:
        page, anchor = entry.teaches.split("#")
        built = built_site / page.removesuffix(".md") / "index.html"
        if not built.is_file() or f'id="{anchor}"' not in built.read_text(encoding="utf-8"):
            missing.append(entry.key)
    assert not missing
    glossary_html = (built_site / "glossary" / "index.html").read_text(encoding="utf-8")
    # Each entry has its anchor on the glossary page, and its link to where it is taught.
    for entry in entries:
        assert f'id="{entry.key}"' in glossary_html
    assert 'href="../guide/memory/#33-gqa-and-why-long-context-is-affordable"' in glossary_html


# --- the data's rules -----------------------------------------------------------------------------

GOOD = '''[ttft]
term = "time to first token"
abbr = "TTFT"
definition = "The time to the first token."
teaches = "guide/inference.md#13-prefill-and-decode-are-different-workloads"
'''


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "glossary.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_entry_loads(tmp_path: Path):
    (entry,) = glossary.load(write(tmp_path, GOOD))
    assert (entry.key, entry.abbr, entry.hovered) == ("ttft", "TTFT", ("TTFT",))
    assert entry.tooltip == "Time to first token. The time to the first token."
    assert glossary.abbreviations([entry]) == "*[TTFT]: Time to first token. The time to the first token.\n\n"


@pytest.mark.parametrize(("change", "message"), [
    (('definition = "The time to the first token."', 'definition = ""'), r"\[ttft\] definition: must be non-empty"),
    (('definition = "The time to the first token."', 'definition = "The time"'), r"\[ttft\] definition: must end"),
    (('abbr = "TTFT"', 'abbr = "TT]FT"'), r"\[ttft\]: 'TT\]FT' cannot hold"),
    (('abbr = "TTFT"', 'abbr = "TTFT"\ncolour = "red"'), r"\[ttft\]: unknown field 'colour'"),
    (('term = "time to first token"\n', ''), r"\[ttft\]: term is missing"),
    (('teaches = "guide/inference.md#13', 'teaches = "guide/inference#13'),
     r"\[ttft\] teaches: must be page.md#anchor"),
    (('abbr = "TTFT"', 'abbr = "TTFT"\nalso = "TTFTs"'), r"\[ttft\] also: must be a list"),
    (('[ttft]', '[TTFT]'), r"\[TTFT\]: the key must be lower-case"),
    # 40 times the 12 characters of "A long one. ", less the last space: 479 characters.
    (('definition = "The time to the first token."', f'definition = "{("A long one. " * 40).strip()}"'),
     r"\[ttft\] definition: 479 characters, more than 400"),
])
def test_a_bad_entry_is_one_line_naming_the_file_and_the_entry(tmp_path: Path, change, message):
    old, new = change
    assert old in GOOD
    with pytest.raises(glossary.GlossaryError, match=message) as caught:
        glossary.load(write(tmp_path, GOOD.replace(old, new)))
    assert str(caught.value).startswith(str(tmp_path / "glossary.toml") + ": ")
    assert "\n" not in str(caught.value)


def test_a_spelling_claimed_twice_is_an_error(tmp_path: Path):
    second = GOOD.replace("[ttft]", "[first-token]").replace('abbr = "TTFT"', 'also = ["TTFT"]')
    with pytest.raises(glossary.GlossaryError, match=r"\[first-token\]: 'TTFT' is already \[ttft\]'s"):
        glossary.load(write(tmp_path, GOOD + "\n" + second))


def test_a_teaches_link_to_a_missing_heading_is_an_error(tmp_path: Path):
    (entry,) = glossary.load(write(tmp_path, GOOD.replace("#13-prefill", "#19-prefill")))
    with pytest.raises(glossary.GlossaryError, match=r"\[ttft\] teaches: docs/guide/inference.md has no heading"):
        glossary.section(entry)
    (entry,) = glossary.load(write(tmp_path, GOOD.replace("guide/inference.md", "guide/nowhere.md")))
    with pytest.raises(glossary.GlossaryError, match=r"\[ttft\] teaches: no page docs/guide/nowhere.md"):
        glossary.section(entry)


def test_a_bad_entry_stops_the_build_with_one_line(tmp_path: Path):
    # The build's hook reads the glossary before any page: a bad entry is one ERROR line, exit code 1 as
    # every failed strict build, no traceback. Run on a copy with only the glossary broken.
    project = copy_project(tmp_path / "project")
    data = project / "macros" / "data" / "glossary.toml"
    data.write_text(data.read_text(encoding="utf-8").replace('abbr = "TTFT"', 'abbr = ""'), encoding="utf-8")
    result = build_site(project, tmp_path / "site", {"DRAWINGS": "off"})
    assert result.returncode != 0
    assert "macros/data/glossary.toml: [ttft] abbr: must be non-empty text" in result.stderr
    assert "Traceback" not in result.stderr


# --- the page and the data against the other data ----------------------------------------------


def test_the_glossary_page_lists_every_entry_sorted(entries):
    q = glossary_page.model()
    assert q.count == len(entries) == len(q.table.splitlines()) - 2  # a row each, under the header and rule
    names = [glossary_page.sort_name(e) for e in q.entries]
    assert names == sorted(names)
    # The row for GQA: its abbreviation, its name spelled out, and the section that teaches it, titled as
    # docs/guide/memory.md titles the page ("title: 3. The memory budget") and the heading ("## 3.3 GQA and ...").
    gqa = next(line for line in q.table.splitlines() if 'id="gqa"' in line)
    assert "**GQA**, grouped-query attention" in gqa
    assert "[3. The memory budget: 3.3 GQA and why long context is affordable]" in gqa


def test_the_definitions_that_state_a_ratio_hold_on_the_data():
    # FP8's definition says GPUs with FP8 compute at twice their BF16 dense peak, and FLOP/s's that the
    # "with sparsity" figures are twice the dense ones: every GPU in gpus.toml must agree (to rounding).
    from macros.engine.specs import catalog

    for gpu in catalog().gpus.values():
        if gpu.fp8_flops:
            assert gpu.fp8_flops / gpu.bf16_flops == pytest.approx(2, rel=0.03), gpu.key
        if gpu.bf16_sparse_flops:
            assert gpu.bf16_sparse_flops / gpu.bf16_flops == pytest.approx(2, rel=0.03), gpu.key



def test_the_block_formats_definitions_hold_on_the_data(entries):
    # MXFP4's and NVFP4's definitions state their block and their bits per value; precisions.toml holds
    # them: 32 values and 4 + 8/32 = 4.25 bits, 16 values and 4 + 8/16 = 4.5 bits.
    from macros.engine.specs import catalog

    by_key = {e.key: e for e in entries}
    for key in ("mxfp4", "nvfp4"):
        p = catalog().precisions[key]
        definition = by_key[key].definition
        assert f"blocks of {p.block_size} FP4" in definition, key
        assert f"{p.bytes * 8:g} bits per value" in definition, key


def test_each_teaches_section_names_its_term(built_site: Path, entries):
    # A link must land where the term is used, not merely on some heading: the section (its heading to the
    # next heading of its level or above) names the entry by its term, its abbreviation or another spelling.
    unnamed = []
    for entry in entries:
        page, anchor = entry.teaches.split("#")
        html = (built_site / page.removesuffix(".md") / "index.html").read_text(encoding="utf-8")
        start = re.search(rf'<h([1-6]) id="{re.escape(anchor)}"', html)
        end = re.compile(rf"<h[1-{start.group(1)}] id=").search(html, start.end())
        section = re.sub(r"<[^>]+>", "", html[start.start():end.start() if end else len(html)])
        names = (entry.term.split(" (")[0], *entry.hovered)
        if not any(name.casefold() in section.casefold() for name in names):
            unnamed.append(entry.key)
    assert not unnamed
