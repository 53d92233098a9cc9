"""Autoscaling as four control loops at four time scales, admission control the fastest."""

from __future__ import annotations

import textwrap
from pathlib import Path

from macros.engine.specs import catalog
from macros.site.build.drawings import shared
from macros.text import fmt

# The claims (data/claims.toml) this drawing reads: part of its cache key.
CLAIMS = ("instance-acquisition",)

st = shared("_style")

FORMAT = "svg"
NARROW = True  # a narrow form for a phone (diagrams/_style.py)


def _figures() -> dict[str, str]:
    s = st.anchor()
    acquisition = catalog().claims["instance-acquisition"]
    return {
        "replica": f"{s.gpus} × {s.gpu_spec.name}", "weights": fmt.bytes_(s.weight_bytes),
        "target": fmt.pct(st.KV_OCCUPANCY_TARGET),
        "acquire": acquisition.text or fmt.span(acquisition.low, acquisition.high, acquisition.unit),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        "Autoscaling as four control loops. Traffic passes admission control, the fast path that works in "
        "milliseconds: it rejects at the edge with Retry-After, queues by cost class and tenant, counting "
        f"tokens. Behind it the serving fleet of {x['replica']} replicas reports its signals: KV cache "
        "occupancy (the leading one), p95 queue wait, and prefill and decode tokens per second, never request "
        "count or GPU utilisation. The reactive loop, in minutes, scales on the larger of KV occupancy over "
        f"{x['target']} and queue wait over its target, but a new replica takes minutes (instance acquisition: "
        f"{x['acquire']}; then loading {x['weights']} of weights and warming up). The warm pool, in seconds, "
        "holds loaded idle replicas, sized by the forecast error rather than average load. The forecast loop, "
        "hours ahead, scales on the diurnal and weekly curve before the traffic arrives."
    )


def render(out: Path, variant: str | None = None) -> None:
    x = _figures()
    acquire = textwrap.wrap(f"acquire an instance ({x['acquire']}),", 27)
    with st.diagram(out, "TB", ranksep="0.45", nodesep="0.3") as d:
        forecast = st.box(st.html("Forecast loop", "hours ahead:", "diurnal and weekly", "curve from history;",
                                  "scale before traffic"), "forecast", "net")
        traffic = st.box(st.html("Traffic", "diurnal, weekly, bursty;", "cost per request varies",
                                 "by orders of magnitude"), "traffic", "plain")
        admission = st.box(st.html("Admission control", "milliseconds: the fast path", "reject at the edge with",
                                   "Retry-After; queues by cost", "class; fair share per", "tenant, in tokens"),
                           "admission", "safety")
        warm = st.box(st.html("Warm pool", "seconds: replicas", "loaded and idle,", "sized by forecast",
                              "error, not by", "average load"), "warm", "net")
        fleet = st.box(st.html("Serving fleet", "replicas of", x["replica"]), "fleet", "gpu")
        signals = st.box(st.html("Signals", "KV occupancy (leading)", "queue wait p95", "prefill and decode",
                                 "tokens/s, apart;", "not request count,", "not GPU utilisation"),
                         "signals", "store")
        reactive = st.box(st.html("Reactive loop", "minutes: scale on the larger", f"of KV occupancy / {x['target']}",
                                  "and queue wait p95 / target;", "a new replica must", *acquire,
                                  f"load {x['weights']} of weights", "and warm up"), "reactive", "control")
        forecast >> st.edge("pre-warm") >> warm
        traffic >> st.edge() >> admission >> st.edge("admitted") >> fleet
        warm >> st.edge("attach", color=st.FILL["net"][1], penwidth="2") >> fleet
        fleet >> st.edge() >> signals
        signals >> st.edge("KV full:\nshed", style="dashed", constraint="false") >> admission
        signals >> st.edge(style="dashed") >> reactive
        reactive >> st.edge("add replicas", constraint="false") >> warm
        st.same_rank(d, forecast, traffic)
        st.same_rank(d, warm, fleet, signals)
