"""The batch API design, altitude 1: intake, a cost-weighted queue per tenant, a deadline-aware
scheduler, a dedicated floor and the interactive fleet's trough, results written per request."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
DESIGNS = ("batch-api",)  # the workload file drawn: part of the drawing's cache key
CLAIMS = ("batch-api-openai-discount",)  # the page model reads it (the discount the batch must afford)


def _figures() -> dict[str, str]:
    from macros.site.pages.design_batch_api import model

    t = model()
    if not t.feasible:  # no fleet on this data: the page places no drawing then, and says why in words
        return dict.fromkeys(("node", "layout", "batch", "kv", "copies", "step", "floor", "interactive", "lend_trough",
                              "lend_peak", "need", "offer", "requests"), "none")
    p = t.plan
    return {
        "node": f"{p.gpus_per_replica} × {p.at_slo.gpu_spec.name}",
        "layout": p.layout, "batch": fmt.count(p.slo_batch), "kv": fmt.bytes_(p.kv_bytes_per_seq),
        "copies": fmt.num(t.tp_kv_copies), "step": fmt.ms(p.planned_step_s),
        "floor": fmt.count(t.floor_replicas), "interactive": fmt.count(t.interactive.replicas),
        "lend_trough": fmt.count(t.trough_lendable), "lend_peak": fmt.count(t.peak_lendable),
        "need": fmt.num(t.batch_replica_hours), "offer": fmt.count(t.lendable_replica_hours),
        "requests": fmt.count(t.d.workload.requests_per_day),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "The batch API at altitude 1, top to bottom: tenants upload files of requests "
        f"({x['requests']} requests a day in all) to the intake API, which writes them to the object store and "
        "the job table and returns a job ID. Requests wait in one queue per tenant, ordered by deadline. The "
        "scheduler takes them by fair share in replica-seconds, not requests, and sizes capacity by deadline "
        f"slack. It feeds two kinds of node, each {x['node']} in the {x['layout']} layout, holding "
        f"{x['batch']} sequences of {x['kv']} of latent each ({x['copies']} copies under tp) at a planned step "
        f"of {x['step']}: a dedicated floor of {x['floor']} nodes, and nodes borrowed from the interactive "
        f"fleet of {x['interactive']}, which lends {x['lend_trough']} at its trough and {x['lend_peak']} at its "
        f"peak ({x['offer']} node-hours a day against the {x['need']} the batch needs). The interactive "
        "autoscaler lends and reclaims nodes with notice. Every finished request is written at once to the "
        "tenant's results file."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import Users

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.4", nodesep="0.35"):
        tenants = st.icon(Users, "tenants\nupload files", "tenants")
        intake = st.box(st.html("Intake API", "validate, split,", "return a job ID"), "intake", "net")
        store = st.box(st.html("Object store", "+ job table", "request ID, deadline,", "status"), "store",
                       "store", shape="cylinder")
        queue = st.box(st.html("Queue per tenant", "ordered by deadline;", "a file's requests", "kept together"),
                       "queue", "control")
        sched = st.box(st.html("Scheduler", "fair share in", "replica-seconds;", "capacity from",
                               "deadline slack"), "scheduler", "control")
        floor = st.box(st.html("Dedicated floor", f"{x['floor']} × ({x['node']})", f"{x['layout']}: ≤{x['batch']}",
                               f"sequences, {x['step']} step"), "floor", "gpu")
        trough = st.box(st.html("Borrowed trough", f"of {x['interactive']} interactive nodes:",
                                f"{x['lend_trough']} lent at the trough,", f"{x['lend_peak']} at the peak;",
                                f"{x['offer']} node-hours a day", f"(batch needs {x['need']})"), "trough", "gpu")
        autoscaler = st.box(st.html("Interactive autoscaler", "lends on forecast,", "reclaims with notice"),
                            "autoscaler", "control", style="rounded,filled,dashed")
        results = st.box(st.html("Results file", "written per request,", "idempotent by ID"), "results",
                         "store", shape="cylinder")

        tenants >> st.edge("file") >> intake >> store >> queue >> sched
        sched >> st.edge("always on") >> floor
        sched >> st.edge("when lent", style="dashed") >> trough
        autoscaler >> st.edge("lend / reclaim", style="dashed") >> trough
        floor >> results
        trough >> results
        # No stage is held on its neighbour's rank: stacked, the pipeline fits the column with its type
        # at a legible size (side by side it was 850 pt wide, its labels 9.5 px on a laptop).
