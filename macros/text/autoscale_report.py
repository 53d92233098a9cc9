"""The day of traffic as text (`gpu_math.py autoscale FILE`): the inputs the run rests on, the day's
totals, an hourly digest of the timeline, and what the model leaves out."""

from __future__ import annotations

from ..engine.autoscale.run import Autoscaled
from ..engine.lookup import get_gpu
from ..engine.specs import catalog
from . import fmt

MINUTES_PER_HOUR = 60
HEADS = ("hour", "offered/s", "capacity/s", "replicas", "warm pool", "shed (requests)")  # the hourly digest

LEAVES_OUT = (
    "Minute-level fluid model: within a minute, load is smooth and capacity is the replicas' rate at the SLO "
    "(simulated once per mix, not per minute); admission control sheds the rest at once, so a served request "
    "always meets the targets and a minute misses the SLO only by shedding; queues carry nothing from one minute "
    "to the next; prefix caches of new replicas are as warm as old ones; the signals are idealised readings "
    "(signals.py), read once a minute with no noise; the forecast is the curve without bursts."
)


def price_source(r: Autoscaled) -> str:
    """Where the price per GPU-hour came from, in words ("" when there is none)."""
    if r.price_from == "workload":
        return f" at {fmt.usd(r.price_per_gpu_hour)} per GPU-hour, from the workload file"
    if r.price_from == "prices.toml":
        price = catalog().prices[r.workload.gpu]
        return f" at {fmt.usd(price.typical)} per GPU-hour ({r.price_as_of}: {price.source})"
    return ""


def render(r: Autoscaled) -> str:
    w, c, run = r.workload, r.controls, r.run
    gpu = get_gpu(w.gpu).name
    lines = [
        f"{w.name}: one day, {c.policy} scaling on {c.signal}",
        f"  replica: {c.gpus_per_replica} x {gpu}; at the p{c.slo_percentile} targets (TTFT {fmt.seconds(w.ttft_s)}, "
        f"TPOT {fmt.ms(w.tpot_s)}) it takes {fmt.num(r.planned.rate_per_s)} requests/s "
        f"({fmt.num(r.shifted.rate_per_s)} when the prompts grow by {fmt.times(r.inputs.shift_prompt_scale)})",
        f"  cold start: {fmt.seconds(r.cold.allocation_s)} allocation + {fmt.seconds(r.cold.image_pull_s)} image "
        f"+ {fmt.seconds(r.cold.weight_load_s)} weights + {fmt.seconds(r.cold.engine_start_s)} engine = "
        f"{fmt.seconds(r.cold.total_s)}, {fmt.count(c.cold_minutes)} minutes in the model",
        f"  set point {fmt.pct(c.set_point)} of capacity; forecast error (p{c.slo_percentile} of a backtest day) "
        f"{fmt.pct(c.forecast_error)}",
        "",
        f"  GPU-hours         {fmt.num(run.gpu_hours)}",
        f"  cost              {'no price on record for this GPU' if r.cost is None else fmt.usd(r.cost)}"
        f"{price_source(r)}",
        f"  SLO minutes       {fmt.count(run.slo_violation_minutes)} (more than "
        f"{fmt.pct(c.shed_allowed)} of a minute's requests shed)",
        f"  requests offered  {fmt.count(run.offered_requests)}",
        f"           served   {fmt.count(run.served_requests)}",
        f"           shed     {fmt.count(run.shed_requests)}",
        f"  cold starts       {fmt.count(run.cold_starts)}; warm starts {fmt.count(run.warm_starts)}",
        "",
        "  " + "  ".join(HEADS),
    ]
    for h in range(0, len(run.minutes), MINUTES_PER_HOUR):
        hour = run.minutes[h:h + MINUTES_PER_HOUR]
        offered = sum(m.offered for m in hour) / len(hour) / 60
        capacity = sum(m.capacity for m in hour) / len(hour) / 60
        cells = (h // MINUTES_PER_HOUR, offered, capacity, max(m.replicas for m in hour),
                 max(m.warm_pool for m in hour), sum(m.shed for m in hour))
        lines.append("  " + "  ".join(fmt.count(v).rjust(len(head)) for v, head in zip(cells, HEADS)))
    lines += ["", f"  Leaves out: {LEAVES_OUT}"]
    return "\n".join(lines) + "\n"
