"""The practice widgets' generated files, written at every build (hooks.on_files):

- assets/javascripts/practice/bundle.js: the ES modules under docs/assets/javascripts/practice/ as one
  classic script defining window.IfgPractice. A page opened from disk (the offline copy, file://) may
  not load ES modules, so practice.js loads this instead: the same code, joined in dependency order
  with its import lines and export keywords dropped, with no bundler to install.
- assets/javascripts/practice/cards.js: the flashcards for the review in the page, written with the
  Anki deck once the questions page is rendered (hooks.on_env, flashcards.review_js).
- practice/rounds.json: every mock round's content (macros/site/pages/mock_round.py), for readers'
  own tools and the tests; each page embeds its own round, so nothing is fetched at run time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..pages import mock_round

SOURCE = Path(__file__).resolve().parents[3] / "docs" / "assets" / "javascripts" / "practice"
BUNDLE = "assets/javascripts/practice/bundle.js"
ROUNDS_JSON = "practice/rounds.json"
REVIEW_CARDS = "assets/javascripts/practice/cards.js"
MODULES = ("clock.js", "dom.js", "rubric.js", "store.js", "leitner.js", "history.js",  # in dependency order
           "draw.js", "numbers.js", "hiding.js", "number_view.js", "score_view.js",
           "round.js", "drills.js", "review.js", "main.js")
EXPORTS = ("startPractice", "verdictFor", "matchingVerdicts", "followUpsShown", "drawFollowUps", "followUpsOf",
           "parseNumber", "checkNumber")


def module_body(text: str) -> str:
    """An ES module's code without its import and export keywords (and its re-exports): what the bundle
    of classic scripts joins."""
    text = re.sub(r"^export \{[^}]*\} from .*?;\n", "", text, flags=re.M)
    text = re.sub(r"^import .*?;\n", "", text, flags=re.M | re.S)
    return re.sub(r"^export ", "", text, flags=re.M)


def bundle() -> str:
    """The practice modules as one classic script."""
    parts = []
    for name in MODULES:
        parts.append(f"// --- {name}\n" + module_body((SOURCE / name).read_text()))
    head = ("// Generated from docs/assets/javascripts/practice/*.js by macros/site/build/practice_assets.py: "
            "edit those.\n")
    names = ", ".join(EXPORTS)
    return head + f"(function () {{\n\"use strict\";\n{''.join(parts)}\nwindow.IfgPractice = {{ {names} }};\n}})();\n"


def site_files() -> dict[str, str]:
    rounds = json.dumps(mock_round.all_rounds(), indent=1, ensure_ascii=False) + "\n"
    return {BUNDLE: bundle(), ROUNDS_JSON: rounds}
