"""The consumer-chat design at altitude 1: gateway, context assembler and conversation store, the
prefix-aware router, and the free and paid pools the design file's variants size."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from macros.engine.fleet.answer import Answer
from macros.site.build.drawings import shared
from macros.site.pages import design
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
DESIGNS = ("consumer-chat",)


@cache
def _pools() -> dict[str, Answer]:
    answers = design.model(DESIGNS[0]).answers  # the serving model's pools, as the page prices them
    return {name: answers[name] for name in ("free", "paid")}


def _pool(a: Answer) -> tuple[str, ...]:
    p = a.napkin
    return (f"{fmt.count(a.replicas)} replicas × {a.gpus_per_replica} {p.at_slo.gpu_spec.name}",
            f"{p.weights_dtype.upper()} weights, ≈{fmt.num(a.live_concurrency_per_replica)} streams each",
            f"p95 TPOT ≤ {fmt.ms(p.workload.tpot_s)}, p95 TTFT ≤ {fmt.ms(p.workload.ttft_s)}")


def ALT(variant: str | None = None) -> str:
    pools = _pools()
    free, paid = (", ".join(_pool(pools[k])) for k in ("free", "paid"))
    return (
        "Consumer chat at altitude 1, top to bottom: clients hold a server-sent-events stream to the edge; the "
        "gateway authenticates, tags the tier and rate-limits in tokens per minute; the context assembler reads "
        "recent turns from a warm cache in front of the durable conversation store and enforces the token "
        "budget; the prefix-aware router hashes the conversation ID onto a ring with bounded load and admits "
        f"into one of two pools. Free pool: {free}. Paid pool: {paid}. Each replica keeps prefixes in HBM and "
        "in a host-memory KV tier; the conversation store, not the GPUs, holds what must survive."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import Users

    pools = _pools()
    with st.diagram(out, "TB", ranksep="0.45", nodesep="0.35") as d:
        users = st.icon(Users, "clients\n(SSE stream)", "clients")
        gateway = st.box(st.html("Edge and gateway", "auth, tier, rate limits", "in tokens per minute"),
                         "gateway", "net")
        assembler = st.box(st.html("Context assembler", "system prompt + history", "token budget enforced"),
                           "assembler", "control")
        warm = st.box(st.html("Warm cache", "recent turns of", "active conversations"), "warm", "store")
        store = st.box(st.html("Conversation store", "append-only, sharded by", "conversation ID, replicated"),
                       "store", "store")
        router = st.box(st.html("Prefix-aware router", "hash(conversation) on a ring,", "bounded load,",
                                "admission per pool"), "router", "control")
        free = st.box(st.html("Free pool", *_pool(pools["free"])), "free", "gpu")
        paid = st.box(st.html("Paid pool", *_pool(pools["paid"])), "paid", "gpu")
        tier = st.box(st.html("KV tiers in each replica", "HBM: the batch + recent prefixes",
                              "host DRAM: prefixes between turns"), "tiers", "plain", style="rounded,dashed",
                      fontsize="13")
        users >> st.edge() >> gateway >> st.edge() >> assembler
        assembler >> st.edge("read / append") >> warm
        warm >> st.edge("miss") >> store
        assembler >> st.edge() >> router
        router >> st.edge("free tier") >> free
        router >> st.edge("paid tier", color=st.FILL["gpu"][1], penwidth="2") >> paid
        free - st.edge(style="dashed", arrowhead="none") - tier
        paid - st.edge(style="dashed", arrowhead="none") - tier
        st.same_rank(d, assembler, warm)
        st.same_rank(d, free, paid)
