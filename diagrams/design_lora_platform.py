"""The LoRA platform at altitude 1: tenants' requests through a token-fair gateway to an adapter-affine
router, a pool of one-GPU replicas each holding the base model and a slice of adapter slots, and the
adapter tiers below HBM (node host memory, object storage), with the upload path that gates adapters."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import design_lora_platform
from macros.text import fmt

# the page model reads the reported adapter load times (a cold request's TTFT, critique 2)
CLAIMS = ("lora-platform-lorax-load", "lora-platform-serverlessllm-load")

st = shared("_style")

FORMAT = "svg"
SLUG = "lora-platform"
DESIGNS = (SLUG,)  # the workload file drawn: part of the drawing's cache key


def _figures() -> dict[str, str]:
    q = design_lora_platform.model(SLUG)
    p, w, i, a = q.plan, q.workload, q.inputs, q.adapter
    return {
        "fleet": f"{q.d.answer.replicas} replicas × {q.d.answer.gpus_per_replica} {p.at_slo.gpu_spec.name}",
        "model": f"{p.at_slo.model_spec.name}, {p.weights_dtype.upper()}",
        "batch": (f"≈{fmt.num(q.d.answer.live_concurrency_per_replica)} sequences in flight, "
                  f"p95 TPOT ≤ {fmt.ms(w.tpot_s)}"),
        "slice": fmt.bytes_(i["adapter_slice_bytes"]), "slots": str(q.slots), "rank": str(i["rank"]),
        "adapter": fmt.bytes_(a.bytes), "adapters": fmt.count(i["adapters"]), "tenants": fmt.count(i["tenants"]),
        "catalogue": fmt.bytes_(q.catalogue_bytes), "host": fmt.bytes_(i["host_memory_bytes_per_node"]),
        "pcie": fmt.ms(q.load_host_s), "storage": fmt.ms(q.load_storage_s), "quota": fmt.pct(i["kv_quota_share"]),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        f"The LoRA platform at altitude 1, top to bottom: {x['tenants']} tenants call the API with an adapter ID; "
        "the gateway authenticates the tenant, checks it may use that adapter, and meters its tokens; a fair "
        "scheduler queues per tenant, weighted by tokens, and caps each tenant's share of KV at "
        f"{x['quota']}; the adapter-affine router hashes the adapter ID onto a ring with bounded load and "
        f"replicates hot adapters; the replica pool is {x['fleet']}, each running {x['model']} with "
        f"{x['slice']} of adapter slots ({x['slots']} rank-{x['rank']} adapters of {x['adapter']}), "
        f"{x['batch']}, mixing adapters in one batch, with a prefix cache keyed by tenant and adapter. Below "
        f"HBM, each node's {x['host']} of host memory holds the catalogue of {x['adapters']} adapters "
        f"({x['catalogue']}), at least {x['pcie']} per adapter over PCIe; object storage holds every "
        f"version, at least {x['storage']} per adapter. Uploads pass validation into the adapter registry "
        "before the router may send traffic to them."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import Users

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.36", nodesep="0.4") as d:
        tenants = st.icon(Users, f"{x['tenants']} tenants\n(adapter ID in each call)", "tenants")
        gateway = st.box(st.html("API gateway", "authn → tenant · may it use this adapter?",
                                 "per-tenant token quota"), "gateway", "net")
        scheduler = st.box(st.html("Fair scheduler", "per-tenant queues, weighted by TOKENS",
                                   f"KV quota: ≤{x['quota']} of a replica per tenant"), "scheduler", "control")
        router = st.box(st.html("Adapter-affine router", "consistent hashing on adapter ID,",
                                "bounded load · hot adapters replicated"), "router", "control")
        pool = st.box(st.html("Replica pool", x["fleet"], x["model"],
                              f"{x['slice']} adapter slots: {x['slots']} × rank {x['rank']} ({x['adapter']})",
                              f"{x['batch']},", "many adapters per batch (SGMV)",
                              "prefix cache keyed by tenant + adapter"), "pool", "gpu")
        host = st.box(st.html("Node host memory", f"{x['host']} per node: the catalogue",
                              f"{x['adapters']} adapters = {x['catalogue']}", f"≥{x['pcie']} per load over PCIe"),
                      "host", "store", shape="cylinder")
        storage = st.box(st.html("Adapter store", "object storage, every version",
                                 f"≥{x['storage']} per load"), "storage", "store", shape="cylinder")
        upload = st.box(st.html("Upload gate", "shape, rank cap, base model,", "NaN scan, canary eval"),
                        "upload", "safety")
        registry = st.box(st.html("Adapter registry", "owner · base hash · rank", "status · where it lives"),
                          "registry", "plain")

        tenants >> st.edge("HTTPS, streamed") >> gateway >> scheduler >> router
        router >> st.edge("adapter's home") >> pool
        pool >> st.edge("miss: page in", style="dashed") >> host
        host >> st.edge("cold", style="dashed") >> storage
        tenants >> st.edge("adapter upload", style="dashed") >> upload >> st.edge("approved") >> registry
        registry >> st.edge("locations", style="dotted") >> router
        registry >> st.edge("weights", style="dashed") >> storage
        st.same_rank(d, scheduler, upload)
        st.same_rank(d, router, registry)
