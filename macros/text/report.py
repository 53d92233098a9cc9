"""The calculator's human output: the script of what a candidate says aloud, line by line.
The calculator page embeds this same text at build time, so it is never pasted.
"""

from __future__ import annotations

from . import fmt
from . import show
from ..engine import formulas as f
from ..engine.scenario import Scenario, compute_dtype
from ..engine.specs import Catalog, catalog

def ignored() -> str:
    """What the floor leaves out, with the measured gap from data/claims.toml."""
    claims = catalog().claims
    mbu, gap = claims["decode-bandwidth-utilisation"], claims["floor-to-measured"]
    return ("What the floor ignores: communication (the tensor-parallel all-reduce is shown beside it, not in "
            "it), kernel efficiency, scheduling gaps and queueing. Measured 70B decode reaches roughly "
            f"{fmt.span(mbu.low, mbu.high, mbu.unit)} of peak bandwidth, so expect real steps "
            f"{fmt.span(gap.low, gap.high, gap.unit)} slower; the planned figures divide the floor by the "
            "realised efficiency.")


def _rows(rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(label) for label, _ in rows)
    return [f"  {label.ljust(width)}  {text}" for label, text in rows]


def headline(s: Scenario) -> str:
    m, g = s.model_spec, s.gpu_spec
    return (f"{m.name} on {s.gpus} × {g.name}, {fmt.tokens(s.seq_len)} per sequence, "
            f"{s.weights_dtype.upper()} weights, {s.kv_dtype.upper()} KV cache, layout {s.layout}")


def render(s: Scenario) -> str:
    """The whole report as plain text."""
    m, g = s.model_spec, s.gpu_spec
    out = [headline(s)]
    if s.gpus_chosen:
        held = f"{s.batch} sequences" if s.batch_given and s.batch > 1 else "one sequence"
        plural = "s" if s.gpus > 1 else ""
        out.append(f"(chose {s.gpus} GPU{plural}: the smallest power of two that holds the weights, "
                   f"the reserve and {held}; --gpus overrides)")
    out += ["", "Memory budget"]
    per_gpu = fmt.bytes_(s.weight_bytes / s.gpus)
    out += _rows([
        ("memory", show.memory(s)),
        ("weights", f"{show.weights(s)}" + (f"  ({per_gpu} per GPU, TP={s.gpus})" if s.gpus > 1 else "")),
    ] + ([("weights held", show.weights_held(s))] if s.layout == "dp-attention" else []) + [
        ("reserve", f"{show.reserve(s)}  (activations and overhead: a placeholder, not a measurement)"),
        ("left for KV", show.budget(s)),
        ("KV per token", f"{show.kv_per_token(m, s.kv_dtype)}  ({m.attention})"),
        ("KV per sequence", f"{show.kv_per_seq(s)}  ({fmt.binary(s.kv_bytes_per_seq)})"),
        ("KV copies", show.kv_copies(s)),
    ] + ([("max batch", f"{show.max_batch(s)} concurrent sequences")] if s.fits else []))
    if not s.fits:
        out += ["", f"Does not fit: {s.gpus} × {g.name} leave {fmt.bytes_(s.kv_budget_bytes)} for the KV cache, "
                f"less than one {fmt.tokens(s.seq_len)} sequence ({fmt.bytes_(s.kv_bytes_per_seq)}). "
                "Add GPUs, quantize, or shorten the context."]
        return "\n".join(out) + "\n"
    kv_total = s.kv_bytes_total
    if kv_total > s.weight_bytes:
        out.append(f"  At batch {s.batch} the KV cache ({fmt.bytes_(kv_total)}) outweighs the weights "
                   f"({fmt.bytes_(s.weight_bytes)}): the cache, not the model, is what limits the batch.")

    out += ["", f"Decode step at batch {s.batch} (the floor: every sequence at full context)"]
    out += _rows([
        ("bytes read", show.decode_bytes(s)),
        ("FLOPs", show.decode_flops(s)),
        ("memory time", show.memory_time(s)),
        ("compute time", show.compute_time(s)),
        ("step floor", f"the larger of the two = {fmt.ms(s.decode_step_s)}"),
        ("planned step", f"{show.planned_step(s)} at {fmt.pct(s.efficiency)} realised efficiency"),
        ("TP all-reduce", f"{show.tp_allreduce(s)}; beside the floor, not in it"),
    ])

    compute = compute_dtype(s.gpu_spec, s.weights_dtype).upper()
    verdict = (f"{fmt.num(s.decode_intensity)} < {fmt.num(s.machine_balance)}: memory-bound, so a bigger batch "
               "is nearly free on the compute axis" if s.bound == "memory" else
               f"{fmt.num(s.decode_intensity)} ≥ {fmt.num(s.machine_balance)}: compute-bound")
    out += ["", "Roofline"]
    out += _rows([
        ("intensity", show.intensity(s)),
        ("machine balance", f"{show.machine_balance(g, s.gpu_peak_flops)}  ({compute}, dense)"),
        ("verdict", verdict),
        ("compute idle", f"{fmt.pct(f.compute_idle_fraction(s.decode_intensity, s.machine_balance))} of the step"),
    ])

    out += ["", f"Prefill of one {fmt.count(s.seq_len)}-token prompt"]
    out += _rows([
        ("compute", show.prefill_compute(s)),
        ("memory", show.prefill_memory(s)),
        ("prefill floor", f"{fmt.seconds(s.prefill_s)} ({s.prefill_bound}-bound); every decode in the batch waits "
                          "this long unless prefill is chunked"),
    ])

    out += ["", "Throughput (floor; planned at the realised efficiency)"]
    out += _rows([("aggregate", f"{show.throughput(s)}; planned {fmt.tokens_per_s(s.planned_tokens_per_s)}"),
                  ("per user", f"{show.per_user(s)}; planned {fmt.tokens_per_s(1 / s.planned_step_s)}")])

    out += ["", "Cost"]
    if s.cost_per_million_tokens is None:
        out.append(f"  no price on record for {g.name}: pass --price USD per GPU-hour")
    else:
        out += _rows([
            ("price", f"{fmt.usd(s.price_per_gpu_hour)} per GPU-hour ({s.price_source})"),
            ("per million", show.cost(s)),
        ])
        out.append(f"  A modelled figure, not a measured one: {fmt.pct(s.efficiency)} realised efficiency "
                   "is a placeholder (--efficiency).")
    out += ["", ignored()]
    return "\n".join(out) + "\n"


def listing(cat: Catalog) -> str:
    """The readable --list table."""
    lines = ["Models"]
    for key, m in cat.models.items():
        moe = f", MoE {m.experts_per_token}/{m.experts}" if m.is_moe else ""
        lines.append(f"  {key:<18} {m.name:<28} {fmt.billion(m.params):>14}  {m.attention}{moe}, "
                     f"{fmt.count(m.max_context)} context")
    lines += ["", "GPUs"]
    for key, g in cat.gpus.items():
        lines.append(f"  {key:<18} {g.name:<28} {fmt.bytes_(g.memory_bytes):>8}  "
                     f"{fmt.bandwidth(g.bandwidth_bytes_per_s):>10}  {fmt.flops_rate(g.bf16_flops):>14} BF16 dense")
    lines += ["", "Dtypes: " + ", ".join(f"{k} ({fmt.num(p.bytes)} B)" for k, p in cat.precisions.items())]
    return "\n".join(lines) + "\n"

