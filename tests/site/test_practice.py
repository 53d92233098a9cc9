"""The practice problems as a reader gets them (docs/practice/problems.md, practice/problems.json): every
problem solvable from its own text, which a test shows by reading each stated number back out of the printed
question and solving from those numbers alone; no file paths, placeholders or "1 GPUs"; grouped by kind with
the answers folded; the JSON valid and the same as the page."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path
from typing import Any

from macros.engine.problems import KINDS, Given, Problem, coldstart, problems, solve
from macros.site import practice
from macros.site.pages import autoscaling

NUMBER = re.compile(r"^(\$?)(-?[\d,]*\.?\d+)\s*(.*)$")
SI = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
TIME = {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
# the unit words each kind of input may be printed with, written here apart from the site's formatter
WORDS = {"params": {"billion": 1e9}, "bytes": {"byte": 1, "bytes": 1}, "count": {"": 1},
         "tokens": {"token": 1, "tokens": 1}, "1/s": {"requests/s": 1}, "tokens/s": {"tokens/s": 1},
         "fraction": {"%": 0.01}, "USD/h": {"": 1}, "s": TIME}


def read_back(printed: str, unit: str) -> Any:
    """The value a reader takes from a printed input ("3.35 TB/s" -> 3.35e12), by this test's own rules."""
    if unit == "text":
        return printed
    m = NUMBER.match(printed)
    assert m, printed
    dollar, number, rest = m.groups()
    assert (dollar == "$") == (unit == "USD/h"), printed
    value = float(number.replace(",", ""))
    if unit in ("B", "B/s", "FLOP/s"):
        m2 = re.fullmatch(r"([kMGTP]?)" + re.escape(unit), rest)
        assert m2, printed
        return value * SI[m2.group(1)]
    assert rest in WORDS[unit], printed
    return value * WORDS[unit][rest]


def rederive(p: Problem, question: str) -> list[str]:
    """Read every stated input out of the question as printed, solve from those numbers alone, and say what
    disagrees with the answer the page gives."""
    bad, read = [], {}
    for g in p.given:
        printed = practice.given_text(g)
        if printed not in question:
            bad.append(f"{p.id}: {g.name} ({printed}) is not in the question")
        read[g.name] = read_back(printed, g.unit)
        if isinstance(g.value, int) and not isinstance(g.value, bool):
            read[g.name] = int(read[g.name])
    if bad:
        return bad
    answer = solve(p, read)["answer"]
    same = answer == p.answer or (isinstance(answer, float) and math.isclose(answer, p.answer, rel_tol=1e-9))
    return [] if same else [f"{p.id}: solved from the printed inputs {answer!r}, the page says {p.answer!r}"]


def test_every_problem_is_solved_from_the_numbers_its_question_prints():
    bad = [line for p in problems() for line in rederive(p, practice.question(p))]
    assert bad == []


def test_the_rederivation_catches_a_number_printed_wrong():
    p = next(p for p in problems() if p.kind == "memory" and p.answer > 0)
    i = next(n for n, g in enumerate(p.given) if g.name == "memory")
    doubled = Given("memory", p.given[i].value * 2, "B")
    wrong = dataclasses.replace(p, given=(*p.given[:i], doubled, *p.given[i + 1:]))
    # the page's text printed from the real inputs, checked against inputs with twice the memory
    assert rederive(wrong, practice.question(p)) == [f"{p.id}: memory ({practice.given_text(doubled)}) is not in "
                                                     "the question"]
    assert rederive(wrong, practice.question(wrong)) != []  # the text agrees, the answer does not


def test_the_reader_rules_read_what_a_reader_reads():
    assert read_back("3.35 TB/s", "B/s") == 3.35e12 and read_back("989.4 TFLOP/s", "FLOP/s") == 989.4e12
    assert read_back("70.6 billion", "params") == 70.6e9 and read_back("4,096 tokens", "tokens") == 4096
    assert read_back("28.5 ms", "s") == 0.0285 and read_back("$2.50", "USD/h") == 2.5
    assert read_back("40%", "fraction") == 0.4 and read_back("1 byte", "bytes") == 1


BANNED = [(re.compile(r"\.(toml|py|json)\b|macros/|/data/"), "a file path"), (re.compile(r"[{}]"), "a placeholder"),
          (re.compile(r"\b(None|nan|inf)\b"), "an unprinted value"),
          (re.compile(r"(?<![\d.,])1 (GPUs|ranks|sequences|replicas|tokens|bytes|steps|layers)\b"), "a plural after 1"),
          (re.compile(r"(?<![\d.,])(0|[2-9]|\d{2,}) (GPU|rank|sequence|replica|token|byte|step|layer)\b"),
           "a singular after a number other than 1"),
          (re.compile(r"\ba [0-9]"), "'a' before a number")]


def test_no_text_has_a_path_a_placeholder_or_a_grammar_slip():
    bad = []
    for p in problems():
        texts = [practice.question(p), practice.answer_text(p), *(f"{w}: {h}" for w, h in practice.steps(p))]
        for text in texts:
            bad += [f"{p.id}: {why}: {text}" for pattern, why in BANNED if pattern.search(text)]
    assert bad == []


def test_the_json_is_valid_and_is_the_page(built_site: Path):
    raw = (built_site / "practice" / "problems.json").read_text()
    entries = json.loads(raw, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))  # no NaN, no Infinity
    assert entries == json.loads(json.dumps(practice.exported()))
    assert [e["id"] for e in entries] == [p.id for p in problems()] and len(entries) >= 120
    for e in entries:
        assert set(e) == {"id", "kind", "variant", "question", "inputs", "answer", "unit", "answer_text", "solution",
                          "command"}, e["id"]
        assert all(i["printed"] in e["question"] for i in e["inputs"]), e["id"]


def slug(heading: str) -> str:
    """A heading's id as the Markdown toc extension makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


def test_the_page_groups_the_problems_by_kind_with_the_answers_folded(built_site: Path):
    # Without the glossary's inline <abbr> tags ("at the <abbr>p95</abbr>"), which the answers' text does not hold.
    html = re.sub(r"</?abbr\b[^>]*>", "", (built_site / "practice" / "problems" / "index.html").read_text())
    headings = [html.index(f'<h2 id="{slug(practice.KIND_INFO[k.name][0])}"') for k in KINDS]
    assert headings == sorted(headings)  # the kinds in order
    for p in problems():
        start = html.index(f'<h3 id="{p.id}"')
        kind = [k.name for k, at in zip(KINDS, headings) if at < start][-1]
        assert kind == p.kind, p.id
        block = html[start:html.index("</details>", start)]
        assert '<details class="answer">' in block and "open" not in block.split(">")[0], p.id
        assert practice.answer_text(p).replace("&", "&amp;") in block, p.id
    assert "{{" not in html and "{%" not in html


def test_a_verify_step_is_stated_as_k_plus_one_tokens():
    # "drafts 4 tokens per sequence, and each verify step runs 5 tokens per sequence": a reader who counted only
    # the k drafts would compute another answer than the page's (test_problems.py holds the answers to k + 1)
    for p in problems():
        if p.kind == "speculative":
            k = p.inputs["draft_tokens"]
            assert f"drafts {k} tokens per sequence, and each verify step runs {k + 1} tokens" in practice.question(p)
            assert f"k + 1 = {k} + 1 = {k + 1}" in dict(practice.steps(p))["tokens a verify step runs"], p.id


def test_a_cold_start_reads_the_chapter_s_nvme_rate():
    # the engine cannot import a page model, so the rate is written twice: held equal here
    assert coldstart.LOCAL_NVME_BYTES_PER_S == autoscaling.LOCAL_NVME_BYTES_PER_S
    for p in problems():
        if p.kind == "cold-start":
            assert f"loads its weights from {p.source['storage']}, read at " in practice.question(p), p.id
