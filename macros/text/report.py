"""The calculator's human output: the script of what a candidate says aloud, line by line.
The calculator page embeds this same text at build time, so it is never pasted.
"""

from __future__ import annotations

import textwrap

from ..engine import formulas as f
from ..engine.model.scenario import Scenario, compute_dtype
from ..engine.specs import Catalog, catalog
from . import fmt, show

# Lines fold at 78 columns: an 80-column terminal, and the calculator page's code block, which holds
# about 80 characters at 1280 px, so the page never scrolls sideways.
WIDTH = 78


def _wrap(line: str, indent: int | None = None) -> list[str]:
    """`line` folded at spaces to WIDTH columns (never inside a word, a flag or a number); continuation
    lines start at column `indent`, by default the line's own indentation plus two."""
    lead = len(line) - len(line.lstrip(" "))
    hang = " " * (lead + 2 if indent is None else indent)
    return textwrap.wrap(line, WIDTH, subsequent_indent=hang, break_long_words=False,
                         break_on_hyphens=False) or [""]


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
    return [part for label, text in rows for part in _wrap(f"  {label.ljust(width)}  {text}", width + 4)]


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
        return "\n".join(part for line in out for part in _wrap(line)) + "\n"
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
        ("estimated step", show.estimated_step(s)),
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
                  ("per user", f"{show.per_user(s)}; planned {fmt.tokens_per_s(1 / s.planned_step_s)}")]
                 + ([("estimated", show.estimated_rates(s))] if s.estimated_step_s is not None else []))

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
    return "\n".join(part for line in out for part in _wrap(line)) + "\n"


def _columns(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """Rows under a header, each column as wide as its widest cell; columns in `right` right-aligned."""
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    return ["  " + "  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                             for i, (cell, w) in enumerate(zip(row, widths))).rstrip() for row in (header, *rows)]


def listing(cat: Catalog) -> str:
    """The readable --list table, one line per key, within WIDTH columns."""
    models = [[key, m.name, fmt.params(m.params, 3), m.attention + (f", MoE {m.experts_per_token}/{m.experts}"
                                                                     if m.is_moe else ""), fmt.count(m.max_context)]
              for key, m in cat.models.items()]
    gpus = [[key, g.name, fmt.bytes_(g.memory_bytes), fmt.bandwidth(g.bandwidth_bytes_per_s),
             fmt.flops_rate(g.bf16_flops)] for key, g in cat.gpus.items()]
    lines = ["Models"] + _columns(["key", "name", "params", "attention", "context"], models, {2, 4})
    lines += ["", "GPUs"] + _columns(["key", "name", "memory", "bandwidth", "dense BF16"], gpus, {2, 3, 4})
    lines += ["", "Dtypes: " + ", ".join(f"{k} ({fmt.num(p.bytes)} B)" for k, p in cat.precisions.items())]
    return "\n".join(part for line in lines for part in _wrap(line)) + "\n"
