"""The consumer-chat design's figures beyond its plan: the free and paid pools, how long the prefix
cache keeps a conversation between turns (HBM alone, then with a host-memory tier), the conversation
store, and what a replica's failure costs the survivors. Inputs are the design file's [design.inputs];
values in SI units."""

from __future__ import annotations

import math
from types import SimpleNamespace

from ...engine import formulas as f
from ...engine.fleet import plan_levers as lv
from ...engine.fleet.answer import Answer
from ...engine.fleet.planner import Plan
from ...engine.lookup import get_gpu, get_model
from ...engine.model.scenario import prefill_floor_s, scenario
from ...engine.workloads import workloads
from ...text import fmt
from ..markdown import table
from . import design, design_answer

SLUG = "consumer-chat"


INPUTS = design.positive("user_message_tokens", "text_bytes_per_token", "host_kv_bytes_per_gpu", "turn_gap_s",
                         "rollout_wave_share")


def inputs() -> dict[str, float]:
    return design.inputs(SLUG, INPUTS)


def kv_write_bytes_per_s(p: Plan) -> float:
    """KV the fleet writes each second at peak: every uncached prompt token and every output token
    adds one token's KV (all its copies) to some replica's cache."""
    return (p.peak_requests_per_s * p.uncached_prompt_tokens + p.peak_output_tokens_per_s) * p.kv_bytes_per_token


def retention_words(warm: float, gap_s: float, prefix_share: float) -> str:
    """What HBM's retention buys a returning turn, in words that follow the data: the chance its prefix is still
    there (formulas.warm_probability, gaps at random around the mean), and the prompt share that bounds."""
    return (f"against a mean turn gap of {fmt.seconds(gap_s)}: with gaps at random, a returning turn finds its prefix "
            f"with probability {fmt.pct(warm)}, and the prefix is {fmt.pct(prefix_share)} of its prompt, so HBM alone "
            f"serves at most {fmt.pct(warm * prefix_share)} of prompt tokens (first turns bring none)")


def needed_tier(hit_rate: float, hbm_bound: float, host_bound: float) -> str:
    """The smallest tier whose bound (each counts every turn as returning) allows the hit rate: "hbm", "host", or
    "" when neither does."""
    return "hbm" if hit_rate <= hbm_bound else "host" if hit_rate <= host_bound else ""


def tier_words(hit_rate: float, tier: str) -> str:
    """Which tier the design's hit rate needs (needed_tier), in words."""
    if tier == "hbm":
        return (f"HBM alone could carry the {fmt.pct(hit_rate)} hit rate at the bound, but first turns bring no hit, "
                "so a host-memory tier is the margin")
    if tier == "host":
        return f"That is why the {fmt.pct(hit_rate)} hit rate needs a host-memory tier"
    return (f"Not even a host-memory tier reaches the {fmt.pct(hit_rate)} hit rate the fleet is sized on: the fleet "
            "must be sized on less")


def pools_table(pools: dict[str, Answer]) -> str:
    """Each pool's answer: its traffic, weights and p95 TPOT target, and the fleet the serving model finds for it."""
    rows = [[name, fmt.count(a.napkin.workload.requests_per_day), a.weights_dtype.upper(),
             fmt.ms(a.napkin.workload.tpot_s), f"{fmt.count(a.replicas)} × {a.gpus_per_replica}", fmt.count(a.gpus),
             fmt.usd(a.cost_per_day)] for name, a in pools.items()]
    return table(["Pool", "Requests a day", "Weights", "p95 TPOT target", "Replicas × GPUs", "GPUs",
                  "Cost per day"], rows, align="lrlrrrr")


def shape_words(a: Answer, wider: Answer, napkin_extra_gpus: int) -> str:
    """Revision 1's verdict on a wider replica, from the answers (the search tried every shape) against the
    napkin's change, in words that follow the data."""
    tried = {t["gpus_per_replica"]: t["gpus"] for t in a.answer_tried
             if t["token_budget"] == a.token_budget and t["gpus"] is not None}
    listed = "; ".join(f"{g} GPUs per replica, {fmt.count(n)}" for g, n in sorted(tried.items()))
    napkin = (f"saves {fmt.count(-napkin_extra_gpus)} GPUs" if napkin_extra_gpus < 0
              else f"needs {fmt.count(napkin_extra_gpus)} more GPUs")
    extra = wider.gpus - a.gpus
    if extra <= 0:
        verdict = f"the serving model agrees: {fmt.count(wider.gpus)} GPUs, the answer's own shape"
    else:
        verdict = (f"the serving model does not: {fmt.count(wider.gpus)} GPUs, {fmt.count(extra)} more than the "
                   f"{a.gpus_per_replica}-GPU answer. The napkin leaves out what a wider group adds to every step (an "
                   "all-reduce over more ranks, each hop with its latency, twice a layer, and a fixed cost per layer "
                   "that does not divide by the group), and it sizes to the mean, not the p95")
    return (f"The planner's answer already tried every shape up to a node, at its {fmt.count(a.token_budget)}-token "
            f"budget: {listed}. On the napkin eight GPUs per replica {napkin}; {verdict}.")


def shape_tradeoff(a: Answer, wider: Answer) -> str:
    """The trade-offs' line on the replica shape, on the answers: the answer's shape against eight GPUs a replica, or
    that the answer already runs eight."""
    if a.gpus_per_replica == wider.gpus_per_replica:
        return f"the answer already runs {a.gpus_per_replica} GPUs per replica, the cheapest the search found"
    return (f"{a.gpus_per_replica} against {wider.gpus_per_replica} GPUs per replica, {fmt.usd(a.cost_per_day)} "
            f"against {fmt.usd(wider.cost_per_day)} a day on the answers")


def cold_day_words(warm: int, cold: int | None) -> str:
    """What the answer's fleet does when every cache is emptied at once at the peak, in words that follow the data:
    `warm` and `cold` are the serving model's replica counts with the prefix cache and without it (None: no count of
    these replicas meets the targets cold)."""
    if cold is None:
        return ("The answer does not have them: cold, no count of its replicas meets the targets, so released "
                "everywhere at once at the peak every conversation's next turn misses them until it warms.")
    if cold > warm:
        return (f"The answer does not have them: it is the smallest fleet that meets the targets warm, and cold "
                f"the same peak needs {fmt.count(cold)} replicas against its {fmt.count(warm)} "
                f"({fmt.times(cold / warm)}), so released everywhere at once at the peak the queue grows without "
                "limit.")
    return (f"The answer covers them: cold, the same peak needs {fmt.count(cold)} replicas, no more than its "
            f"{fmt.count(warm)}.")


def wave_words(wave: float, largest_at_mean: float, extra_at_peak: float | None) -> str:
    """Where a rollout wave of `wave` of the replicas fits the answer's fleet, in words that follow the data
    (`extra_at_peak` None: no count of these replicas meets the targets cold)."""
    if extra_at_peak is None:
        return (f"Cold, no count of the answer's replicas meets the targets, so a wave of {fmt.pct(wave)} of them "
                "misses them on its cold turns however the fleet is sized, until it warms")
    peak = (f"At the peak the answer has no spare (it is the smallest fleet that meets the targets): a wave of "
            f"{fmt.pct(wave)} of the replicas running cold there needs about {fmt.count(math.ceil(extra_at_peak))} "
            "more replicas while it warms")
    if wave <= largest_at_mean:
        return f"{peak}. At the mean rate the fleet held at peak size has room for it"
    return f"{peak}, and even at the mean rate the fleet held at peak size has no room for it"


def failure_words(replicas: int, cost_per_day: float) -> str:
    """What one lost replica does to the answer's fleet at the peak, in words that follow the data."""
    return (f"one replica is {fmt.pct(1 / replicas)} of the fleet, and the answer has no spare at the peak: until "
            f"the replacement is warm, the survivors each carry {fmt.pct(1 / (replicas - 1))} more load than the "
            f"targets were met at. One spare replica, {fmt.usd(cost_per_day / replicas)} a day, covers it")


def model() -> SimpleNamespace:
    x = inputs()
    d = design.model(SLUG)
    p, w = d.plan, d.workload
    free, paid, tp8 = d.variants["free"], d.variants["paid"], d.variants["tp8"]

    a = d.answer
    write = kv_write_bytes_per_s(p)
    # The answer's replicas at the peak: each holds its live sequences (Little's law on the simulated run), and its
    # KV budget past them, every live sequence at full context, is the room the prefix cache has.
    live = a.live_concurrency_per_replica
    budget = scenario(w.model, w.gpu, gpus=a.gpus_per_replica, seq_len=p.seq_len, weights=w.weights, kv=w.kv,
                      layout=w.layout)
    room = a.replicas * (budget.kv_budget_bytes - live * budget.kv_bytes_per_seq_group)
    host = a.gpus * x["host_kv_bytes_per_gpu"]
    cached_tokens = w.prompt_tokens * w.prefix_hit_rate
    m, g = get_model(w.model), get_gpu(w.gpu)
    # A replica fails: its live sequences re-prefill their whole context elsewhere, none cached.
    reprefill_s = f.planned_time_s(prefill_floor_s(m, g, a.gpus_per_replica, w.weights, p.seq_len), w.efficiency)
    stored_per_turn = x["user_message_tokens"] + w.output_tokens
    # A returning turn's prompt is the last turn's (its prompt and answer, in the KV it left) and the new message:
    # the share a warm cache serves, and the chance the cache still holds it after the reader's gap.
    prefix_share = 1 - x["user_message_tokens"] / w.prompt_tokens
    warm_hbm = f.warm_probability(f.lru_residency_s(room, write), x["turn_gap_s"])
    warm_host = f.warm_probability(f.lru_residency_s(room + host, write), x["turn_gap_s"])
    tier = needed_tier(w.prefix_hit_rate, warm_hbm * prefix_share, warm_host * prefix_share)
    # a rollout's wave: its replicas' conversations start cold (critique 2)
    # (on the answer's replicas, whichever shape the cold search found cheapest)
    cold, wave = lv.on_shape(d.answers["no-prefix-cache"], a.gpus_per_replica), x["rollout_wave_share"]
    # at the mean rate; none when no count of these replicas meets the targets cold
    cold_share_max = lv.largest_cold_share(a, cold, load=1 / w.peak_to_mean) if cold.replicas else 0.0
    pools = {name: d.answers[name] for name in ("free", "paid")}  # each pool's answer, on the shape it finds cheapest
    pools_cost = pools["free"].cost_per_day + pools["paid"].cost_per_day
    return SimpleNamespace(
        d=d, inputs=x, free=free, paid=paid, tp8=tp8,
        pools_table=pools_table({"Free": pools["free"], "Paid": pools["paid"]}),
        pools_gpus=pools["free"].gpus + pools["paid"].gpus, pools=pools,
        free_targets=design_answer.targets_words(free.workload),
        reader_tokens_per_s=1 / w.tpot_s, tp8_extra_gpus=d.answer_changes["tp8"].extra_gpus,
        shape_words=shape_words(d.answer, d.answers["tp8"], d.changes["tp8"].extra_gpus),
        shape_tradeoff=shape_tradeoff(d.answer, d.answers["tp8"]),
        pools_cost_per_day=pools_cost,
        # against one pool serving every request: the design's own answer
        pools_saving_per_day=d.answer.cost_per_day - pools_cost,
        kv_write_bytes_per_s=write, cache_room_bytes=room, host_cache_bytes=host,
        retention_hbm_s=f.lru_residency_s(room, write), live_sequences=live,
        requests_per_replica_s=p.peak_requests_per_s / a.replicas,
        time_in_system_s=live / (p.peak_requests_per_s / a.replicas),  # Little's law, back to a request's time
        retention_words=retention_words(warm_hbm, x["turn_gap_s"], prefix_share),
        retention_with_host_s=f.lru_residency_s(room + host, write),
        hit_bound_hbm=warm_hbm * prefix_share, hit_bound_host=warm_host * prefix_share,
        tier_words=tier_words(w.prefix_hit_rate, tier),
        host_carries="carries it" if tier else "falls short of it",
        cached_prefix_bytes=cached_tokens * p.kv_bytes_per_token,
        host_reload_s=f.transfer_time_s(cached_tokens * p.kv_bytes_per_token, workloads()["pcie_bytes_per_s"]),
        cached_prefix_prefill_s=f.planned_time_s(
            prefill_floor_s(m, g, a.gpus_per_replica, w.weights, cached_tokens), w.efficiency),
        store_bytes_per_day=w.requests_per_day * stored_per_turn * x["text_bytes_per_token"],
        store_tokens_per_turn=stored_per_turn,
        reprefill_one_s=reprefill_s,
        reprefill_batch_s=live * reprefill_s,  # the streams it held at the peak, not its SLO batch
        failed_share=1 / a.replicas, failure_words=failure_words(a.replicas, a.cost_per_day),
        no_cache_extra_gpus=d.answer_changes["no-prefix-cache"].extra_gpus,
        no_cache_extra_cost=d.answer_changes["no-prefix-cache"].extra_cost_per_day,
        rollout_cold_share_max=cold_share_max, rollout_waves=math.ceil(1 / wave),
        cold_day_words=cold_day_words(a.replicas, cold.replicas),
        wave_words=wave_words(wave, cold_share_max, max(lv.replicas_with_cold_share(a, cold, wave) - a.replicas, 0)
                              if cold.replicas else None),
    )
