"""Design ChatGPT, altitude 1: the request path with the inference engine held abstract."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"


def _figures() -> dict[str, str]:
    s = st.anchor()
    return {
        "context": fmt.tokens(s.model_spec.max_context),
        "replica": f"{s.gpus} × {s.gpu_spec.name}",
        "sequences": str(s.max_batch),
        "rate": fmt.tokens_per_s(s.decode_tokens_per_s),
        "model": s.model_spec.name.split(" (")[0],  # "Llama-70B", without "(napkin preset)"
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "Design ChatGPT at altitude 1, top to bottom: the client opens an SSE stream to the edge load "
        "balancer; the API gateway authenticates and rate-limits per tenant in tokens, not requests; the "
        "conversation store and input moderation run side by side; the context assembler enforces the "
        f"token budget (at most {x['context']}, the context window of {x['model']}); the prefix-aware "
        "router applies admission control and priority classes; the inference service is abstract (capacity "
        "in tokens per second, an admission interface, streaming, KV occupancy exposed; one replica is "
        f"{x['replica']}, at most {x['sequences']} sequences and, by the bandwidth floor, at most "
        f"{x['rate']}); output moderation scans the token stream on a buffer before it goes back to the client."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.32"):
        client = st.icon(User, "client", "client")
        edge_lb = st.box(st.html("Edge / load balancer", "TLS · DDoS protection · geo-routing"), "edge", "net")
        gateway = st.box(st.html("API gateway", "authn · quota · request class",
                                 "per-tenant rate limit in TOKENS per minute, not requests"), "gateway", "net")
        store = st.box(st.html("Conversation store", "append-only, sharded by", "conversation ID, hot/cold"),
                       "store", "store", shape="cylinder")
        moderation_in = st.box(st.html("Input moderation", "runs in parallel with", "context assembly"),
                               "mod_in", "safety")
        assembler = st.box(st.html("Context assembler", "system prompt + history + retrieved docs + tools",
                                   f"token budget enforced HERE: ≤{x['context']}"), "assembler", "control")
        router = st.box(st.html("Inference router", "PREFIX-AWARE, session-affine",
                                "admission control · priority classes"), "router", "control")
        service = st.box(st.html("Inference service (abstracted)", "capacity in tokens/s · admission interface",
                                 "streams tokens · exposes KV occupancy",
                                 f"one replica: {x['replica']}, ≤{x['sequences']} sequences,",
                                 f"≤{x['rate']} (modelled ceiling)"),
                         "service", "gpu")
        moderation_out = st.box(st.html("Output moderation", "streaming, on a buffer"), "mod_out", "safety")
        back = st.icon(User, "back to the client", "client_back")

        client >> st.edge("SSE stream") >> edge_lb >> gateway
        gateway >> st.edge("history") >> store
        gateway >> st.edge("prompt") >> moderation_in
        store >> assembler
        moderation_in >> assembler
        assembler >> router >> service
        service >> st.edge("token stream") >> moderation_out >> st.edge("SSE") >> back
