"""The deck's formula cards (macros/site/formula_cards.py): one formula to a card, each checked against the
engine's own value for the same quantity, and against a value derived here by hand for the simplest ones."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from macros.site import flashcards, formula_cards

CARDS = {c.key: c for c in formula_cards.cards()}


@pytest.mark.parametrize("key", sorted(CARDS))
def test_each_cards_formula_gives_the_engines_value(key):
    c = CARDS[key]
    assert c.value() == pytest.approx(float(c.engine()), rel=1e-12)


def test_a_card_whose_formula_drifted_from_the_engine_is_caught():
    # The M/D/1 card with M/M/1's formula (no factor 2) gives twice the engine's wait.
    c = dataclasses.replace(CARDS["md1-wait"], expr="rho / (1 - rho) * S")
    assert c.value() == pytest.approx(2 * c.engine())


def test_the_simplest_formulas_by_hand():
    # KV per token of the anchor model: 2 x layers x KV heads x head dim x bytes, from the card's own symbols.
    kv = CARDS["kv-per-token"].symbols
    assert CARDS["kv-per-token"].value() == 2 * kv["L"] * kv["H_kv"] * kv["d_h"] * kv["k"]
    # M/D/1 at rho 0.8: 0.8 / (2 x 0.2) = 2 service times.
    md1 = CARDS["md1-wait"]
    assert md1.value() == pytest.approx(2 * md1.symbols["S"])
    # Four draft tokens accepted at 0.7: 1 + 0.7 + 0.49 + 0.343 + 0.2401 = 2.7731 tokens a verify step.
    assert CARDS["speculative-tokens"].value() == pytest.approx(2.7731)
    # 256 experts, 8 per token, 32 tokens: 256 (1 - (31/32)^32).
    assert CARDS["experts-touched"].value() == pytest.approx(256 * (1 - (31 / 32) ** 32))
    # A ring over g GPUs: each sends 2 (g - 1) / g of the vector.
    ring = CARDS["ring-allreduce"]
    g = ring.symbols["g"]
    assert ring.value() == pytest.approx(2 * (g - 1) / g * ring.symbols["V"])


def test_the_back_shows_the_formula_with_dots_and_greek_and_each_symbol():
    back = formula_cards.back(CARDS["kingman"], "https://example.org/")
    assert "ρ / (1 - ρ)·(c_a^2 + c_s^2) / 2·S" in back
    for symbol, _ in CARDS["kingman"].legend:
        assert f"<li>{formula_cards.GREEK.get(symbol, symbol)}:" in back
    assert 'href="https://example.org/guide/autoscaling/#bursty-arrivals-kingmans-approximation"' in back


def test_the_deck_holds_one_card_per_formula_with_unique_keys():
    deck = flashcards.formula_deck()
    assert [c.key for c in deck] == [f"formula/{k}" for k in CARDS]
    assert len(set(c.key for c in deck)) == len(deck)
    assert all(c.tag == "formula" and c.kind == "recall" for c in deck)


def test_every_card_links_to_a_section_the_site_has(built_site: Path):
    for c in CARDS.values():
        page, anchor = c.teaches.split("#")
        built = (built_site / page.removesuffix(".md") / "index.html").read_text()
        assert f'id="{anchor}"' in built, f"{c.key}: {c.teaches} has no such section"
