"""No figure is typed: a numeral followed by a unit in a page must come from a {{ }} expression.

The check strips every Jinja expression, statement and comment from each Markdown page under
docs/, then looks for a number followed by a unit (B, kB ... TB, KiB ... TiB, FLOP, a rate
"/s", ms, µs, s, %, ×) or a dollar amount. What it finds must be on the reviewed allow-list
below, each entry with the reason it is not a figure; an entry that no longer matches fails too,
so the list cannot go stale.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

DOCS = ROOT / "docs"

# (page, the exact text on the page, why it is not a computed figure). Keep this short.
ALLOWED: list[tuple[str, str, str]] = [
    ("conventions.md", 'NVIDIA\'s "80 GB" is physically\n80 GiB', "quotes the marketing label to explain it"),
]

NUM = r"(?<![\w.,])\d[\d,]*(?:\.\d+)?"
PATTERNS = [
    re.compile(NUM + r"\s*(?:[kMGTP]B|[KMGT]iB|[kMGTP]?FLOPs?|ms|µs|us|ns)(?!\w)"),
    re.compile(NUM + r"\s+B(?!\w)"),  # bytes need the space: "70B" is a parameter count
    re.compile(NUM + r"\s*[A-Za-z]*/s(?!\w)"),  # any rate: tokens/s, tok/s, TB/s
    re.compile(NUM + r"\s+s(?!\w)"),  # seconds
    re.compile(NUM + r"\s*(?:%|×)"),
    re.compile(r"\$\s?\d"),
]
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def strip(text: str) -> str:
    """The page without front matter and Jinja, with line breaks kept so line numbers hold."""
    keep_lines = lambda m: "\n" * m.group(0).count("\n")  # noqa: E731
    return JINJA.sub(keep_lines, FRONT_MATTER.sub(keep_lines, text))


def findings(page: Path) -> list[tuple[int, str, int, int]]:
    """(line, matched text, start, end) for each typed figure, offsets into the stripped page."""
    text = strip(page.read_text())
    found = []
    for pattern in PATTERNS:
        for m in pattern.finditer(text):
            found.append((text.count("\n", 0, m.start()) + 1, m.group(0), m.start(), m.end()))
    return sorted(found)


def allowed_spans(page: Path, stripped: str) -> list[tuple[int, int, str]]:
    rel = page.relative_to(DOCS).as_posix()
    spans = []
    for file, snippet, _reason in ALLOWED:
        if file == rel:
            spans += [(m.start(), m.end(), snippet) for m in re.finditer(re.escape(snippet), stripped)]
    return spans


def test_no_typed_figures():
    problems, used = [], set()
    for page in sorted(DOCS.rglob("*.md")):
        stripped = strip(page.read_text())
        spans = allowed_spans(page, stripped)
        for line, match, start, end in findings(page):
            hit = [s for s in spans if s[0] <= start and end <= s[1]]
            if hit:
                used.add((page.relative_to(DOCS).as_posix(), hit[0][2]))
            else:
                problems.append(f"docs/{page.relative_to(DOCS)}:{line}: typed figure {match!r}")
    assert not problems, "use a macro ({{ }}) for these, or allow-list them with a reason:\n" + "\n".join(problems)
    stale = [f"{f}: {s!r}" for f, s, _ in ALLOWED if (f, s) not in used]
    assert not stale, "allow-list entries that no longer match anything:\n" + "\n".join(stale)


def test_allow_list_stays_small():
    assert len(ALLOWED) <= 20


def test_lint_catches_typed_figures(tmp_path: Path):
    # The lint must be able to fail: each of these is a typed figure, each of the others is not.
    page = tmp_path / "page.md"
    typed = ["140 GB of weights", "3.35 TB/s", "takes 91 ms", "1,440 tok/s", "about 4.6× below",
             "costs $5 per million", "320 KiB", "140 GFLOP", "99% idle", "2,621,440 B", "30 s later"]
    clean = ["a 70B model", "Mixtral-8x7B", "{{ s.decode_step_s | ms }} per step", "2:4 sparsity",
             "{% set batch = 64 %}", "chapter 2.3", "H100 and H200"]
    for text in typed:
        page.write_text(f"---\ntitle: t\n---\n\n{text}\n")
        assert findings(page), f"missed {text!r}"
    for text in clean:
        page.write_text(f"{text}\n")
        assert not findings(page), f"false alarm on {text!r}: {findings(page)}"


# --- the layers: engine/ is what the browser calculator mirrors, so it imports nothing above it ---------


def _imports(path: Path) -> list[str]:
    import ast

    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            dots = "." * node.level
            names.append(dots + (node.module or ""))
    return names


FORBIDDEN_IN_ENGINE = ("macros.site", "macros.text", "..site", "..text", "...site", "...text", "jinja2",
                       "mkdocs", "markdown", "pymdownx")


def engine_violations(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        for name in _imports(path):
            if name.startswith(FORBIDDEN_IN_ENGINE) or name.endswith(".fmt"):
                out.append(f"{path.relative_to(root.parent.parent)} imports {name}")
    return out


def test_engine_imports_nothing_above_it():
    assert engine_violations(ROOT / "macros" / "engine") == []


def test_layer_check_catches_an_upward_import(tmp_path: Path):
    engine = tmp_path / "macros" / "engine"
    engine.mkdir(parents=True)
    (engine / "bad.py").write_text("from ..text import fmt\nimport jinja2\n")
    assert len(engine_violations(engine)) == 2


# --- pages are prose: figures come from page models, inputs from workloads.toml -------------------

MAX_SETS = 10
SET = re.compile(r"\{%-?\s*set\b")
LITERAL_SCENARIO = re.compile(r"""\bscenario\(\s*["']""")
FORMULA_CALL = re.compile(r"(?<![\w.])f\.\w+\(")


def page_program_problems(page: Path, root: Path = DOCS) -> list[str]:
    """What makes a page a program: too many {% set %} lines, a scenario with typed inputs, a formula
    derived in Jinja."""
    text, rel = page.read_text(), page.relative_to(root).as_posix()
    problems = []
    sets = len(SET.findall(text))
    if sets > MAX_SETS:
        problems.append(f"docs/{rel}: {sets} {{% set %}} lines (at most {MAX_SETS}: use a page model)")
    for pattern, what in ((LITERAL_SCENARIO, "a scenario with a typed model"), (FORMULA_CALL, "a formula in Jinja")):
        for m in pattern.finditer(text):
            problems.append(f"docs/{rel}:{text.count(chr(10), 0, m.start()) + 1}: {what}: {m.group(0)!r}")
    return problems


def test_pages_are_prose():
    problems = [p for page in sorted(DOCS.rglob("*.md")) for p in page_program_problems(page)]
    assert not problems, "\n".join(problems)


def test_the_prose_check_catches_a_program(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "page.md"
    page.write_text("".join(f"{{% set x{i} = {i} %}}\n" for i in range(11))
                    + "{% set s = scenario('llama-70b', 'h100', gpus=4) %}\n{{ f.machine_balance(1, 2) | num }}\n")
    found = page_program_problems(page, docs)
    assert len(found) == 3, found
