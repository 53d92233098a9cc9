"""The designs' index (docs/designs/index.md, macros/site/pages/designs.py): every link to a critique lands on
a critique that exists, the cross-design table's prefix-cache figure is the one each design page prices, and
the taxonomy has no catch-all class."""

from __future__ import annotations

import dataclasses
import re

import pytest
from conftest import ROOT

from macros.engine.fleet.answer import answer
from macros.engine.fleet.plan_levers import fleet_ratio, without_prefix_cache
from macros.engine.fleet.workload_file import Workload
from macros.engine.fleet.workload_file import design as load_design
from macros.site.pages import design, designs
from macros.text import fmt

INDEX = ROOT / "docs" / "designs" / "index.md"
LINK = re.compile(r"\[(\w+) (\d)\]\(([\w-]+)\.md#critique-(\d)\)")


def test_every_critique_link_lands_on_the_critique_it_names():
    links = LINK.findall(INDEX.read_text(encoding="utf-8"))
    assert len(links) > 20
    shorts = {design.meta(slug).short: slug for slug in design.slugs()}
    for short, number, slug, anchor in links:
        assert shorts.get(short) == slug, f"[{short} {number}] points at {slug}.md"
        assert number == anchor and 1 <= int(anchor) <= design.CRITIQUES, (short, number, anchor)


def test_the_lora_hot_replica_critique_is_not_cited_as_fair_queueing():
    # LoRA 4 is a hot replica hidden by a fleet-wide mean (a scaling signal), not a fairness question
    text = INDEX.read_text(encoding="utf-8")
    fair = text[text.index("**Fair queueing**"):text.index("**Sharding by key")]
    assert "lora-platform.md#critique-4" not in fair
    assert "lora-platform.md#critique-4" in text[text.index("**Utilisation or queue length"):]


def test_the_taxonomy_has_no_catch_all():
    titles = [entry["title"] for entry in design.defects().values()]
    assert "Assumption never measured" not in titles
    tagged = {c.defect for slug in design.slugs() for c in design.meta(slug).critiques}
    assert "unmeasured-assumption" not in tagged


def _changed(before: Workload, after: Workload) -> set[str]:
    """The fields a variant overrides (its name aside)."""
    return {f.name for f in dataclasses.fields(before) if getattr(after, f.name) != getattr(before, f.name)} - {"name"}


@pytest.mark.parametrize("slug", [s for s in design.slugs()
                                  if any(v.prefix_hit_rate == 0 for v in load_design(s)[1].values())])
def test_the_prefix_cache_s_worth_is_the_figure_the_design_page_prices(slug: str):
    # one figure for one quantity: a design's own variant that switches the cache off (hit rate 0, nothing else)
    # and the index's fleet without the cache are the same plan
    d = design.model(slug)
    w, variants = load_design(slug)
    cache_off = [name for name, v in variants.items()
                 if v.prefix_hit_rate == 0 and _changed(w, v) == {"prefix_hit_rate"}]
    assert cache_off, f"{slug}: no variant switches off only the prefix cache"
    for name in cache_off:
        cold = without_prefix_cache(w)
        assert cold.gpus == d.variants[name].gpus
        assert fleet_ratio(d.plan, cold) == pytest.approx(d.variants[name].gpus / d.plan.gpus)
        # and on the answers, which the index prints: the variant's answer is the cold workload's
        assert answer(cold).gpus == d.answers[name].gpus


def test_consumer_chat_s_row_in_the_cross_design_table():
    # consumer chat: 50% of prompt tokens hit; its no-prefix-cache variant's answer is the fleet without the
    # cache, both the serving model's (not the napkin's plans)
    d = design.model("consumer-chat")
    a, cold = d.answer, d.answers["no-prefix-cache"]
    x = designs.model()
    row = next(line for line in x.general.table.splitlines() if "(consumer-chat.md)" in line)
    assert f"| 50% | {fmt.count(a.gpus)} | {fmt.count(cold.gpus)} GPUs, {fmt.times(cold.gpus / a.gpus)} |" in row
    assert a.gpus != d.plan.gpus  # a regression to the napkin's fleet fails
    fleets = next(line for line in x.fleets.splitlines() if "(consumer-chat.md)" in line)
    assert f"{fmt.count(a.gpus)} × H100 SXM ({a.gpus_per_replica} per replica" in fleets


def test_the_ranges_quoted_are_the_table_s_ends():
    x = designs.model().general
    plans = [design.model(slug, infeasible_ok=True) for slug in design.slugs()]
    shares = [d.plan.prefill_share for d in plans if d.feasible]
    assert x.prefill_share == f"{fmt.pct(min(shares))} to {fmt.pct(max(shares))}"
    assert x.decode_share == f"{fmt.pct(1 - max(shares))} to {fmt.pct(1 - min(shares))}"
    assert x.planned_designs == len(shares)
    # each answer's binding target counted, most first: the counts add up to the answers
    bindings = [d.answer.simulated.binding.words for d in plans if d.feasible]
    counted = re.findall(r"the (.+?) in (\d+)", x.binds_words)
    assert sum(int(n) for _, n in counted) == len(bindings)
    assert {words: int(n) for words, n in counted} == {b: bindings.count(b) for b in set(bindings)}
    assert x.all_tail.holds == all(d.answer.simulated.binding.percentile is not None for d in plans if d.feasible)
