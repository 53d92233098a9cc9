"""Worked design 6, altitude 1: the fleet autoscaler's four loops over one reservation, and the tiers
its replicas load weights from. Labels from the design file's plan and its page model."""

from __future__ import annotations

from pathlib import Path

from macros.site.build.drawings import shared
from macros.text import fmt

# The design file this drawing reads, and the claims its page model reads: both part of its cache key.
DESIGNS = ("autoscaler",)
CLAIMS = ("nic-bandwidth", "instance-acquisition")  # peers' load; the day's cold start, for the reservation

st = shared("_style")

FORMAT = "svg"


def _figures() -> dict[str, str]:
    from macros.site.pages import design_autoscaler

    q = design_autoscaler.model()
    p = q.p
    return {
        "replica": f"{p.gpus_per_replica} × {p.at_slo.gpu_spec.name}",
        "model": f"{p.at_slo.model_spec.name}, {p.weights_dtype.upper()}",
        "fleet": f"{fmt.count(q.fleet)} replicas ({fmt.count(q.fleet_gpus)} GPUs)",
        "trough": fmt.count(q.trough_hour_replicas),
        "most": fmt.count(q.serving_most), "pool": fmt.count(q.pool_most),
        "pool_trough": fmt.count(q.pool_trough), "error": fmt.pct(q.forecast_error),
        "slo_batch": fmt.num(q.d.answer.live_concurrency_per_replica), "max_batch": str(p.max_batch),
        "weights": fmt.bytes_(q.weight_bytes),
        "network": fmt.seconds(q.network.load_s), "nvme": fmt.seconds(q.nvme.load_s),
        "host": fmt.seconds(q.host.load_s), "peer": fmt.seconds(q.peer.load_s),
    }


def ALT(variant: str | None = None) -> str:
    x = _figures()
    return (
        f"The fleet autoscaler at altitude 1. One reservation of {x['fleet']}, each replica {x['replica']} serving "
        f"{x['model']}. The capacity planner sizes the reservation weeks ahead from the forecast's day, minute by "
        f"minute: the most replicas it holds at once, in the afternoon's longer prompts. The forecaster sets each "
        f"hour's interactive target through the planner, from {x['trough']} replicas at the trough to {x['most']} "
        f"at the most, with a pool of {x['error']} of it where the reservation has room. The allocator moves "
        f"replicas between roles: interactive, about {x['slo_batch']} sequences in flight at the peak; warm pool; "
        f"and lent to the batch tier at up to {x['max_batch']} sequences; it reacts in seconds to queued prefill "
        f"tokens, KV occupancy and TTFT. Admission control at the gateway sheds by priority what the whole "
        f"reservation cannot serve. Weights ({x['weights']} per replica) load from peer GPUs in {x['peer']}, "
        f"host RAM in {x['host']}, local NVMe in {x['nvme']}, or the model store in {x['network']}, "
        "floors before the engine warms up."
    )


def render(out: Path, variant: str | None = None) -> None:
    x = _figures()
    with st.diagram(out, "TB", ranksep="0.4", nodesep="0.2") as d:
        planner = st.box(st.html("Capacity planner", "weeks: the reservation", x["fleet"],
                                 "= the forecast's day at its most"), "planner", "control")
        forecast = st.box(st.html("Forecaster", "hourly: rate of the hour ahead", "→ planner → target",
                                  f"{x['trough']} to {x['most']} replicas", f"pool = {x['error']} of target"),
                          "forecast", "control")
        traffic = st.box(st.html("Interactive traffic", "diurnal; tenants", "by priority"), "traffic", "plain")
        admission = st.box(st.html("Admission control", "milliseconds: token", "buckets by priority;",
                                   "sheds what the", "reservation cannot serve"), "admission", "safety")
        allocator = st.box(st.html("Allocator", "seconds: flips replica roles", "on queued prefill tokens,",
                                   "KV occupancy, TTFT p95"), "allocator", "control")
        interactive = st.box(st.html("Interactive replicas", x["replica"], f"≈{x['slo_batch']} in flight",
                                     "(TPOT target)"), "interactive", "gpu")
        pool = st.box(st.html("Warm pool", f"{x['pool_trough']} to {x['pool']} replicas,",
                              "loaded, idle or", "running batch"), "pool", "net")
        lent = st.box(st.html("Lent to batch", f"≤{x['max_batch']} sequences", "(KV budget);",
                              "preemptible"), "lent", "gpu")
        batch = st.box(st.html("Batch queue", "by completion", "deadline"), "batch", "plain")
        weights = st.box(st.html("Weight tiers", f"{x['weights']} per replica:", f"peer GPUs {x['peer']}",
                                 f"host RAM {x['host']}", f"local NVMe {x['nvme']}",
                                 f"model store {x['network']}"), "weights", "store", shape="cylinder")
        planner >> st.edge("reserve") >> forecast
        forecast >> st.edge("hourly target") >> allocator
        traffic >> admission >> st.edge("admitted") >> interactive
        allocator >> st.edge("flip roles") >> interactive
        allocator >> st.edge() >> pool
        allocator >> st.edge() >> lent
        interactive >> st.edge("signals", style="dashed", constraint="false") >> allocator
        batch >> st.edge() >> lent
        weights >> st.edge("cold start", style="dashed") >> pool
        st.same_rank(d, planner, traffic)
        st.same_rank(d, interactive, pool, lent)
