"""A worked design's page (docs/designs/<slug>.md): its workload file's plan, the derivation, the time
plan, and the six critiques and revisions, each tagged with a defect class from data/designs/defects.toml.

The workload file (macros/data/designs/<slug>.toml) is the one `gpu_math.py plan FILE` reads; its
[design] table, which the planner skips, holds what the page and the index need beyond the workload:

    [design]
    title = "Consumer chat at ChatGPT scale"
    short = "Chat"                                # the index's label for the design's critiques
    order = 1                                     # its place among the designs
    risk = "The prefix cache: ..."                # the one risk that decides the answer, for its summary
    why_no_gap_target = "..."                     # required when [slo] sets no itl_p95_s: why the gap is unseen
    adopted = "n-plus-one"                        # optional: the variant with every revision the critiques adopt,
                                                  # which the summary gives as the fleet to build
    regions = 3                                   # optional (default 1): regions that each serve their share
                                                  # alone, so the fleet to build is whole replicas per region
    sizing_variants = ["n-plus-one"]              # optional: variants whose traffic is a sizing device (a lost
                                                  # region's share) or work no one reads (stale requests), priced
                                                  # per token at the design's traffic
    prompt = "Design the serving side of ..."     # the prompt, as the interviewer says it
    time_plan = [{minutes = 5, what = "scope and requirements"}, ...]       # sums to the round's length
    [[design.critiques]]                                                    # exactly six
    defect = "tail-latency"                      # a key of defects.toml
    critique = "The TTFT check ignores queueing" # the critique's heading
    revision = "Budget the queue"                # the revision's heading
    variant = "ttft-margin"                      # optional: the [variants.X] the revision sizes
    label = "With a queue margin"                # optional: its column's heading (default "Revised")
    verdict = "scenario"                         # with a variant, required: does the revision take its fleet?
                                                 # adopted, scenario (a what-if), option (a tier sold at its own
                                                 # price), mode (how the same replicas run), lane (a what-if
                                                 # whose prompts get a lane once measured), by-price or later
                                                 # (behind a gate): these two follow the prices
                                                 # (design_revision.VERDICTS)
    [design.inputs]                              # the design's own assumptions: inputs(slug, kinds)

A page reads `{% set d = page_models.design('<slug>') %}` and writes `{{ d.summary }}` (the answer at a
glance), `{{ d.critique(1) }}`, `{{ d.revision(1) }}` (the variant's answer against the design's when it
names one) and `{{ d.answer_block }}` (section 3: the ladder from the floor to the answer). The recommended
fleet is `d.answer`, the serving model's answer at the file's targets (engine/fleet/answer.py); `d.plan` is
the napkin it starts from. `d.answer_changes` prices each variant on the answers, `d.changes` on the napkin.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ...engine.fleet.answer import answer as serving_answer
from ...engine.fleet.plan_change import Change
from ...engine.fleet.planner import Infeasible, Plan, plan, require
from ...engine.fleet.workload_file import design as load_design
from ...engine.fleet.workload_file import load_workload_file as load_workload
from ...engine.lookup import InputError, get_gpu
from ...engine.memo import memoized
from ...engine.specs import DATA_DIR, display_path, read_toml
from ...text import plan_report
from ..assumptions import Assumption, assume
from ..markdown import table
from . import design_answer, design_revision
from .design_revision import VERDICTS

DESIGNS_DIR = DATA_DIR / "designs"
CRITIQUES = 6
ROUND_MINUTES = 45


class DesignError(InputError):
    """A malformed [design] table or defects.toml: one line naming the file and the entry."""


def check_stated(slug: str, where: str, stated: float, derived: float, tolerance: float) -> None:
    """A figure a design file types (a variant's hit rate) that its page model derives from the inputs: the build
    stops, naming the file, the entry and both values, when they part by more than `tolerance`."""
    if abs(stated - derived) > tolerance:
        raise DesignError(f"macros/data/designs/{slug}.toml: {where} is {stated:.3g} but [design.inputs] "
                          f"give {derived:.3g}: update the file or the inputs")


@dataclass(frozen=True)
class Critique:
    number: int
    defect: str  # a key of defects.toml
    critique: str
    revision: str
    variant: str | None  # the workload variant the revision sizes, if it changes the numbers
    label: str  # the comparison table's heading for the variant's column
    verdict: str | None  # with a variant: whether the revision takes it (a key of design_revision.VERDICTS)


@cache
def defects() -> dict[str, dict[str, str]]:
    """The shared defect taxonomy: key -> {title, means}, in the file's order."""
    path = DESIGNS_DIR / "defects.toml"
    raw = read_toml(path, DesignError)
    for key, entry in raw.items():
        if not isinstance(entry, dict) or not {"title", "means"} <= set(entry):
            raise DesignError(f"{display_path(path)}: [{key}] needs a title and a means")
    return raw


def slugs() -> list[str]:
    """Every worked design: the workload files with a [design] table, in the order of their `order`."""
    found = []
    for path in DESIGNS_DIR.glob("*.toml"):
        table_ = read_toml(path, DesignError).get("design")
        if isinstance(table_, dict):
            found.append((table_.get("order", 99), path.stem))
    return [slug for _, slug in sorted(found)]


def _critiques(raw: Any, where: str, variants: dict[str, Any]) -> list[Critique]:
    if not isinstance(raw, list) or len(raw) != CRITIQUES:
        raise DesignError(f"{where}: [[design.critiques]] must list exactly {CRITIQUES} critiques")
    out = []
    for n, entry in enumerate(raw, 1):
        here = f"{where}: critique {n}"
        missing = {"defect", "critique", "revision"} - set(entry)
        if missing:
            raise DesignError(f"{here} is missing {', '.join(sorted(missing))}")
        if entry["defect"] not in defects():
            raise DesignError(f"{here}: unknown defect {entry['defect']!r} (known: {', '.join(defects())})")
        variant, verdict = entry.get("variant"), entry.get("verdict")
        if variant is not None and variant not in variants:
            raise DesignError(f"{here}: no [variants.{variant}] in the file")
        if (variant is None) != (verdict is None) or (verdict is not None and verdict not in VERDICTS):
            raise DesignError(f"{here}: a critique with a variant needs a verdict, one of {', '.join(VERDICTS)} "
                              f"(and one without, none), not {verdict!r}")
        out.append(Critique(n, entry["defect"], entry["critique"], entry["revision"], variant,
                            entry.get("label", "Revised"), verdict))
    return out


@cache
def meta(slug: str) -> SimpleNamespace:
    """The [design] table of macros/data/designs/<slug>.toml, checked."""
    return read_meta(DESIGNS_DIR / f"{slug}.toml")


def read_meta(path: Path) -> SimpleNamespace:
    """The [design] table of the design file at `path`, checked against its variants and the taxonomy."""
    where = display_path(path)
    raw = read_toml(path, DesignError).get("design")
    if not isinstance(raw, dict) or not {"title", "short", "order", "prompt"} <= set(raw):
        raise DesignError(f"{where}: a worked design needs a [design] table with a title, a short name, an order "
                          "and a prompt")
    w, variants = load_workload(path)
    if not isinstance(raw.get("risk"), str):
        raise DesignError(f"{where}: [design] needs a risk: the one risk that decides the answer, in a sentence")
    gap = any(t.metric == "itl" for t in w.targets)
    if not gap and not isinstance(raw.get("why_no_gap_target"), str):
        raise DesignError(f"{where}: [slo] sets no itl_p95_s, so [design] needs a why_no_gap_target: why the gap "
                          "between tokens does not matter to this product")
    adopted = raw.get("adopted")
    if adopted is not None and adopted not in variants:
        raise DesignError(f"{where}: [design] adopted names no [variants.{adopted}] in the file")
    regions = raw.get("regions", 1)
    if not isinstance(regions, int) or isinstance(regions, bool) or regions < 1:
        raise DesignError(f"{where}: [design] regions must be a whole number of regions, at least 1, not {regions!r}")
    sizing = raw.get("sizing_variants", [])
    if not isinstance(sizing, list) or not set(sizing) <= set(variants):
        raise DesignError(f"{where}: [design] sizing_variants must list variants of the file, not {sizing!r}")
    minutes = [item.get("minutes", 0) for item in raw.get("time_plan", [])]
    if sum(minutes) != ROUND_MINUTES:
        raise DesignError(f"{where}: [design] time_plan must add up to {ROUND_MINUTES} minutes, not {sum(minutes)}")
    return SimpleNamespace(title=raw["title"], short=raw["short"], order=raw["order"], prompt=raw["prompt"],
                           time_plan=raw["time_plan"], risk=raw["risk"],
                           why_no_gap_target=raw.get("why_no_gap_target"), adopted=adopted, regions=regions,
                           sizing_variants=tuple(sizing),
                           critiques=_critiques(raw.get("critiques"), where, variants))


POSITIVE, TEXT, TABLE, LIST = "a positive number", "a string", "a table", "a list"  # what an input may be
_IS = {
    POSITIVE: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0,
    TEXT: lambda v: isinstance(v, str), TABLE: lambda v: isinstance(v, dict), LIST: lambda v: isinstance(v, list),
}


def positive(*keys: str) -> dict[str, str]:
    """Input kinds for `inputs`: each of `keys` a positive, finite number."""
    return dict.fromkeys(keys, POSITIVE)


def inputs(slug: str, kinds: Mapping[str, str], path: Path | None = None) -> dict[str, Any]:
    """The [design.inputs] table of macros/data/designs/<slug>.toml (or of `path`): the design's own
    assumptions beyond the workload, which its page model reads, every key of `kinds` present and of its
    kind (POSITIVE, TEXT, TABLE or LIST). Anything else is one DesignError line naming the file and the key."""
    path = path or DESIGNS_DIR / f"{slug}.toml"
    where = f"{display_path(path)}: [design.inputs]"
    raw = read_toml(path, DesignError).get("design", {}).get("inputs")
    if not isinstance(raw, dict):
        raise DesignError(f"{where} is missing")
    missing = [key for key in kinds if key not in raw]
    if missing:
        raise DesignError(f"{where} is missing {', '.join(missing)}")
    for key, kind in kinds.items():
        if not _IS[kind](raw[key]):
            raise DesignError(f"{where} {key} must be {kind}, got {raw[key]!r}")
    return raw


def _time_plan(items: list[dict[str, Any]]) -> str:
    rows, start = [], 0
    for item in items:
        rows.append([f"{start}–{start + item['minutes']}", item["what"]])
        start += item["minutes"]
    return table(["Minute", "What you do"], rows, align="rl")


def _derivation(steps: list[tuple[str, str]]) -> str:
    lines = "\n".join(f"- **{what}**: {how}" for what, how in steps)
    return f'<div class="derivation" markdown>\n\n{lines}\n\n</div>'


def binding(p: Plan) -> str:
    """What caps the plan's batch, in words."""
    return plan_report.BINDING[p.binding]


def binds(p: Plan, limit: str) -> Assumption:
    """"The TPOT target binds, not memory": the fact that `limit` ("kv" or "tpot") caps the plan's batch."""
    return assume(p.binding == limit, f"batch {p.slo_batch} of a possible {p.max_batch}: the {binding(p)} caps it",
                  f"the {binding(p)} binds now, not the {plan_report.BINDING[limit]}: say which limit caps the batch")


def binds_words(p: Plan) -> str:
    """"The constraint that binds (here ...)": which limit caps the plan's batch, against the other."""
    return "the time-per-token target, not memory" if p.binding == "tpot" else "memory, not the time-per-token target"


def _heading(kind: str, n: int, title: str, extra: str = "") -> str:
    return f"### {kind.title()} {n}: {title} {{ #{kind}-{n} .{kind}{extra} }}"


SERVES = assume(True, "", "")  # a design the planner found a fleet for


def serves(title: str, result: Infeasible, variant: str | None = None) -> Assumption:
    """The premise of a worked answer, broken: the planner found no fleet for the design (or for `variant`, a
    revision the answer prices) on this data. The evidence is the planner's reason (the constraint the widest
    shape still misses)."""
    which = title if variant is None else f"{title}, [variants.{variant}]"
    return assume(False, f"{which}: {plan_report.infeasible(result)}",
                  f"no replica of up to {result.widest.gpus_per_replica} GPUs serves this design on this data: "
                  "change its GPU, model or targets in its design file, or rewrite the page around the design "
                  "that does not fit")


def _infeasible(slug: str, m: SimpleNamespace, file: str, result: Infeasible, variant: str | None) -> SimpleNamespace:
    """What a design page can still say when no shape serves its workload, or one of the variants its worked
    answer revises to: the prompt, the time plan, and in words which shapes the planner tried and the target
    the widest still misses."""
    w = result.workload
    which = "it" if variant is None else f"its revision [variants.{variant}]"
    return SimpleNamespace(
        title=m.title, prompt=m.prompt, file=file, workload=w, time_plan=_time_plan(m.time_plan),
        critiques=m.critiques, feasible=False, serves=serves(m.title, result, variant),
        shape=f"{result.widest.gpus_per_replica} × {get_gpu(w.gpu).name}", reason=plan_report.infeasible(result),
        infeasible_words=f"On this data the planner finds no fleet for {which}: {plan_report.infeasible(result)}.",
    )


@memoized  # a design's figures are read by its page, the index, the summaries and the mock round
def model(slug: str, infeasible_ok: bool = False) -> SimpleNamespace:
    """The design's worked figures. When the planner finds no fleet for it (or for a variant its answer
    revises to), a caller that can say so in words (`infeasible_ok`: the design's own page, the index)
    gets what it can still say (feasible False); any other caller, which cannot be written without the
    plan, gets one PlanError line naming the file and the variant."""
    m = meta(slug)
    w, variants = load_design(slug)
    file = display_path(DESIGNS_DIR / f"{slug}.toml")
    results = {None: plan(w)} | {name: plan(v) for name, v in variants.items()}
    for name, result in results.items():
        if isinstance(result, Infeasible):  # the page says so in words; its worked answer has no figures to show
            if not infeasible_ok:
                require(result, file if name is None else f"{file}: [variants.{name}]")
            return _infeasible(slug, m, file, result, name)
    p = require(results[None], file)
    plans = {name: require(results[name], f"{file}: [variants.{name}]") for name in variants}
    by_number = {c.number: c for c in m.critiques}

    def critique(n: int) -> str:
        c = by_number[n]
        title = defects()[c.defect]["title"]
        return _heading("critique", n, f"{c.critique}", f' data-defect="{c.defect}"') + (
            f"\n\n*Defect: {title}.*")

    # The serving model's answer for the design and each variant (engine/fleet/answer.py): the fleet the page
    # recommends and prices; the napkin plans above are its first-order derivation.
    a = serving_answer(p)
    answers = {name: serving_answer(q) for name, q in plans.items()}
    # where the file pins the token budget, the answer with the planner searching it instead
    searched = None if w.token_budget is None else serving_answer(plan(dataclasses.replace(w, token_budget=None)))

    def revision(n: int) -> str:
        c = by_number[n]
        out = _heading("revision", n, c.revision)
        if c.variant:
            out += "\n\n" + design_revision.comparison(a, answers[c.variant], c.label, c.verdict,
                                                         sizing=c.variant in m.sizing_variants)
        return out

    moves = {c.variant: (c.number, c.critique, a, answers[c.variant]) for c in m.critiques if c.variant}
    heaviest = design_answer.heaviest(moves)
    built = None if m.adopted is None else answers[m.adopted]  # the fleet with the revisions the critiques adopt
    adopted = tuple(c.number for c in m.critiques if c.verdict == "adopted")  # the revisions it carries

    def summarise(build_words: str | None = None, extra: tuple[tuple[str, str], ...] = ()) -> str:
        return design_answer.summary(w, a, m.risk, heaviest, built=built, build_words=build_words,
                                     regions=m.regions, extra=extra, adopted=adopted)

    return SimpleNamespace(
        title=m.title, prompt=m.prompt, file=file, workload=w, plan=p, variants=plans,
        answer=a, answers=answers,
        answer_changes={name: Change(a, v) for name, v in answers.items()},  # each variant's answer against the design
        changes={name: Change(p, v) for name, v in plans.items()},  # the same on the napkin (its derivation's prose)
        regions=m.regions,
        summary=summarise(),
        # the same block with a page's own fleet to build, where it is not a variant's answer (the autoscaler's
        # reservation), or rows of its own after the tails (a product target the file's SLOs derive from)
        summarise=summarise,
        # the same block on another page (chapter 7's), its critique linking back here
        summary_elsewhere=design_answer.summary(w, a, m.risk, heaviest, f"../designs/{slug}.md", built,
                                                regions=m.regions, adopted=adopted),
        ladder=design_answer.ladder(a), budget_words=design_answer.budget_words(a, m.why_no_gap_target, searched),
        fleet_words=design_answer.fleet(a),
        steps=plan_report.steps(p), napkin=_derivation(plan_report.steps(p)), time_plan=_time_plan(m.time_plan),
        critiques=m.critiques,
        critique=critique, revision=revision, binding=binding(p),
        tpot_binds=binds(p, "tpot"), kv_binds=binds(p, "kv"),
        binds_words=binds_words(p),
        prefill_replicas=p.prefill_replicas, decode_replicas=p.decode_replicas,
        feasible=True, serves=SERVES,
        # Section 3's answer, the same block on every design: the ladder from the floor, why, the budget, the band.
        answer_block=design_answer.block(a, m.why_no_gap_target, searched),
    )
