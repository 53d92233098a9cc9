"""The RAG design (docs/designs/rag.md) at altitude 1: ingestion on the left, the query path on the
right, permissions enforced in retrieval and in the caches; every figure from the design's plan."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import design_rag
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
DESIGNS = ("rag",)


def _figures() -> dict[str, str]:
    q = design_rag.model()
    p, a, x = q.d.plan, q.d.answer, q.inputs  # the fleet is the serving model's answer; the napkin's physics
    s = p.at_slo
    return {
        "replicas": fmt.count(a.replicas), "replica": f"{a.gpus_per_replica} × {s.gpu_spec.name}",
        "dtype": p.weights_dtype.upper(), "batch": fmt.num(a.live_concurrency_per_replica), "gpus": fmt.count(a.gpus),
        "model": s.model_spec.name, "prompt": fmt.count(q.prompt), "chunks": str(x["chunks"]),
        "chunk_tokens": fmt.count(x["chunk_tokens"]), "candidates": str(x["candidates"]),
        "prefill": fmt.ms(p.planned_prefill_s), "model_share": fmt.ms(q.model_share_s),
        "retrieval": fmt.ms(q.retrieval_s), "rerank_gpus": fmt.count(q.rerank_gpus),
        "encoder": q.encoder_gpu.name, "vectors": fmt.count(q.vectors), "index": fmt.bytes_(q.index_bytes),
        "ingestion_gpus": fmt.count(q.ingestion_gpus), "tenants": fmt.count(x["tenants"]),
        "prefill_share": fmt.pct(p.prefill_share), "kv": fmt.bytes_(s.kv_bytes_per_seq),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "The RAG assistant at altitude 1. On the left, ingestion: connectors pull documents and their access "
        "lists from the tenants' sources; a chunker cuts them into chunks of "
        f"{x['chunk_tokens']} tokens; an ingestion encoder pool of {x['ingestion_gpus']} {x['encoder']} GPUs "
        f"embeds them into a hybrid vector and keyword index partitioned by tenant ({x['vectors']} vectors, "
        f"{x['index']} in HNSW form, each chunk carrying its access list); a permissions service keeps "
        "each user's groups fresh. On the right, the query path: the gateway authenticates the user and "
        "resolves their groups; the question is embedded; the hybrid search runs per tenant with the access "
        f"filter applied inside the search; {x['rerank_gpus']} {x['encoder']} GPUs rerank the top "
        f"{x['candidates']} candidates; the context assembler checks each kept chunk against the permissions "
        f"service and builds a prompt of at most {x['prompt']} tokens: the tenant's system prompt, history, "
        f"{x['chunks']} chunks and the question; retrieval spends at most {x['retrieval']} of the TTFT. A "
        "router with tenant affinity and a per-tenant cache salt sends it to the serving pool: "
        f"{x['replicas']} replicas of {x['replica']} in {x['dtype']} ({x['gpus']} GPUs) running {x['model']}, "
        f"about {x['batch']} sequences in flight each at the peak, {x['prefill']} planned prefill within a "
        f"{x['model_share']} share, prefill {x['prefill_share']} of the fleet's time. The answer streams back with its "
        "citations."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.36", nodesep="0.3") as d:
        with st.cluster("ingest", st.html("Ingestion (offline)", "freshness, not latency", left=True),
                        "plain"):
            sources = st.box(st.html("Tenant sources", "wikis · drives · tickets", "documents + access lists"),
                             "sources", "store", shape="cylinder")
            chunker = st.box(st.html("Parse and chunk", f"{x['chunk_tokens']}-token chunks",
                                     "tenant, doc id, version, ACL"), "chunker", "plain")
            embedder = st.box(st.html("Ingestion encoders", f"{x['ingestion_gpus']} × {x['encoder']}",
                                      "scaled on backlog age"), "embed_ingest", "gpu")
            acl_sync = st.box(st.html("Permissions service", "user → groups, doc → ACL",
                                      "freshness bound; fails closed"), "acl", "safety")
        index = st.box(st.html("Hybrid index, per tenant", "vectors + keywords + ACL fields",
                               f"{x['vectors']} vectors, {x['index']} HNSW"),
                       "index", "store", shape="cylinder")

        client = st.icon(User, "employee", "client")
        gateway = st.box(st.html("Gateway", "authn · tenant · user's groups", "token quotas per tenant"),
                         "gateway", "net")
        search = st.box(st.html("Retrieve", "embed the question; hybrid search",
                                "ACL filter INSIDE the search", f"top {x['candidates']} candidates"),
                        "search", "control")
        rerank = st.box(st.html("Rerank", f"{x['rerank_gpus']} × {x['encoder']}, cross-encoder",
                                f"keep {x['chunks']}"), "rerank", "gpu")
        assembler = st.box(st.html("Context assembler", "re-check each chunk's ACL",
                                   f"system + history + {x['chunks']} chunks + question",
                                   f"≤{x['prompt']} tokens; retrieval ≤{x['retrieval']}"), "assembler", "control")
        router = st.box(st.html("Router", "tenant affinity · cache_salt = tenant",
                                "admission on queued prefill tokens"), "router", "control")
        pool = st.box(st.html(f"Serving pool: {x['gpus']} GPUs", f"{x['replicas']} replicas of {x['replica']}, "
                              f"{x['dtype']}", f"{x['model']}, ≈{x['batch']} in flight each",
                              f"prefill {x['prefill']} of a {x['model_share']} share",
                              f"prefill = {x['prefill_share']} of GPU time"), "pool", "gpu")
        back = st.icon(User, "answer + citations", "client_back")

        sources >> chunker >> embedder >> index
        sources >> st.edge("ACL sync", style="dashed") >> acl_sync
        client >> st.edge("question") >> gateway >> search
        index >> st.edge("candidates", style="dashed") >> search
        search >> rerank >> assembler
        acl_sync >> st.edge("groups, ACLs", style="dashed", color=st.FILL["safety"][1]) >> gateway
        acl_sync >> st.edge(style="dashed", color=st.FILL["safety"][1]) >> assembler
        assembler >> st.edge("prompt") >> router >> pool
        pool >> st.edge("token stream") >> back
        st.same_rank(d, client, sources)
