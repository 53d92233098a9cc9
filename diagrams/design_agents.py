"""The agent platform design, altitude 1: the task loop around a DeepSeek-V3 fleet on B200, labels from
its workload file's plan (macros/data/designs/agents.toml) and [design.inputs]."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from macros.site.build.drawings import shared
from macros.site.pages import design_agents
from macros.text import fmt

st = shared("_style")

FORMAT = "svg"
DESIGNS = ("agents",)


@cache
def _figures() -> dict[str, str]:
    q = design_agents.model()
    p, w, x, a = q.plan, q.workload, q.inputs, q.d.answer  # the fleet is the serving model's answer
    return {
        "replicas": fmt.count(a.replicas), "replica": f"{a.gpus_per_replica} × {p.at_slo.gpu_spec.name}",
        "gpus": fmt.count(a.gpus), "slo_batch": fmt.num(a.live_concurrency_per_replica), "max_batch": str(p.max_batch),
        "kv": fmt.bytes_(p.kv_bytes_per_seq), "context": fmt.tokens(p.seq_len), "steps": str(q.steps),
        "in_flight": fmt.num(q.in_flight), "dram": fmt.bytes_(x.host_dram_bytes),
        "idle_kv": fmt.bytes_(q.idle_kv_bytes), "ttl": fmt.seconds(x.retention_ttl_s), "reload": fmt.ms(q.reload_s),
        "model": p.at_slo.model_spec.name, "hit": fmt.pct(w.prefix_hit_rate), "layout": q.layout_label,
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "The agent platform at altitude 1, top to bottom: a user or a CI job starts a task at the API gateway, "
        "which authenticates and holds each tenant to a quota of tasks in flight and tokens a minute. The agent "
        "orchestrator runs the loop: it writes every step to a durable task log, enforces the task's budgets in "
        "tokens, steps and wall time, and cancels everything the task started. Each of a task's "
        f"{x['steps']} model calls goes through the task-affine router, which hashes the task ID to a home "
        f"replica so the call finds its prefix ({x['hit']} of prompt tokens from cache), with bounded load and "
        f"overflow on KV occupancy. The fleet is {x['replicas']} replicas of {x['replica']} ({x['gpus']} GPUs) "
        f"serving {x['model']}, {x['layout']}: about {x['slo_batch']} calls "
        f"in flight per replica at the peak and up to {x['max_batch']} in HBM, {x['kv']} of KV for a task at "
        f"{x['context']}. While a tool runs, the task's KV moves to host DRAM ({x['dram']} a node; about "
        f"{x['idle_kv']} of idle KV a replica), kept for {x['ttl']} and reloaded in {x['reload']}. Tool calls run "
        f"in the sandbox pool, one microVM per task, about {x['in_flight']} alive at the peak, with no "
        "credentials inside; their output returns to the orchestrator as untrusted data."
    )


def render(out: Path, variant: str | None = None) -> None:
    from diagrams.onprem.client import User

    x = _figures()
    with st.diagram(out, "TB", ranksep="0.45", nodesep="0.3") as d:
        client = st.icon(User, "user or CI job", "client")
        gateway = st.box(st.html("API gateway", "authn · tenant quotas:", "tasks in flight, tokens a minute"),
                         "gateway", "net")
        orchestrator = st.box(st.html("Agent orchestrator", "runs the loop, one step at a time",
                                      "budgets: tokens · steps · wall time", "cancellation reaches every call"),
                              "orchestrator", "control")
        log = st.box(st.html("Task log", "every call and result,", "resume at step k"), "log", "store",
                     shape="cylinder")
        router = st.box(st.html("Task-affine router", "hash(task ID) → home replica", "bounded load,",
                                "overflow on KV occupancy"), "router", "control")
        sandboxes = st.box(st.html("Sandbox pool", "one microVM per task,", f"≈{x['in_flight']} alive at peak",
                                   "no credentials, egress allow-list"), "sandboxes", "safety")
        with st.cluster("fleet", f"  Inference fleet: {x['replicas']} replicas of {x['replica']}, "
                                 f"{x['gpus']} GPUs  ", "gpu", labeljust="r"):
            replica = st.box(st.html(f"Replica: {x['replica']}", f"{x['model']}, FP8 weights",
                                     x["layout"],
                                     f"≈{x['slo_batch']} in flight, ≤{x['max_batch']} in HBM",
                                     f"{x['kv']} of KV per task at {x['context']}"), "replica", "gpu")
            host = st.box(st.html("Host DRAM tier", f"{x['dram']} a node; idle KV ≈{x['idle_kv']} at peak",
                                  f"kept {x['ttl']} after last use", f"reload {x['reload']} a task"),
                          "host", "store", shape="cylinder")

        client >> st.edge("start task") >> gateway >> orchestrator
        orchestrator - st.edge("append", style="dashed", arrowhead="none") - log
        orchestrator >> st.edge(f"model call\n(step k of {x['steps']})") >> router >> replica
        orchestrator >> st.edge("tool call", color=st.FILL["safety"][1]) >> sandboxes
        sandboxes >> st.edge("result:\nuntrusted data", style="dashed", color=st.FILL["safety"][1],
                             constraint="false") >> orchestrator
        replica >> st.edge("tool running:\nKV out", style="dashed") >> host
        host >> st.edge("tool done:\nKV back", style="dashed", constraint="false") >> replica
        st.same_rank(d, orchestrator, log)
        st.same_rank(d, router, sandboxes)
        st.same_rank(d, replica, host)
