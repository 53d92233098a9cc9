"""docs/practice/flashcards.md: how many cards of each kind the deck holds. The deck itself is written
at build time by macros/site/flashcards.py (from the rendered questions page); the questions are counted
here from the page's source, one per `### N. … { #qN }` heading, as the deck finds them."""

from __future__ import annotations

import re
from types import SimpleNamespace

from ...engine.problems import problems, settings
from ...engine.specs import DATA_DIR
from .. import flashcards, formula_cards

QUESTIONS_PAGE = DATA_DIR.parent.parent / "docs" / "questions.md"
QUESTION_HEADING = re.compile(r"^### \d+\..*\{ #q\d+ \}\s*$", re.M)


def model() -> SimpleNamespace:
    questions = len(QUESTION_HEADING.findall(QUESTIONS_PAGE.read_text()))
    numbers, terms, generated = len(flashcards.number_cards()), len(flashcards.term_cards()), len(problems())
    formulas = len(formula_cards.cards())
    return SimpleNamespace(questions=questions, numbers=numbers, formulas=formulas, terms=terms, problems=generated,
                           total=questions + numbers + formulas + terms + generated,
                           deck_name=settings()["deck"]["name"])
