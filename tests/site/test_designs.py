"""The worked designs (docs/designs/): each page has the shape the track promises (nine numbered
sections, six critiques tagged from the shared taxonomy and six revisions), each workload file runs
through the planner's command line, and the fleet the page shows is the file's."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

import gpu_math
from macros.engine.fleet import planner_simulated as ps
from macros.engine.fleet.workload_file import design as load_design
from macros.engine.lookup import get_gpu
from macros.site.pages import design as page
from macros.site.pages import design_answer, design_noise
from macros.text import fmt

SLUGS = page.slugs()
H2 = re.compile(r"<h2 id=\"[^\"]*\">(.*?)</h2>", re.S)


def _html(site: Path, slug: str) -> str:
    return (site / "designs" / slug / "index.html").read_text()


def _plan_json(path: Path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert gpu_math.main(["plan", str(path), "--json"]) == 0
    return json.loads(out.getvalue())


def test_there_are_designs_and_each_has_a_page():
    assert SLUGS, "no workload file under macros/data/designs has a [design] table"
    for slug in SLUGS:
        assert (ROOT / "docs" / "designs" / f"{slug}.md").is_file(), slug


@pytest.mark.parametrize("slug", SLUGS)
def test_a_design_page_has_nine_numbered_sections_six_critiques_and_six_revisions(built_site: Path, slug: str):
    html = _html(built_site, slug)
    numbered = [re.sub(r"<[^>]+>", "", h).strip() for h in H2.findall(html)]
    numbered = [h for h in numbered if re.match(r"\d+\.", h)]
    assert [h.split(".")[0] for h in numbered] == [str(n) for n in range(1, 10)], numbered
    for kind in ("critique", "revision"):
        ids = re.findall(rf'id="({kind}-\d+)"', html)
        assert ids == [f"{kind}-{n}" for n in range(1, 7)], ids
    tags = re.findall(r'data-defect="([^"]+)"', html)
    assert len(tags) == 6 and set(tags) <= set(page.defects()), tags
    assert "{{" not in html and "{%" not in html


@pytest.mark.parametrize("slug", SLUGS)
def test_a_design_file_runs_through_the_planner_command_line(slug: str):
    # The fleet a design recommends is the command line's answer on its file (the serving model's, at the file's
    # targets), and the napkin the page derives is the command line's napkin_ figures.
    path = ROOT / "macros" / "data" / "designs" / f"{slug}.toml"
    got = _plan_json(path)
    d = page.model(slug)
    p, a = d.plan, d.answer
    assert (got["napkin_gpus"], got["napkin_replicas"], got["slo_batch"]) == (p.gpus, p.replicas, p.slo_batch)
    assert got["napkin_gpus"] == got["napkin_replicas"] * got["napkin_gpus_per_replica"]
    assert (got["gpus"], got["replicas"], got["gpus_per_replica"], got["token_budget"]) == (
        a.gpus, a.replicas, a.gpus_per_replica, a.token_budget)
    assert got["gpus"] == got["replicas"] * got["gpus_per_replica"]


@pytest.mark.parametrize("slug", SLUGS)
def test_a_design_s_summary_states_the_answer_and_its_p95s_meet_its_targets(slug: str):
    # The summary at the top of the worked answer names the answer's fleet, and the simulated p95s it prints
    # are inside every p95 target the file sets (the answer is the smallest count that meets them).
    d = page.model(slug)
    a, w = d.answer, d.workload
    assert a.feasible, slug
    assert f"{a.gpus:,} GPUs" in d.summary and f"{a.replicas:,} × {a.gpus_per_replica}" in d.summary
    stats = a.simulated.chosen.stats
    for t in w.targets:
        assert stats[f"{t.metric}_s"][t.stat] <= t.seconds, (slug, t.key)
    # and one replica fewer misses one of them
    below = a.simulated.below
    assert below is not None and any(below.stats[f"{t.metric}_s"][t.stat] > t.seconds for t in w.targets), slug


def test_a_design_that_adopts_revisions_names_their_fleet_as_the_one_to_build():
    # The router's critiques adopt two revisions at once ([variants.adopted]): the summary gives that fleet, its
    # cost and its ratio to the answer, so the page does not leave the reader two fleets to choose between. Its
    # three regions each serve alone, so each holds its share rounded up: ceil(replicas / 3) replicas of 8 GPUs.
    d = page.model("router")
    built, a = d.answers["adopted"], d.answer
    assert built.gpus > a.gpus and d.regions == 3
    per_region = math.ceil(built.replicas / 3)
    gpus = 3 * per_region * built.gpus_per_replica
    row = next(line for line in d.summary.splitlines() if "The fleet to build" in line)
    assert f"3 regions × {per_region:,} × {built.gpus_per_replica} " in row and f"= {gpus:,} GPUs" in row
    assert fmt.times(gpus / a.gpus) in row and fmt.usd(built.cost_per_day * gpus / built.gpus) in row
    # a design in one region builds the adopted answer as it is
    chat = page.model("consumer-chat")
    assert chat.regions == 1
    # every design that names an adopted variant has the row, and only those
    assert all(("The fleet to build" in page.model(slug).summary) == (page.meta(slug).adopted is not None)
               for slug in SLUGS)


def test_the_fleet_to_build_faces_the_further_draws_the_answer_faces():
    # The answer's margin rung runs it on ten draws it was not chosen on; the fleet to build (the answer with the
    # adopted revisions) is a second fleet, so the summary runs the same check on it and says what it found:
    # how many of the ten draws it meets, counted here from the planner's own draws.
    for slug in (s for s in SLUGS if page.meta(s).adopted is not None):
        d = page.model(slug)
        built = d.answers[page.meta(slug).adopted]
        row = next(line for line in d.summary.splitlines() if "The fleet to build" in line)
        draws = ps.fresh_draws(built.simulated.workload, built.gpus_per_replica, built.replicas)
        met, n = sum(c.meets for c in draws), len(draws)
        if met == n:
            assert f"It meets every target on all {n} further draws too." in row, slug
            continue
        assert f"It meets every target on {met} of {n} further draws" in row, slug
        # and the count that meets on all of them, a tie with it or not, as the answer's own margin rung says
        margin = design_noise.margin(built)
        if margin is not None:
            assert f"on all at {margin:,} replicas" in row, slug
            assert ("a tie" in row) == design_noise.tie(built, gpus=margin * built.gpus_per_replica), slug


def test_a_critique_names_a_known_defect_and_a_revision_sizes_a_real_variant(tmp_path: Path):
    # The checks the page model makes of a design file, each caught: a defect outside the taxonomy,
    # a revision naming a variant the file lacks, a time plan that is not the round's length.
    source = (ROOT / "macros" / "data" / "designs" / f"{SLUGS[0]}.toml").read_text()
    bad_defect = re.sub(r'defect = "[^"]+"', 'defect = "vibes"', source, count=1)
    bad_variant = re.sub(r'^variant = "[^"]+"', 'variant = "nowhere"', source, count=1, flags=re.M)
    bad_minutes = re.sub(r"minutes = (\d+)", lambda m: f"minutes = {int(m.group(1)) + 1}", source, count=1)
    bad_adopted = source.replace("\nrisk = ", '\nadopted = "elsewhere"\nrisk = ', 1)
    bad_regions = source.replace("\nrisk = ", "\nregions = 0\nrisk = ", 1)
    bad_sizing = source.replace("\nrisk = ", '\nsizing_variants = ["nowhere"]\nrisk = ', 1)
    bad_verdict = re.sub(r'^verdict = "[^"]+"', 'verdict = "maybe"', source, count=1, flags=re.M)
    no_verdict = re.sub(r'^verdict = "[^"]+"\n', "", source, count=1, flags=re.M)
    page.read_meta(ROOT / "macros" / "data" / "designs" / f"{SLUGS[0]}.toml")  # the real file passes
    for n, (text, message) in enumerate(((bad_defect, "critique 1: unknown defect 'vibes'"),
                                         (bad_variant, ": no [variants.nowhere]"),
                                         (bad_minutes, "must add up to 45 minutes"),
                                         (bad_adopted, "adopted names no [variants.elsewhere]"),
                                         (bad_regions, "regions must be a whole number of regions, at least 1, "
                                                       "not 0"),
                                         (bad_sizing, "sizing_variants must list variants of the file"),
                                         (bad_verdict, "needs a verdict, one of adopted, scenario, option, mode, "
                                                       "by-price, later, lane (and one without, none), not 'maybe'"),
                                         (no_verdict, "needs a verdict"))):
        path = tmp_path / f"bad{n}.toml"
        path.write_text(text)
        with pytest.raises(page.DesignError, match=re.escape(message)):
            page.read_meta(path)


def test_the_designs_cover_frontier_moe_and_new_hardware():
    # The issue: at least two designs serve a DeepSeek-V3-class model in FP8, one runs on Blackwell or MI3xx.
    workloads = [load_design(slug)[0] for slug in SLUGS]
    assert len(SLUGS) == 8, SLUGS
    assert sum(w.model == "deepseek-v3" and w.weights == "fp8" for w in workloads) >= 2
    assert any(re.match(r"(G?B[23]00|MI3)", get_gpu(w.gpu).name) for w in workloads)


def test_a_change_to_a_design_file_reaches_its_page(changed_project: tuple[Path, Path]):
    # The session's changed copy (conftest.py) doubled consumer chat's traffic (and raised the H100's
    # bandwidth, which its fleet also runs on): the page shows the plan the copy's own command line gives.
    project, site = changed_project
    before = page.model("consumer-chat").plan
    after = json.loads(subprocess.run([sys.executable, "gpu_math.py", "plan", "macros/data/designs/consumer-chat.toml",
                                       "--json"], cwd=project, capture_output=True, text=True, check=True).stdout)
    assert after["napkin_gpus"] != before.gpus
    assert after["peak_requests_per_s"] == pytest.approx(2 * before.peak_requests_per_s)
    html = _html(site, "consumer-chat")
    assert f"{after['napkin_gpus']:,}" in html and f"{after['gpus']:,} GPUs" in html


def test_the_index_counts_every_critique_from_its_tag(built_site: Path):
    from macros.site.pages import designs

    x = designs.model()
    tags = [c.defect for slug in SLUGS for c in page.meta(slug).critiques]
    assert sum(x.counts.values()) == len(tags) == 6 * len(SLUGS) == 48
    assert x.counts == {key: tags.count(key) for key in set(tags)}
    # The glossary's <abbr> is inline ("B200 (<abbr>HGX</abbr>)"): dropped, not made a space.
    page_html = re.sub(r"</?abbr\b[^>]*>", "", (built_site / "designs" / "index.html").read_text())
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page_html))
    assert "All critiques 48" in text
    for slug in SLUGS:  # every fleet in the comparison, with its GPU count: the serving model's answer
        d = page.model(slug)
        assert f"{d.answer.gpus:,} × {d.plan.at_slo.gpu_spec.name}" in text, slug


def test_a_design_s_inputs_table_is_read_in_one_place(tmp_path: Path):
    source = (ROOT / "macros" / "data" / "designs" / "consumer-chat.toml").read_text()
    assert page.inputs("consumer-chat", page.positive("turn_gap_s"))["turn_gap_s"] == 60
    without_key = tmp_path / "no-key.toml"
    without_key.write_text(re.sub(r"^turn_gap_s = .*$", "", source, flags=re.M))
    with pytest.raises(page.DesignError, match=r"no-key.toml: \[design.inputs\] is missing turn_gap_s"):
        page.inputs("consumer-chat", page.positive("turn_gap_s"), without_key)
    without_table = tmp_path / "no-table.toml"
    without_table.write_text(source[:source.index("[design.inputs]")])
    with pytest.raises(page.DesignError, match=r"no-table.toml: \[design.inputs\] is missing$"):
        page.inputs("consumer-chat", {}, without_table)

    # each value is of its kind, finite: a string, a negative or an infinite number is one line naming the key
    for bad in ('"soon"', "-60", "inf"):
        wrong = tmp_path / "wrong.toml"
        wrong.write_text(re.sub(r"^turn_gap_s = .*$", f"turn_gap_s = {bad}", source, flags=re.M))
        with pytest.raises(page.DesignError, match=r"wrong.toml: \[design.inputs\] turn_gap_s must be a positive"):
            page.inputs("consumer-chat", page.positive("turn_gap_s"), wrong)


def test_a_pinned_token_budget_is_set_against_the_planners_own_search_and_the_engines_default():
    # The autoscaler's file pins 512 tokens a step; the page says whether the planner's budget search picks the
    # same, and what the engine's default budget needs on the same shape, both from the serving model.
    import dataclasses

    from macros.engine.fleet.answer import answer
    from macros.engine.fleet.planner import plan

    d = page.model("autoscaler")
    assert d.workload.token_budget == 512
    searched = answer(plan(dataclasses.replace(d.workload, token_budget=None)))
    at_default = searched.tried[(d.answer.gpus_per_replica, None)]
    assert at_default.feasible and at_default.gpus > d.answer.gpus
    assert f"the same targets need {at_default.gpus:,} GPUs" in d.budget_words
    assert ("the budget the planner's search picks" in d.budget_words) == (searched.token_budget == 512)


@pytest.mark.parametrize("slug", ["batch-api", "code-completion", "agents"])
def test_a_design_with_no_gap_target_runs_the_budget_the_search_picks_and_says_what_the_default_needs(slug):
    # With no p95 gap target the budget still moves the time per token and the first token's wait: the planner
    # tries the engine's default and TOKEN_BUDGETS on every shape, and the page's sentence follows what it picked.
    from macros.engine.fleet.answer import TOKEN_BUDGETS, default_budget

    d = page.model(slug)
    a, own = d.answer, default_budget(d.workload)
    g = a.gpus_per_replica
    assert d.workload.token_budget is None and not any(t.metric == "itl" for t in d.workload.targets)
    assert {b for (shape, b) in a.tried if shape == g} == {None, *(b for b in TOKEN_BUDGETS if b != own)}
    at_default = a.tried[(g, None)]
    if a.token_budget == own:
        assert all(not s.feasible or s.gpus >= a.gpus for s in a.tried.values())
        assert "and no budget down to 256 tokens needs fewer GPUs." in d.budget_words
    else:
        assert not at_default.feasible or at_default.gpus > a.gpus  # the default needed more: ties keep the default
        assert f"not vLLM's default of {own:,}" in d.budget_words
        assert (f"the default budget gives {at_default.gpus:,} GPUs" if at_default.feasible
                else "gives no fleet that meets the targets") in d.budget_words


def test_a_data_parallel_answer_says_what_the_step_leaves_out_and_a_tensor_parallel_one_does_not():
    # The router's variant runs attention data-parallel on 8 GPUs; the router, agents and chat run tensor parallel.
    dp = page.model("router").variants["dp-attention"].workload
    assert dp.layout == "dp-attention"
    assert design_answer.pooled_words(dp, 8) == (
        " Each prompt's attention runs on its own rank of the 8 under that rank's token budget, the step waiting "
        "for the busiest; left out: uneven decodes and each rank's own KV pool (optimistic).")
    for slug in ("agents", "consumer-chat", "router"):
        assert page.model(slug).workload.layout == "tp"
        assert "its own rank" not in page.model(slug).answer_block


def test_a_revision_inside_the_calibrated_band_is_called_a_tie(monkeypatch):
    # A design's answer (r replicas) against a variant's of the same shape with a few more (v, r < v <= 2 r): the
    # first such pair among LoRA's and the router's, whichever the data gives. A band of 0.5-2 puts the answer
    # between ceil(r / 2) and ceil(r / 0.5) = 2 r replicas, so v is a tie; a band of exactly 1 spans r alone, and
    # v is not.
    from macros.site.pages import design_revision

    def pairs():
        for slug in ("lora-platform", "router"):
            d = page.model(slug)
            a = d.answer
            for b in d.answers.values():
                same_shape = b.feasible and b.gpus_per_replica == a.gpus_per_replica
                if same_shape and a.replicas < b.replicas <= 2 * a.replicas:
                    yield a, b

    a, b = next(pairs())
    r = a.replicas
    monkeypatch.setattr(design_noise, "band_for", lambda gpu: (0.5, 2.0, "a test band"))
    assert design_noise.span(a) == (-(-r // 2), 2 * r)
    tie = f"{fmt.count(-(-r // 2))} to {fmt.count(2 * r)} replicas: on this model the two fleets are a tie"
    assert tie in design_revision.comparison(a, b)
    monkeypatch.setattr(design_noise, "band_for", lambda gpu: (1.0, 1.0, "a test band"))
    assert design_noise.span(a) == (r, r) and "tie" not in design_revision.comparison(a, b)


def test_a_sizing_revision_prices_its_tokens_at_the_traffic_it_serves():
    # The router's N+1 fleet is sized for 3/2 of the peak (survivors carry a lost region's share), but serves the
    # design's peak: its cost per million output tokens at the design's peak is its own per-token cost times its
    # peak over the design's (the same daily cost over fewer tokens), so it is dearer per token than the answer.
    d = page.model("router")
    a, n1 = d.answer, d.answers["n-plus-one"]
    assert "n-plus-one" in page.meta("router").sizing_variants
    real = n1.cost_per_million_output_tokens * n1.peak_requests_per_s / a.peak_requests_per_s
    assert n1.peak_requests_per_s == pytest.approx(1.5 * a.peak_requests_per_s)
    row = next(line for line in d.revision(2).splitlines() if "Per million output tokens" in line)
    assert "at the design's peak" in row and fmt.usd(real) in row and real > a.cost_per_million_output_tokens
    # a revision that serves its own traffic keeps its own peak: the cache-blind router's
    row = next(line for line in d.revision(1).splitlines() if "Per million output tokens" in line)
    blind = d.answers["round-robin"]
    assert "at peak" in row and "at the design's peak" not in row
    # (an infeasible cache-blind answer prices nothing: its cell says there is no fleet)
    assert (fmt.usd(blind.cost_per_million_output_tokens) if blind.feasible else design_noise.NONE) in row
    # Code completion's lost cancels: the same requests, each decoding to the end, so more tokens decode than anyone
    # reads. Priced per token read (the design's output rate), not per token decoded: dearer than its own figure.
    cc = page.model("code-completion")
    b, lost = cc.answer, cc.answers["cancel-lost"]
    assert lost.peak_requests_per_s == pytest.approx(b.peak_requests_per_s)
    assert lost.peak_output_tokens_per_s > b.peak_output_tokens_per_s
    read = lost.cost_per_million_output_tokens * lost.peak_output_tokens_per_s / b.peak_output_tokens_per_s
    row = next(line for line in cc.revision(3).splitlines() if "Per million output tokens" in line)
    assert "at the design's peak" in row and fmt.usd(read) in row
    assert read == pytest.approx(lost.cost_per_day / (b.peak_output_tokens_per_s * 86_400) * 1e6, rel=1e-3)


def test_a_revision_says_whether_it_takes_its_fleet_and_the_priced_verdicts_follow_the_prices():
    # A wider replica is decided by its price: code completion's 8-GPU fleet costs more per token than its answer, so
    # that verdict says no; swapped (the 8-GPU fleet as the answer) it says yes. Chat's eight-GPU revision is the
    # answer's own shape when its search chose eight: its row says the answer already runs it. A scenario's row says
    # the answer is not sized for it, whatever the prices.
    from macros.site.pages import design_revision as rev

    cc = page.model("code-completion")
    a, tp8 = cc.answer, cc.answers["tp8"]
    assert tp8.cost_per_million_output_tokens > a.cost_per_million_output_tokens
    assert rev.verdict_words("by-price", a, tp8, sizing=False) == "No: it costs more per token"
    assert rev.verdict_words("by-price", tp8, a, sizing=False) == "Yes: it costs less per token"
    d = page.model("consumer-chat")
    row = next(line for line in d.revision(1).splitlines() if "Does the revision take it?" in line)
    same = d.answer.gpus_per_replica == d.answers["tp8"].gpus_per_replica
    assert ("The answer already runs it" if same else "it costs") in row
    assert rev.verdict_words("later", tp8, a, sizing=False).startswith("Later")
    assert rev.verdict_words("scenario", a, tp8, sizing=False) == rev.VERDICTS["scenario"]
    # chat's long-history mix is a lane once measured, not the answer: its row says so, not "a what-if" alone
    row = next(line for line in d.revision(3).splitlines() if "Does the revision take it?" in line)
    assert rev.VERDICTS["lane"] in row and rev.VERDICTS["scenario"] not in row
    # a revision no fleet meets: code completion's p95 completion
    cc = page.model("code-completion")
    assert rev.verdict_words("by-price", cc.answer, cc.answers["p95-output"], sizing=False) == "No: no fleet meets it"
    # every comparison table on every design says whether its revision takes it
    for slug in SLUGS:
        m = page.model(slug)
        for c in m.critiques:
            if c.variant and "figure for figure" not in m.revision(c.number):
                assert "Does the revision take it?" in m.revision(c.number), (slug, c.number)

