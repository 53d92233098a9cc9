"""The router design (docs/designs/router.md), altitude 1: a geo front door that pins each session to a
home region, a regional router hashing sessions onto the ring of replicas under a load bound,
and the failover path on which a lost region's sessions land cold on the survivors."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import design_router
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
DESIGNS = ("router",)


def _figures() -> dict[str, str]:
    q = design_router.model()
    p = q.p
    return {
        "replica": f"{p.gpus_per_replica} × {p.at_slo.gpu_spec.name}", "replicas": fmt.count(q.replicas_per_region),
        "batch": str(p.slo_batch), "kv": fmt.bytes_(p.kv_bytes_per_seq),
        "hbm": fmt.bytes_(q.cache.hbm_cache_bytes), "host": fmt.bytes_(q.host_cache_bytes),
        "hit": fmt.pct(q.chosen.hit), "c": fmt.num(q.chosen.c), "regions": str(q.regions),
        "warm": fmt.tokens(p.uncached_prompt_tokens), "cold": fmt.tokens(q.cold_uncached_tokens),
        "model": p.at_slo.model_spec.name, "rate": fmt.count(q.failed_requests_per_s),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        f"A global prefix-aware router at altitude 1, top to bottom. Tenants' apps and agents reach a geo front "
        f"door that pins each session to a home region, one of {x['regions']}, by a region stamp in its session "
        f"token. In the home region a stateless router hashes the session ID onto a ring of replicas, "
        f"caps every replica at {x['c']} times the mean load and otherwise takes the next replica on the ring; it "
        f"prefers the replica with the longest cached match, reading each engine's load and cache events. "
        f"The region has {x['replicas']} replicas of {x['replica']} serving {x['model']}, tensor parallel, "
        f"experts split, a batch of {x['batch']} sequences at the TPOT target and {x['kv']} of KV per sequence, a "
        f"prefix cache of the {x['hbm']} of HBM its live sequences leave at the peak plus {x['host']} of host "
        f"memory per replica. A warm request prefills {x['warm']}, and the router earns a {x['hit']} hit rate. "
        f"If a region fails, the front door "
        f"moves its {x['rate']} requests a second to the survivors, where each session's first turn prefills "
        f"{x['cold']} cold."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.45", nodesep="0.2"):
        client = st.icon(User, "tenant apps\nand agents", "client")
        front = st.box(st.html("Geo front door", "anycast / GeoDNS, TLS, tenant quota",
                               f"session → home region ({x['regions']} regions)"), "front", "net")
        with st.cluster("home", "Home region", "control"):
            router = st.box(st.html("Regional router (stateless, replicated)",
                                    "hash(tenant, session) → ring of replicas",
                                    f"load bound: ≤ {x['c']} × mean, else next on the ring",
                                    "prefers the longest cached match"), "router", "control")
            pool = st.box(st.html(f"{x['replicas']} replicas of {x['replica']}",
                                  "tensor parallel, experts split",
                                  f"batch {x['batch']} at the TPOT target, {x['kv']} KV per sequence",
                                  f"warm request: prefills {x['warm']}, hit rate {x['hit']}"), "pool", "gpu")
            cache = st.box(st.html("Prefix cache per replica", f"{x['hbm']} HBM spare at peak",
                                   f"+ {x['host']} host memory, LRU"), "cache", "store", shape="cylinder")
        survivors = st.box(st.html("The other regions", "same shape; a lost region's sessions",
                                   f"land here cold: {x['cold']} prefilled"), "survivors", "plain",
                           style="rounded,dashed")
        client >> st.edge() >> front >> st.edge("home region") >> router
        router >> st.edge("session's replica") >> pool
        pool >> st.edge("load, KV events", style="dashed", color=st.FILL["control"][1]) >> router
        pool - st.edge(arrowhead="none", color=st.FILL["store"][1]) - cache
        front >> st.edge(f"failover:\n{x['rate']} req/s", style="dashed", color=st.FILL["safety"][1]) >> survivors
