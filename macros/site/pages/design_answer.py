"""A worked design's one answer as its page shows it: the summary at a glance, the ladder from the roofline
floor to the serving model's fleet, the token budget the answer runs with, the assumptions and the band (the
answer against further draws and the band's tie are design_noise.py; a revision's answer against the original's is
design_revision.py). Every figure is the planner's answer (engine/fleet/answer.py), the fleet the serving model
supports at the design's targets, or the napkin it starts from; every sentence is generated from them.
"""

from __future__ import annotations

import math

from ...engine import formulas as f
from ...engine.fleet import planner_simulated as ps
from ...engine.fleet.answer import TOKEN_BUDGETS, Answer, default_budget
from ...engine.fleet.planner import Plan
from ...engine.fleet.planner_simulated import CONFIRM_SEEDS, SEED, value
from ...engine.fleet.workload_file import Target, Workload
from ...engine.lookup import get_gpu
from ...engine.serving.calibration import band_for
from ...engine.serving.profiles import profile
from ...text import fmt
from ..markdown import listed, table
from .design_noise import NONE, fresh_words, holds_words, margin_rung, span

SIMULATION = "../planner.md#the-answer"  # where the site explains the simulation, once
WHY_NONE = {
    ps.NO_SHAPE: "the napkin finds no replica shape to simulate",
    ps.ONE_AT_A_TIME: "one replica serving one request at a time already misses a target, so no count meets them",
    ps.LIMIT: f"no count up to {ps.SEARCH_LIMIT}× the napkin's meets the targets",
    ps.NOT_FEWER: "no count meets the targets",
    ps.REFUSED: "the engine cannot hold the model and one request on the replica",
}


def gpu_name(w: Workload) -> str:
    return get_gpu(w.gpu).name


def fleet(a: Answer) -> str:
    """"380 × 4 H100 SXM = 1,520 GPUs", or the dash of a fleet that does not exist."""
    if not a.feasible:
        return NONE
    return f"{fmt.count(a.replicas)} × {a.gpus_per_replica} {gpu_name(a.simulated.workload)} = {fmt.count(a.gpus)} GPUs"


def engine_name(w: Workload) -> str:
    return profile(w.engine, w.gpu, w.model, w.weights).name


def why_none(a: Answer) -> str:
    """Why the serving model finds no fleet, in words (the answer's simulation on the napkin's shape)."""
    return WHY_NONE[a.simulated.infeasible_because]


def target_words(t: Target) -> str:
    """"p95 TTFT 500 ms"."""
    return f"{t.words} {fmt.seconds(t.seconds)}"


def targets_words(w: Workload) -> str:
    return ", ".join(target_words(t) for t in w.targets)


METRIC_KEYS = {"ttft": "ttft_p95_s", "tpot": "tpot_p95_s", "itl": "itl_p95_s"}
METRIC_NAMES = {"ttft": "TTFT", "tpot": "TPOT", "itl": "gap between tokens"}


def p95s(a: Answer) -> str:
    """"p95 TTFT 357 ms, TPOT 49.7 ms, gap between tokens 92 ms": the simulated p95s of the answer."""
    out = []
    for metric, key in METRIC_KEYS.items():
        figure = getattr(a, key)
        if figure is not None:
            out.append(f"{METRIC_NAMES[metric]} {fmt.seconds(figure)}")
    return "p95 " + ", ".join(out) if out else NONE


def budget_words(a: Answer, why_no_gap_target: str | None, searched: Answer | None = None) -> str:
    """The token budget the answer runs with, against the engine's own, and why: a step that carries a long
    prefill chunk is a long gap between tokens for every stream sharing it. `searched`: where the design file pins
    the budget, the answer when the planner searches it instead (what it picks, and what the default needs)."""
    w = a.napkin.workload
    own, engine = default_budget(w), engine_name(w)
    gap = next((t for t in w.targets if t.metric == "itl"), None)
    run = f"Each engine step carries at most {fmt.count(a.token_budget)} tokens"
    if w.token_budget is not None:
        if searched is None or not searched.feasible:
            return run + f", as the design file sets ({engine}'s default is {fmt.count(own)})."
        pick = (": the budget the planner's search picks on this shape" if searched.token_budget == a.token_budget
                else f", where the planner's own search picks {fmt.count(searched.token_budget)} on this shape")
        return (run + f", as the design file sets{pick}. At {engine}'s default of {fmt.count(own)} the same "
                f"targets need {default_budget_fleet(searched, a.gpus_per_replica)}.")
    if gap is None:
        unseen = f"the design sets no target on the gap between tokens ({why_no_gap_target})"
        if a.token_budget == own:
            return (run + f", {engine}'s default: {unseen}, and no budget down to {min(TOKEN_BUDGETS)} tokens needs "
                    "fewer GPUs.")
        return (run + f", not {engine}'s default of {fmt.count(own)}: {unseen}, but the budget still trades the "
                f"steps that carry a prefill chunk against the wait for the first token, and under the "
                f"{a.simulated.binding.words} this budget needs the fewest GPUs. On the same shape the default budget "
                f"gives {default_budget_fleet(a, a.gpus_per_replica)}.")
    if a.token_budget == own:
        return (run + f", {engine}'s default: at it the p95 gap between tokens, {fmt.ms(a.itl_p95_s)}, is "
                f"inside the {fmt.ms(gap.seconds)} target.")
    return (run + f", not {engine}'s default of {fmt.count(own)}: a step that carries a long prefill chunk is a "
            f"long gap for every stream sharing it, and under the {fmt.ms(gap.seconds)} p95 gap target this budget "
            f"needs the fewest GPUs (its p95 gap is {fmt.ms(a.itl_p95_s)}). On the same shape the default budget gives "
            f"{default_budget_fleet(a, a.gpus_per_replica)}.")


def default_budget_fleet(a: Answer, gpus_per_replica: int) -> str:
    """What the engine's default token budget needed on a shape among the runs an answer's search tried."""
    at_default = a.tried.get((gpus_per_replica, None))
    if at_default is None or not at_default.feasible:
        return "no fleet that meets the targets"
    return f"{fmt.count(at_default.gpus)} GPUs"


def risk_words(risk: str) -> str:
    return risk.rstrip(".") + "."


def heaviest(changes: dict[str, tuple[int, str, Answer, Answer]]) -> tuple[int, str, str] | None:
    """Of the critiques whose revision sizes a variant, the one that moves the fleet most (a variant with no
    fleet moves it most): (number, critique, the move in words)."""
    best, key = None, -1.0
    for number, title, before, after in changes.values():
        if not before.feasible:
            continue
        if not after.feasible:
            move, words = math.inf, f"Sized, no fleet meets it ({why_none(after)})"
        else:
            move = abs(math.log(after.gpus / before.gpus))
            words = (f"Sized, it needs {fmt.count(after.gpus)} GPUs against "
                     f"{fmt.count(before.gpus)}, {fmt.num(after.gpus / before.gpus)}×")
        if move > key:
            best, key = (number, title, words), move
    return best


def summary(w: Workload, a: Answer, risk: str, worst: tuple[int, str, str] | None, page: str = "",
            built: Answer | None = None, build_words: str | None = None, regions: int = 1,
            extra: tuple[tuple[str, str], ...] = (), adopted: tuple[int, ...] = ()) -> str:
    """"The answer at a glance": one screen with the workload, the targets, the answer and its p95s, its cost,
    the napkin it started from, the risk that decides it and the critique that moves it most (on `page`, the
    design's own file as another page links it; "" on the design's page). `built`: the answer with the revisions
    the critiques adopt ([design] adopted), when a design adopts some: then that is the fleet to build, in whole
    replicas per region when it is split over `regions` that each serve alone.
    `build_words`: the fleet to build in a page's own words, where it is not a variant's answer (the
    autoscaler's reservation). `extra`: (what, words) rows a page adds after the tails (a product's own target).
    `adopted`: the numbers of the revisions `built` carries, linked, so the fleet to build names its derivation."""
    traffic = (f"{fmt.num(a.peak_requests_per_s)} requests/s at peak, {fmt.tokens(w.prompt_tokens)} in "
               f"({fmt.pct(w.prefix_hit_rate)} from the prefix cache) and {fmt.tokens(w.output_tokens)} out, "
               f"{a.napkin.at_slo.model_spec.name} on {gpu_name(w)}, {w.weights.upper()} weights")
    if a.feasible:
        answer = (f"**{fleet(a)}**, {fmt.count(a.token_budget)} tokens per step; {fmt.usd(a.cost_per_day)} a day, "
                  f"{fmt.usd(a.cost_per_million_output_tokens)} per million output tokens at the peak's rate")
        tails = f"{p95s(a)}, simulated ([how]({SIMULATION}))"
    else:
        answer = f"**no fleet**: {why_none(a)}"
        tails = NONE
    rows = [("Workload", traffic), ("Targets", targets_words(w)), ("The answer", answer), ("Its tails", tails),
            *extra,
            ("The napkin", f"{fmt.count(a.napkin_replicas)} × {a.napkin_gpus_per_replica} "
                           f"({fmt.count(a.napkin_gpus)} GPUs), the first-order fleet it starts from"),
            ("The risk that decides it", risk_words(risk))]
    if worst is not None:
        n, title, words = worst
        ended = title if title.rstrip()[-1:] in ".?!" else title + "."
        rows.append(("The critique that moves it most", f"[{n}. {ended}]({page}#critique-{n}) {words}"))
    if built is not None or build_words is not None:
        links = [f"[{n}]({page}#revision-{n})" for n in adopted]
        named = ("the revisions the critiques adopt" if not adopted else f"revision {links[0]}" if len(links) == 1
                 else f"revisions {listed(links)} priced together")
        rows.append(("The fleet to build", build_words or adopted_words(built, a, named, regions=regions)))
    body = "\n".join(f"    - **{what}.** {value}" for what, value in rows)
    return f'!!! abstract "The answer at a glance"\n\n{body}'


def adopted_words(built: Answer, a: Answer, revisions: str = "the revisions the critiques adopt",
                  regions: int = 1) -> str:
    """The fleet with the revisions the critiques adopt (`revisions`, as a page names them), against the answer
    before them. Over `regions` that each serve alone, each region's share rounds up to whole replicas."""
    if not built.feasible:
        return f"With {revisions}, **no fleet**: {why_none(built)}"
    if regions == 1:
        return (f"With {revisions}, **{fleet(built)}**, {fmt.usd(built.cost_per_day)} a day, "
                f"{fmt.times(built.gpus / a.gpus, 3)} the answer above. {holds_words(built)}")
    per_region = math.ceil(built.replicas / regions)
    gpus = per_region * regions * built.gpus_per_replica
    return (f"With {revisions}, **{regions} regions × {fmt.count(per_region)} × {built.gpus_per_replica} "
            f"{gpu_name(built.simulated.workload)} = {fmt.count(gpus)} GPUs**, "
            f"{fmt.usd(built.cost_per_day * gpus / built.gpus)} a day, {fmt.times(gpus / a.gpus, 3)} the answer above. "
            f"{holds_words(built)}")


def ladder(a: Answer) -> str:
    """From the roofline floor to the answer, one rung per term the napkin leaves out or the search adds, each
    with its fleet: the floor (every step at the roofline, no spare), the napkin's efficiency, its headroom, the
    serving model on the napkin's shape at the engine's budget (queueing, mixed steps, the fitted step, the
    percentile targets), the shape the search chose, the token budget it chose."""
    p: Plan = a.napkin
    g = p.gpus_per_replica
    floor = f.whole_count(p.replica_seconds_per_s * p.efficiency)
    at_eff = f.whole_count(p.replica_seconds_per_s)
    rows = [("The roofline floor: every step at its floor, no spare", f"{fmt.count(floor)} × {g}", floor * g),
            (f"÷ the assumed efficiency, {fmt.pct(p.efficiency)}", f"{fmt.count(at_eff)} × {g}", at_eff * g),
            (f"+ {fmt.pct(p.headroom)} headroom: **the napkin**", f"{fmt.count(p.replicas)} × {g}", p.gpus)]
    pinned = p.workload.token_budget  # the file's own budget, or None: the engine's default, tried first
    first = a.tried.get((g, pinned))
    if first is not None:
        rows.append(("The serving model on the napkin's shape: queueing, prefill inside the steps, the fitted step, "
                     "the p95 targets", _shape(first), first.gpus))
    at_default = [s for (_, b), s in a.tried.items() if b == pinned and s.feasible]
    best = min(at_default, key=lambda s: s.gpus) if at_default else None  # min keeps the first of a tie
    if best is not None and best is not first:
        budget = "the engine's default budget" if pinned is None else "the file's budget"
        rows.append((f"The shape that needs the fewest GPUs at {budget}, {best.gpus_per_replica} per replica",
                     _shape(best), best.gpus))
    if a.feasible and a.budget != pinned:
        rows.append((f"{fmt.count(a.token_budget)} tokens per step, for the gap target, on the shape that needs the "
                     "fewest GPUs at it", _shape(a.simulated), a.gpus))
    if a.feasible:
        rows[-1] = (rows[-1][0] + ": **the answer**", *rows[-1][1:])
        rows.append(margin_rung(a))
    cells = [(what, shape, NONE if gpus is None else fmt.count(gpus)) for what, shape, gpus in rows]
    return table(["Rung", "Replicas × GPUs", "GPUs"], cells, align="lrr")


def _shape(s: ps.SimulatedPlan) -> str:
    if not s.feasible:
        return f"none: {WHY_NONE[s.infeasible_because]}"
    return f"{fmt.count(s.replicas)} × {s.gpus_per_replica}"


def why_words(a: Answer) -> str:
    """The rung from the napkin to the serving model on the napkin's shape, in words: which target sets the
    simulated count, and what one replica fewer gives."""
    p = a.napkin
    s = a.tried.get((p.gpus_per_replica, p.workload.token_budget))
    if s is None or not s.feasible:
        return (f"On the napkin's shape the serving model finds no fleet: {WHY_NONE[s.infeasible_because]}."
                if s is not None else "")
    more = "more" if s.replicas > p.replicas else "fewer"
    out = (f"On the napkin's shape the serving model needs {more} replicas than the napkin ({fmt.count(s.replicas)} "
           f"against {fmt.count(p.replicas)}): it queues requests that arrive at random, runs prefill chunks inside "
           f"the decode steps, takes the fitted step rather than the floor ÷ {fmt.pct(p.efficiency)}, and holds the "
           "p95s rather than the means")
    if s.below is None:
        return out + "."
    t = s.binding
    # four figures: a miss by a hair (100.04 ms against 100 ms) must not print as the target itself
    draw = "" if s.below.seed == SEED else f" on seed {s.below.seed}'s draw"
    return out + (f"; at {fmt.count(s.below.replicas)} the {t.words} reaches "
                  f"{fmt.seconds(value(s.below.stats, t), 4)}{draw} against its {fmt.seconds(t.seconds)} target.")


def assumptions_words(a: Answer) -> str:
    """What the simulated figures assume, and the band inside which two fleets are a tie."""
    if not a.feasible:
        return ""
    w, c = a.simulated.workload, a.simulated.chosen
    arrivals = ("at random (Poisson)" if w.burstiness == 1
                else f"in bursts (gamma gaps, burstiness {fmt.num(w.burstiness)})")
    low, high, basis = band_for(w.gpu)
    fewest, most = span(a)
    return (f"The simulated figures assume one replica at its share of the peak, {fmt.num(c.rate_per_s)} requests/s "
            f"arriving {arrivals}, mean lengths, {fmt.count(c.stats['requests'] + c.stats['warmup_requests'])} "
            f"requests, the first {fmt.count(c.stats['warmup_requests'])} as warm-up, seed {SEED}'s draw; the count "
            f"meets its targets on seeds {SEED} to {CONFIRM_SEEDS[-1]} alike and {fresh_words(a)} "
            f"([the method]({SIMULATION})). "
            f"The calibrated band on this GPU ({basis}) puts the model's median TPOT at {fmt.num(low)}× to "
            f"{fmt.num(high)}× the measured; scaled by it, the answer spans {fmt.count(fewest)} to "
            f"{fmt.count(most)} replicas: two fleets inside that span tie."
            + pooled_words(w, a.gpus_per_replica))


def pooled_words(w: Workload, gpus: int) -> str:
    """How the step model treats attention data parallelism, where it applies (serving/step.py, scheduler.py): a
    prompt's chunk runs on its sequence's rank under that rank's budget, and the step waits for the busiest rank;
    what it leaves out (the decodes' imbalance, each rank's own share of the KV pool) leans optimistic."""
    if w.layout != "dp-attention":
        return ""
    return (f" Each prompt's attention runs on its own rank of the {gpus} under that rank's token budget, the step "
            f"waiting for the busiest; left out: uneven decodes and each rank's own KV pool (optimistic).")


def block(a: Answer, why_no_gap_target: str | None, searched: Answer | None = None) -> str:
    """Section 3's answer: the ladder from the floor to the answer, then why each step up or down is there, the
    token budget (against the planner's own search for it, `searched`, where the file pins it), and the
    assumptions and band."""
    sentences = [why_words(a), budget_words(a, why_no_gap_target, searched), assumptions_words(a)]
    return ladder(a) + "\n\n" + "\n".join(f"- {s}" for s in sentences if s)
