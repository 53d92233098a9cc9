"""The prefix-aware router: consistent hashing on the conversation ID, load-aware overflow."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
REPLICAS = ("A", "B", "C")  # three replicas are enough to show home, overflow and the rest


def _figures() -> dict[str, str]:
    s = st.anchor()  # a replica, and a conversation whose history fills its context
    return {
        "replica": f"{s.gpus} × {s.gpu_spec.name}", "sequences": str(s.max_batch),
        "history": f"{fmt.count(s.seq_len)}-token", "prefill": fmt.ms(s.prefill_s),
        "kv": fmt.bytes_(s.kv_bytes_per_seq),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "Prefix-aware routing: turn n+1 of conversation c reaches the router, which hashes the conversation "
        "ID onto a consistent-hash ring to find its home replica, A, the one holding c's prefix in its KV "
        "cache, so only the new tokens are prefilled. If A is saturated or down, the router overflows to the "
        "least-loaded replica, B, which must re-prefill the whole history: for a "
        f"{x['history']} history that is at least {x['prefill']} of compute and {x['kv']} of KV cache rebuilt. "
        f"The router watches each replica's KV occupancy and queue depth; each replica is {x['replica']} holding at "
        f"most {x['sequences']} sequences. Prefix-cache keys are scoped per tenant."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.5", nodesep="0.3") as d:
        client = st.icon(User, "turn n+1 of\nconversation c", "client")
        router = st.box(st.html("Prefix-aware router", "consistent hashing on the",
                                "conversation ID; load-aware", "overflow on each replica's",
                                "KV occupancy and queue"), "router", "control")
        ring = st.box(st.html("hash ring", "hash(c) → A"), "ring", "control", shape="ellipse",
                      style="filled,dashed", fontsize="13")
        replicas = st.box(st.html("every replica", x["replica"], f"≤{x['sequences']} sequences"),
                          "replica_spec", "plain", style="rounded,dashed", fontsize="13")
        home = st.box(st.html("Replica A", "home of c: holds", "c's prefix KV;", "prefills only",
                              "the new tokens"), "replica_a", "store")
        overflow = st.box(st.html("Replica B", "least loaded;", f"re-prefills the {x['history']}",
                                  f"history: ≥{x['prefill']},", f"{x['kv']} of KV rebuilt"), "replica_b", "gpu")
        other = st.box(st.html("Replica C", "home of other", "conversations"), "replica_c", "plain")
        client >> st.edge() >> router
        router - st.edge(style="dashed", color=st.FILL["control"][1], arrowhead="none") - ring
        router >> st.edge("home:\nprefix hit", color=st.FILL["store"][1], penwidth="2.4") >> home
        router >> st.edge("overflow: A\nfull or down", style="dashed", color=st.FILL["gpu"][1],
                          penwidth="1.8") >> overflow
        router >> st.edge(color="#b0b8c1") >> other
        st.same_rank(d, replicas, router, ring)
        st.same_rank(d, home, overflow, other)
        replicas >> st.edge(style="invis") >> router
