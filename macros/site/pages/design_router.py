"""The router design (docs/designs/router.md): the figures beyond the plan. What the prefix cache holds
and for how long, the hit rate each routing policy earns, what a load bound costs in hit rate, and what
a regional failover does to the survivors. Inputs are the design's assumptions, from [design.inputs] of
macros/data/designs/router.toml; values in SI units, hit rates and shares as fractions.

The fleet the page recommends and prices is the serving model's answer: its replicas per region, the ring they
make, the calls in flight on each, what a regional failover leaves the survivors, and
every revision's price. The cache's residency and the load bound are derived first order, on the napkin's
replicas and their planned times (the file's hit rates rest on that derivation); the page says so.

The file's hit rates (the base prefix_hit_rate and the two variants') are the planner's inputs, typed in
the file so that `gpu_math.py plan` can read it; this model derives them from [design.inputs] and the plan,
and declares their agreement as an assumption of the sentences whose figures come from the file's rates
(a changed spec moves the derivation, and the build then names those sentences). The N+1 variant's
headroom is arithmetic on the inputs alone, so a drift there stops the build, naming the field."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from types import SimpleNamespace
from typing import Any

from ...engine import formulas as f
from ...engine.fleet import planner_simulated as ps
from ...engine.fleet.answer import Answer, answer
from ...engine.fleet.planner import Plan, plan, require
from ...engine.fleet.workload_file import Workload
from ...text import fmt
from ..assumptions import Assumption, assume
from ..markdown import table
from . import design, design_answer, design_noise

SLUG = "router"
P95_Z = 1.645  # the standard normal's 95th percentile
HIT_TOLERANCE = 0.01  # a stated hit rate within a point of the derived one is the same assumption
INPUTS = {"load_bounds": design.LIST, **design.positive(
    "shared_prefix_tokens", "new_tokens_per_turn", "turns_per_conversation", "turn_gap_s",
    "host_cache_bytes", "session_burst", "load_bound", "revised_load_bound", "cross_region_rtt_s",
    "cross_region_bytes_per_s", "cold_window_gaps")}


def inputs(path: Any = None) -> dict[str, Any]:
    """[design.inputs] of the router's design file, every field present and of its kind."""
    return design.inputs(SLUG, INPUTS, path)


def _check(where: str, stated: float, derived: float, tolerance: float) -> None:
    design.check_stated(SLUG, where, stated, derived, tolerance)


def _agrees(where: str, stated: float, derived: float) -> Assumption:
    """"The N % the plan uses": a hit rate typed in the design file matches the one derived from the inputs."""
    return assume(abs(stated - derived) <= HIT_TOLERANCE,
                  f"{where} in macros/data/designs/{SLUG}.toml is {fmt.pct(stated)}, derived {fmt.pct(derived)}",
                  f"set {where} in macros/data/designs/{SLUG}.toml to the derived {derived:.3f}")


def _at(w: Workload, **changes: Any) -> Plan:
    changed = ", ".join(f"{key} = {value!r}" for key, value in changes.items())
    return require(plan(dataclasses.replace(w, **changes)), f"macros/data/designs/{SLUG}.toml (with {changed})")


def residency_words(napkin_rate: float, answer_rate: float) -> str:
    """How the answer's replicas compare with the napkin's on which the cache's residency is derived: a replica that
    takes fewer requests a second writes KV more slowly and keeps a session longer."""
    if math.isclose(answer_rate, napkin_rate, rel_tol=1e-3):
        return "A replica of the answer's fleet takes the same load, so the estimate stands"
    fewer = answer_rate < napkin_rate
    return (f"A replica of the answer's fleet takes {fmt.num(answer_rate)} requests a second against the napkin's "
            f"{fmt.num(napkin_rate)}, so it keeps a session {'longer' if fewer else 'for less'}: the estimate is "
            f"{'conservative' if fewer else 'optimistic'}")


def layout_words(tp: Answer, dp: Answer, tp_cache: SimpleNamespace, dp_cache: SimpleNamespace, tp_hit: float,
                 dp_hit: float) -> str:
    """Tensor parallelism against data-parallel attention, each at the hit rate its own caches earn, in words that
    follow the serving model: a data-parallel rank holds each token's KV once (tensor parallelism copies a KV head
    over the GPUs beyond the heads) but prefills each of its prompts alone while the others wait for it at the
    experts' exchange."""
    gap = round((dp_hit - tp_hit) * 100)
    points = ("the same to within a point" if gap == 0 else
              f"{abs(gap)} point{'s' if abs(gap) > 1 else ''} {'more' if gap > 0 else 'fewer'}")
    held = (f"Data-parallel attention would hold each token's KV once, not twice: its caches keep an untouched "
            f"session {fmt.seconds(dp_cache.residency_s)} against {fmt.seconds(tp_cache.residency_s)}, and under "
            f"the same load bound earn {fmt.pct(dp_hit)} against {fmt.pct(tp_hit)}, {points}.")
    if not dp.feasible:
        return (f"{held} But each rank prefills its prompts alone, and the serving model finds no such fleet at all: "
                f"{design_answer.why_none(dp)}.")
    return (f"{held} But each rank prefills its prompts alone while the others wait for it: the serving model needs "
            f"{fmt.count(dp.gpus)} GPUs, {fmt.times(dp.gpus / tp.gpus)} these.")


def blind_words(base: Answer, blind: Answer, cold_tokens: float) -> str:
    """What the serving model sees in the cache-blind fleet that the napkin does not, from its run: the target that
    sets the count and how busy it leaves a replica, against the design's; when the gap between tokens sets it,
    the steps a cold prompt fills at the run's token budget."""
    if not blind.feasible:
        return f"the serving model finds no cache-blind fleet at all: {design_answer.why_none(blind)}"
    t = blind.simulated.binding
    out = (f"the {t.words} sets the count: each replica takes {fmt.num(blind.simulated_requests_per_s_per_replica)} "
           f"requests a second and holds {fmt.num(blind.live_concurrency_per_replica)}, against "
           f"{fmt.num(base.simulated_requests_per_s_per_replica)} and {fmt.num(base.live_concurrency_per_replica)} "
           "on the design's fleet")
    if t.metric == "itl":
        chunks = math.ceil(cold_tokens / blind.token_budget)
        out += (f", because every cold prompt prefills {fmt.tokens(cold_tokens)} in {chunks} steps of "
                f"{fmt.count(blind.token_budget)} tokens, each a long gap for every stream sharing it")
    return out


def cold_window(a: Answer, blind: Answer, regions: int, answer_survivors: int, np1_survivors: int
                ) -> SimpleNamespace:
    """The failover window on the serving model: a moved request arrives cold, and costs what a request of the
    cache-blind answer (whose whole peak arrives cold) does, its replicas per request over the answer's. The window
    needs the survivors' warm share plus the lost region's cold third, against the answer's warm fleet. When the
    serving model finds no cache-blind fleet it cannot price the window: every figure is None and `priced` False."""
    if not blind.feasible:
        return SimpleNamespace(priced=False, cold_per_request=None, ratio=None, utilisation=None,
                               np1_utilisation=None, np1_shed=None)
    cold_per_request = blind.replicas / a.replicas
    ratio = (regions - 1 + cold_per_request) / regions
    load = a.replicas * ratio  # the window's load, in the answer's replicas
    return SimpleNamespace(priced=True, cold_per_request=cold_per_request, ratio=ratio,
                           utilisation=load / answer_survivors, np1_utilisation=load / np1_survivors,
                           np1_shed=1 - np1_survivors / load)


def window_words(w: SimpleNamespace, napkin_ratio: float, napkin_utilisation: float) -> str:
    """Revision 2's cold window on the serving model (cold_window), with the napkin's ratio beside it; when the model
    cannot price it, what it does say."""
    work = "the TTFT target must hold long cold prefills, which a count of work does not see"
    if not w.priced:
        return ("The serving model finds no fleet for a peak that arrives cold (revision 1): while cold, the moved "
                "sessions miss their TTFT target on any fleet in reach. The napkin's count of work says the window "
                "needs "
                f"{fmt.times(napkin_ratio)} the warm fleet, {fmt.pct(napkin_utilisation)} of the survivors' capacity, "
                f"and undercounts it ({work}).")
    return ("The serving model prices a cold request by the round-robin variant, whose whole peak arrives that way: "
            f"{fmt.times(w.cold_per_request)} the answer's replicas. With the lost region's third of the peak cold, "
            f"the window needs {fmt.times(w.ratio)} the warm fleet, where the napkin's count of work says "
            f"{fmt.times(napkin_ratio)} ({work}). So in the window the survivors face about {fmt.pct(w.utilisation)} "
            f"of their capacity ({fmt.pct(napkin_utilisation)} on the napkin's ratio), and the queue grows without "
            "limit.")


def shed_words(w: SimpleNamespace, np1_survivors: int) -> str:
    """What admission control defers through the cold wave, on N+1's survivors."""
    if not w.priced:
        return (f"even N+1's {fmt.count(np1_survivors)} survivors cannot serve the cold sessions within their TTFT "
                "target, so admission control defers the moved sessions' lowest-priority work through the cold wave")
    return (f"even N+1's {fmt.count(np1_survivors)} survivors face about {fmt.pct(w.np1_utilisation)} for a few "
            f"minutes, so admission control defers about {fmt.pct(w.np1_shed)} of the work at the window's start")


ROBUST_BUDGET = 4096  # half the engine's 8,192 tokens a step: the other cure for the gap's knife edge


def gap_edge(d: SimpleNamespace) -> SimpleNamespace:
    """The p95 gap between tokens on draws no search saw, and its two cures priced on the same draws: the fewest
    replicas that meet every target on every draw (the margin, design_noise.margin), and the answer at ROBUST_BUDGET
    tokens a step (a smaller budget, so a step that carries a prefill chunk is shorter)."""
    a, w = d.answer, d.workload
    gap = next(t for t in w.targets if t.metric == "itl")

    def draws(x: Answer) -> tuple:
        return ps.fresh_draws(x.simulated.workload, x.gpus_per_replica, x.replicas)

    at_answer = draws(a)
    misses = sum(gap in c.misses for c in at_answer)
    # the draws that hold the gap but miss another target, by the first target each misses
    others = Counter(c.misses[0].words for c in at_answer if c.misses and gap not in c.misses)
    margin = design_noise.margin(a)
    budget = answer(require(plan(dataclasses.replace(w, token_budget=ROBUST_BUDGET)), f"{SLUG} ({ROBUST_BUDGET})"))
    budget_held = sum(c.meets for c in draws(budget))
    built = d.answers["adopted"]
    built_replicas = math.ceil(built.replicas / d.regions) * d.regions
    return SimpleNamespace(
        target_s=gap.seconds, misses=misses, draws=len(at_answer), held=sum(c.meets for c in at_answer),
        worst_s=max(ps.value(c.stats, gap) for c in at_answer),
        others=", ".join(f"{n} {'misses' if n == 1 else 'miss'} its {what}" for what, n in others.items()),
        margin=margin, margin_ratio=None if margin is None else margin / a.replicas,
        budget=ROBUST_BUDGET, budget_answer=budget, budget_ratio=budget.gpus / a.gpus, budget_held=budget_held,
        knife=assume(misses > 0, f"the p95 gap misses on {misses} of {len(at_answer)} further draws",
                     "the answer's p95 gap now holds on every further draw: drop the knife edge"),
        margin_cheaper=assume(margin is not None and margin < budget.replicas,
                              f"a margin of {margin} replicas holds on every draw; {ROBUST_BUDGET} tokens a step "
                              f"needs {budget.replicas}", "the margin is no longer the cheaper cure: rewrite"),
        margin_tie=assume(margin is not None and design_noise.tie(a, gpus=margin * a.gpus_per_replica),
                          f"the margin's {margin} replicas lie inside the band's span of the answer",
                          "the margin now lies outside the calibrated band's span: it is no longer a tie, say so"),
        built_covers=assume(margin is not None and built_replicas >= margin,
                            f"the fleet to build holds {built_replicas} replicas against the margin's {margin}",
                            "the fleet to build no longer covers the margin: say so"),
    )


def replica_cache(pl: Plan, x: dict[str, Any], shared: float, affine: float) -> SimpleNamespace:
    """One replica's prefix cache, first order on the napkin's fleet `pl`: HBM beyond its live sequences at the peak
    (Little's law, not the SLO batch) plus the host tier, LRU, filled by new KV at the replica's share of the peak.
    Under data-parallel attention each rank is a cache with 1 / ranks of the room and of the inserts: the same
    residency. The KV per token is the layout's: tensor parallelism over more GPUs than KV heads holds a head twice."""
    ranks = pl.gpus_per_replica if pl.layout == "dp-attention" else 1  # each attention rank keeps its own KV
    requests = pl.peak_requests_per_s / pl.replicas
    insert = requests * (pl.uncached_prompt_tokens + pl.workload.output_tokens) * pl.kv_bytes_per_token
    residency_hbm = f.lru_residency_s(pl.cache_room_bytes, insert)
    residency = f.lru_residency_s(pl.cache_room_bytes + x["host_cache_bytes"], insert)
    warm_hbm = f.warm_probability(residency_hbm, x["turn_gap_s"])
    warm = f.warm_probability(residency, x["turn_gap_s"])
    return SimpleNamespace(ranks=ranks, requests_per_replica=requests, insert_bytes_per_s=insert,
                           hbm_cache_bytes=pl.cache_room_bytes, residency_hbm_s=residency_hbm, residency_s=residency,
                           warm_hbm=warm_hbm, warm=warm, hit_home=shared + affine * warm,
                           hit_hbm_only=shared + affine * warm_hbm)


def at_bound(bound: float, c: SimpleNamespace, a: Answer, regions: int, burst: float, shared: float,
             affine: float) -> SimpleNamespace:
    """The hit rate a bounded-load ring earns on the answer `a`'s fleet: the home load's spread (its calls in flight
    a replica, sessions in clumps of `burst`), the share the bound sends on, and those requests landing cold, as a
    cache-blind router's do, on one of the region's caches."""
    cv = f.home_load_cv(a.live_concurrency_per_replica, burst)
    caches = math.ceil(a.replicas / regions) * c.ranks  # the ring: the region's share of the fleet, each rank a cache
    spread = f.spread_hit_rate(shared, affine * c.warm, caches)
    overflow = f.overflow_fraction(bound, cv)
    return SimpleNamespace(caches=caches, cv=cv, spread=spread, overflow=overflow,
                           hit=c.hit_home - overflow * (c.hit_home - spread))


def model(raw: dict[str, Any] | None = None) -> SimpleNamespace:
    x = raw or inputs()
    d = design.model(SLUG)
    w, p = d.workload, d.plan
    regions, prompt = d.regions, w.prompt_tokens

    # The prompt's anatomy: a shared part every cache holds, one session's history, the new turn.
    shared = x["shared_prefix_tokens"] / prompt
    history_tokens = prompt - x["shared_prefix_tokens"] - x["new_tokens_per_turn"]
    continuing = 1 - 1 / x["turns_per_conversation"]  # requests that have a history to find
    affine = history_tokens / prompt * continuing  # the most a session's home can add

    # The cache of one replica, first order on the napkin's fleet
    c = replica_cache(p, x, shared, affine)
    # a session's cached KV, one copy (what a transfer would move; the replica may hold a head twice)
    history_kv = (history_tokens + x["shared_prefix_tokens"]) * p.kv_bytes_per_seq / p.seq_len
    hbm_only = _at(w, prefix_hit_rate=c.hit_hbm_only)
    # the ring: the answer's replicas in a region (the fleet that runs)
    a = d.answer
    replicas_per_region = math.ceil(a.replicas / regions)
    napkin_replicas_per_region = math.ceil(p.replicas / regions)
    burst = x["session_burst"]

    def bounded(bound: float) -> SimpleNamespace:
        b = at_bound(bound, c, a, regions, burst, shared, affine)
        return SimpleNamespace(c=bound, caches=b.caches, cv=b.cv, spread=b.spread, overflow=b.overflow, hit=b.hit,
                               plan=_at(w, prefix_hit_rate=b.hit))

    chosen = bounded(x["load_bound"])  # the answer's first choice
    caches_per_region, hit_spread, cv = chosen.caches, chosen.spread, chosen.cv
    spread_agrees = _agrees("[variants.round-robin] prefix_hit_rate", d.variants["round-robin"].prefix_hit_rate,
                            hit_spread)

    # Bounded load: the home replica's load spread, what each bound sends on, and its price. The spread is the
    # answer's, the fleet that runs: fewer requests in flight per replica than the napkin's, so a wider spread.
    in_flight = p.live_sequences
    # The answer's arrivals are Poisson; a session's clump lands on its home replica at once
    clumped_cv = f.clumped_gap_cv(burst)
    _check("[variants.clumped] burstiness", d.variants["clumped"].workload.burstiness, clumped_cv, 1e-4)
    clumped = d.answers["clumped"]

    mean_utilisation = p.replica_seconds_per_s / p.replicas  # of a replica's capacity, at the peak
    bounds = [bounded(bound) for bound in x["load_bounds"]]
    revised = bounded(x["revised_load_bound"])  # critique 3's
    chosen_agrees = _agrees("prefix_hit_rate", w.prefix_hit_rate, chosen.hit)  # the fleet runs at its bound
    revised_agrees = _agrees("[variants.bound-1-15] prefix_hit_rate", d.variants["bound-1-15"].prefix_hit_rate,
                             revised.hit)
    # The serving model sizes a fleet for the mean replica at the peak; the bound lets one take c times that, so
    # the revised fleet is sized for c times the peak (the fullest replica then meets the targets).
    _check("[variants.bound-1-15] peak_to_mean", d.variants["bound-1-15"].workload.peak_to_mean,
           w.peak_to_mean * revised.c, 1e-9)

    # The other layout, data-parallel attention, at the hit rate its own caches earn under the same bound
    dp = d.answers["dp-attention"]
    dp_cache = replica_cache(d.variants["dp-attention"], x, shared, affine)
    dp_hit = at_bound(x["load_bound"], dp_cache, dp, regions, burst, shared, affine).hit
    dp_agrees = _agrees("[variants.dp-attention] prefix_hit_rate", d.variants["dp-attention"].prefix_hit_rate, dp_hit)

    # Regional failover: one region's traffic lands cold on the others, then warms up.
    survivors = regions - 1
    cold = _at(w, prefix_hit_rate=shared)  # the whole traffic as if it all arrived cold
    warm_load = p.replica_seconds_per_s
    window_load = warm_load * survivors / regions + cold.replica_seconds_per_s / regions
    survivor_replicas = napkin_replicas_per_region * survivors  # the napkin's, in its own units of work
    np1 = d.variants["n-plus-one"]
    # Two regions carry the peak of three: the fleet sized for regions / survivors of it, a load the serving model
    # reads (a headroom it would not: it sizes to the targets at the peak it is given).
    np1_load = regions / survivors
    _check("[variants.n-plus-one] peak_to_mean", np1.workload.peak_to_mean, w.peak_to_mean * np1_load, 1e-9)
    np1_survivor_replicas = math.ceil(np1.replicas / regions) * survivors
    failed_requests = p.peak_requests_per_s / regions
    # The same on the answer: the survivors' replicas against the answer's whole fleet, which the peak needs once
    # warm. In the cold window the failed region's third arrives with the shared prefix cached only, as the
    # round-robin variant's whole peak does: the serving model prices it at that answer's replicas per request
    # (its TTFT target holds long cold prefills, which the napkin's work ratio does not see).
    np1_answer = d.answers["n-plus-one"]
    # Both revisions at once, as the critiques adopt them: the fleet sized for 3/2 of the peak at c times the mean.
    adopted = d.variants["adopted"]
    _check("[variants.adopted] peak_to_mean", adopted.workload.peak_to_mean, w.peak_to_mean * np1_load * revised.c,
           1e-9)
    _check("[variants.adopted] prefix_hit_rate", adopted.workload.prefix_hit_rate,
           d.variants["bound-1-15"].prefix_hit_rate, 1e-9)
    answer_survivors = replicas_per_region * survivors
    window_ratio = window_load / warm_load  # the napkin's, kept beside the model's
    np1_answer_survivors = math.ceil(np1_answer.replicas / regions) * survivors
    blind = d.answers["round-robin"]
    window = cold_window(a, blind, regions, answer_survivors, np1_answer_survivors)
    napkin_window_utilisation = a.replicas * window_ratio / answer_survivors

    def bound_row(b: SimpleNamespace) -> list[str]:
        return [fmt.num(b.c), fmt.pct(b.overflow), fmt.pct(b.hit), fmt.count(b.plan.gpus), fmt.usd(b.plan.cost_per_day)]

    # Homing by geography alone: every region at its own peak, summed (the sessions could not follow the curve)
    geo = d.answers["geo-homed"]

    return SimpleNamespace(
        d=d, p=p, w=w, inputs=x, regions=regions, survivors=survivors, cache=c,
        geo=geo, geo_gpu_ratio=d.answer_changes["geo-homed"].gpu_ratio,
        geo_costs_more=assume(geo.feasible and geo.gpus > a.gpus,
                              f"GPUs: homed by geography {geo.gpus}, homed where there is room {a.gpus}",
                              "homing by geography no longer costs more: rewrite section 2's peak load"),
        # the prompt and the cache
        shared_fraction=shared, history_tokens=history_tokens, continuing=continuing, affine_fraction=affine,
        history_kv=history_kv,
        history_transfer_s=f.transfer_time_s(history_kv, x["cross_region_bytes_per_s"]),
        host_cache_bytes=x["host_cache_bytes"], hbm_only=hbm_only,
        replicas_per_region=replicas_per_region, caches_per_region=caches_per_region, hit_spread=hit_spread,
        napkin_replicas_per_region=napkin_replicas_per_region,
        residency_words=residency_words(c.requests_per_replica, a.simulated_requests_per_s_per_replica),
        answer_in_flight=a.live_concurrency_per_replica,  # calls in flight on a replica of the answer's fleet
        # the router's worth
        # the router's worth on the serving model's answers, and the napkin's ratio beside it
        blind_feasible=blind.feasible,
        router_gpus_saved=d.answer_changes["round-robin"].extra_gpus if blind.feasible else None,
        router_saving_per_day=d.answer_changes["round-robin"].extra_cost_per_day if blind.feasible else None,
        router_gpu_ratio=d.answer_changes["round-robin"].gpu_ratio if blind.feasible else None,
        napkin_router_gpu_ratio=d.changes["round-robin"].gpu_ratio,
        blind_words=blind_words(a, blind, cold.uncached_prompt_tokens),
        cold_prefill_s=cold.planned_prefill_s, cold_over_warm=cold.planned_prefill_s / p.planned_prefill_s,
        cold_uncached_tokens=cold.uncached_prompt_tokens,
        # bounded load
        in_flight=in_flight, cv=cv, chosen=chosen, bounds=bounds, clumped_cv=clumped_cv, clumped=clumped,
        clumped_ratio=clumped.gpus / a.gpus if clumped.feasible else math.nan,
        spread_agrees=spread_agrees, chosen_agrees=chosen_agrees, revised_agrees=revised_agrees,
        bounds_table=table(["Bound c", "Sent on from home", "Hit rate", "Napkin GPUs", "Napkin cost per day"],
                           [bound_row(b) for b in bounds], align="rrrrr"),
        index_gain_bound=c.hit_home - chosen.hit, ring_share_moved=1 / replicas_per_region, revised=revised,
        revised_hit_cost=chosen.hit - revised.hit, revised_index_gain_bound=c.hit_home - revised.hit,
        revised_extra_gpus=d.answer_changes["bound-1-15"].extra_gpus, mean_utilisation=mean_utilisation,
        bound_utilisation=chosen.c * mean_utilisation, revised_utilisation=revised.c * mean_utilisation,
        largest_bound=1 + w.headroom,
        p95_home_utilisation=(1 + P95_Z * cv) * mean_utilisation,
        # the other layout, at the hit rate its caches earn, on the serving model's answers
        dp=dp, dp_cache=dp_cache, dp_hit=dp_hit, dp_agrees=dp_agrees,
        dp_gpu_ratio=dp.gpus / a.gpus if dp.feasible else None,
        layout_words=layout_words(a, dp, c, dp_cache, chosen.hit, dp_hit),
        tp_holds=assume(not dp.feasible or dp.gpus > a.gpus,
                        f"GPUs: data-parallel attention {dp.gpus}, tensor parallel {a.gpus}",
                        "data-parallel attention now needs fewer GPUs at its own hit rate: adopt it (layout in "
                        f"macros/data/designs/{SLUG}.toml) and rewrite section 5"),
        host_tier_napkin_ratio=hbm_only.gpus / p.gpus, host_tier_ratio=answer(hbm_only).gpus / a.gpus,
        # failover
        failed_requests_per_s=failed_requests, streams_lost=failed_requests * p.time_in_system_s,
        cold_tokens_per_s=failed_requests * cold.uncached_prompt_tokens,
        warm_tokens_per_s=failed_requests * p.uncached_prompt_tokens,
        survivor_replicas=survivor_replicas, window_load=window_load, warm_survivor_load=warm_load,
        window_utilisation=window_load / survivor_replicas, warm_utilisation=warm_load / survivor_replicas,
        np1=np1, np1_load=np1_load, np1_survivor_replicas=np1_survivor_replicas,
        np1_window_utilisation=window_load / np1_survivor_replicas,
        np1_shed=1 - np1_survivor_replicas / window_load,  # of the work arriving in the cold window
        np1_extra_per_day=d.answer_changes["n-plus-one"].extra_cost_per_day,
        gap=gap_edge(d), summary=d.summary,
        # failover on the answer's fleet (the napkin's figures above are kept for the failure-modes page)
        answer_streams_lost=a.live_concurrency_per_replica * a.replicas / regions,
        answer_survivors=answer_survivors, answer_warm_utilisation=a.replicas / answer_survivors,
        window_ratio=window_ratio, window_priced=window.priced, cold_per_request=window.cold_per_request,
        answer_window_ratio=window.ratio,
        napkin_window_utilisation=napkin_window_utilisation,
        answer_window_utilisation=window.utilisation,
        window_words=window_words(window, window_ratio, napkin_window_utilisation),
        shed_words=shed_words(window, np1_answer_survivors),
        window_load_words=(f"{fmt.pct(window.utilisation)} of their capacity" if window.priced else
                           f"at least {fmt.pct(napkin_window_utilisation)} of their capacity on the napkin's count of "
                           "work, and the serving model finds no fleet at all for cold sessions"),
        window_overloads=assume(
            not window.priced or (window.utilisation > 1 and window.np1_shed > 0),
            f"the cold window's load: {window.utilisation} of the survivors, {window.np1_utilisation} of N+1's"
            if window.priced else "the serving model cannot price the cold window",
            "the survivors now carry the cold window: rewrite revision 2"),
        np1_answer=np1_answer, np1_answer_survivors=np1_answer_survivors,
        np1_answer_window_utilisation=window.np1_utilisation, np1_answer_shed=window.np1_shed,
        cold_window_s=x["cold_window_gaps"] * x["turn_gap_s"], still_cold=math.exp(-x["cold_window_gaps"]),
        failover_ttft_s=cold.planned_prefill_s + x["cross_region_rtt_s"],
    )
