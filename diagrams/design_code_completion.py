"""The IDE code-completion design, altitude 1: the editor's debounce and cancel, the regional edge, the
gateway, the affinity router and the replica pool, labelled from the design's plan and inputs."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import design_code_completion
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
DESIGNS = ("code-completion",)  # the workload file drawn: part of the drawing's cache key


def _figures() -> dict[str, str]:
    q = design_code_completion.model()
    p, a = q.p, q.d.answer  # the fleet is the serving model's answer; the step and prefill are the napkin's
    s = p.at_slo
    return {
        "replicas": fmt.count(a.replicas), "gpus": fmt.count(a.gpus),
        "replica": f"{a.gpus_per_replica} × {s.gpu_spec.name}, TP{a.gpus_per_replica}",
        "model": f"{s.model_spec.name}, {p.weights_dtype.upper()}",
        "batch": f"≈{fmt.num(a.live_concurrency_per_replica)} (of {p.max_batch})", "step": fmt.ms(p.planned_step_s),
        "prefill": fmt.ms(p.planned_prefill_s), "kv": fmt.bytes_(p.kv_bytes_per_seq),
        "hit": fmt.pct(p.prefix_hit_rate), "debounce": fmt.ms(q.i.debounce_s),
        "draft": str(q.i.draft_tokens), "rate": fmt.count(p.peak_requests_per_s),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "IDE code completion at altitude 1: the editor extension waits out a "
        f"{x['debounce']} debounce, builds a fill-in-the-middle prompt from the file and its open neighbours, "
        "and sends it on a warm HTTP/2 connection, resetting the stream when the next keystroke makes it "
        f"stale; a regional edge terminates TLS and passes the reset on; the completion gateway "
        "authenticates, applies the organisation's quota and sets its cache salt; the affinity router hashes "
        "user and file to a home replica, with bounded load; the pool holds "
        f"{x['replicas']} replicas of {x['replica']} ({x['gpus']} GPUs) serving {x['model']}, each "
        f"running {x['batch']} sequences in flight at the peak, a planned {x['step']} step, with prompt-lookup "
        f"speculation of {x['draft']} draft tokens and a per-file prefix cache that serves {x['hit']} of "
        f"prompt tokens; {x['kv']} of KV per sequence. The engine aborts a request when its stream is reset. "
        "Acceptance, cancellation and latency events flow from the editor to telemetry."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.5", nodesep="0.45"):
        editor = st.icon(User, "editor", "editor")
        client = st.box(st.html("IDE extension", f"debounce {x['debounce']}", "FIM prompt: file + open tabs",
                                "next keystroke → cancel"), "client", "control")
        edge = st.box(st.html("Regional edge", "TLS ends here", "warm HTTP/2 streams",
                              "stream reset passed on"), "edge", "net")
        gateway = st.box(st.html("Completion gateway", "auth · org quota", "cache salt = org",
                                 f"peak {x['rate']} requests/s"), "gateway", "net")
        router = st.box(st.html("Affinity router", "hash(user, file) → home", "bounded load;",
                                "overflow re-prefills"), "router", "control")
        pool = st.box(st.html(f"{x['replicas']} replicas, {x['gpus']} GPUs", x["replica"], x["model"],
                              f"in flight {x['batch']}, step {x['step']}",
                              f"prompt-lookup draft k = {x['draft']}",
                              f"prefix cache: {x['hit']} of prompt", f"prefill {x['prefill']}; KV {x['kv']}/seq",
                              "abort on stream reset"), "pool", "gpu")
        telemetry = st.box(st.html("Telemetry", "accept · cancel · latency", "per language"), "telemetry",
                           "store", shape="cylinder")
        editor >> st.edge("keystrokes") >> client
        client >> st.edge("request /\nreset") >> edge >> gateway >> router >> pool
        pool >> st.edge("ghost text", style="dashed", color=st.FILL["gpu"][1]) >> client
        client >> st.edge("events", style="dotted") >> telemetry
        # No stage is held on its neighbour's rank: stacked, the path fits the column with its type at a
        # legible size (side by side it was 898 pt wide, its labels 9 px on a laptop).
