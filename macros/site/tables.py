"""Macros for the reference pages (numbers sheet, KV tables, calculator, reality check).

Every table is built by looping over the data, so a GPU or model added to macros/data/*.toml
adds its rows with no page edited. Tables come back as Markdown (Material styles them); each
spec figure carries its source and date in a tooltip (cite()), and unverified values are marked.
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from ..engine import formulas as f
from ..engine.model import measurements
from ..engine.model import scenario as scen
from ..engine.specs import Gpu, Model, catalog
from ..engine.workloads import workloads
from ..text import fmt, report, show
from .markdown import cite, table, tabs

DASH = "—"
NO_FIT = "does not fit"


# --- provenance -----------------------------------------------------------------------


_GPU_FORMAT: dict[str, Callable[[float], str]] = {
    "memory_bytes": fmt.bytes_, "memory_visible_bytes": fmt.bytes_, "bandwidth_bytes_per_s": fmt.bandwidth,
    "bf16_flops": fmt.flops_rate, "fp8_flops": fmt.flops_rate, "fp4_flops": fmt.flops_rate,
    "bf16_sparse_flops": fmt.flops_rate, "interconnect_bytes_per_s": fmt.bandwidth, "tdp_w": fmt.watts,
}


_FIELD_LABEL = {
    "memory_bytes": "memory", "memory_visible_bytes": "driver-visible memory", "bandwidth_bytes_per_s": "bandwidth",
    "bf16_flops": "dense BF16", "fp8_flops": "dense FP8", "fp4_flops": "dense FP4",
    "bf16_sparse_flops": "BF16 with sparsity", "interconnect_bytes_per_s": "link bandwidth each way", "tdp_w": "TDP",
}


def spec(gpu: str | Gpu, field: str, scale: float | None = None, sig: int = 3) -> str:
    """One GPU figure with its source and check date in its tooltip; "—" when absent. With `scale`
    it is a bare number in that unit (the table header names the unit): 989.4e12, 1e12 -> 989.4."""
    g = scen.get_gpu(gpu) if isinstance(gpu, str) else gpu
    value = getattr(g, field)
    if value is None:
        return DASH
    text = fmt.num(value / scale, sig) if scale else _GPU_FORMAT[field](value)
    source = g.sources.get(field, "no source recorded")
    return cite(text, f"{source} (checked {g.checked})", field in g.unverified)


def model_fact(model: str | Model, text: Any) -> str:
    """A model figure with the model's config source and check date in its tooltip."""
    m = scen.get_model(model) if isinstance(model, str) else model
    return cite(str(text), f"{m.source} (checked {m.checked})")


def price(gpu: str) -> str:
    """The dated price range per GPU-hour, source in its tooltip; prices are always unverified."""
    p = catalog().prices.get(gpu)
    if p is None:
        return DASH
    text = fmt.usd(p.low) if p.low == p.high else f"{fmt.usd(p.low)}–{fmt.usd(p.high)}"
    return cite(f"{text} ({p.as_of})", p.source, unverified=True)


# --- hardware -------------------------------------------------------------------------


def hardware_table() -> str:
    rows = []
    for _key, g in catalog().gpus.items():
        balance = f.machine_balance(g.bf16_flops, g.bandwidth_bytes_per_s)
        rows.append([g.name, spec(g, "memory_bytes", 1e9), spec(g, "bandwidth_bytes_per_s", 1e12),
                     spec(g, "bf16_flops", 1e12, 4), spec(g, "fp8_flops", 1e12, 4),
                     spec(g, "bf16_sparse_flops", 1e12, 4), cite(fmt.num(balance), show.machine_balance(g))])
    return table(["GPU", "memory, GB", "bandwidth, TB/s", "BF16 dense, TFLOP/s", "FP8 dense, TFLOP/s",
                  "BF16 “with sparsity”, TFLOP/s", "balance, FLOP/B"], rows)


def links_table() -> str:
    rows = [[g.name, g.interconnect, spec(g, "interconnect_bytes_per_s"), spec(g, "tdp_w"), price(key)]
            for key, g in catalog().gpus.items()]
    return table(["GPU", "interconnect", "link bandwidth, each way", "TDP", "price per GPU-hour"], rows, "lllrr")


def gpu_sources() -> str:
    """A definition list of every GPU's sources, for print and for reading all at once."""
    out = []
    for g in catalog().gpus.values():
        items = "; ".join(f"{_FIELD_LABEL.get(name, name)}: {src}" + (" (unverified)" if name in g.unverified else "")
                          for name, src in g.sources.items())
        out.append(f"{g.name} (checked {g.checked})\n:   {html.escape(items)}")
    return "\n\n".join(out)


# --- scenarios on groups ----------------------------------------------------------------


def _signed_bytes(x: float) -> str:
    """A size that may be negative (weights larger than the group), with a true minus sign."""
    return fmt.bytes_(x).replace("-", "−")


def anchors_table(model: str, gpu: str, counts: Sequence[int] | None = None, seq_len: int = scen.DEFAULT_SEQ_LEN,
                  compact: bool = False) -> str:
    """Budget and decode floor of `model` on each group size: "does not fit" where it does not.
    One column per group (a row per figure keeps the table within the page at any group count);
    `compact` (the printed cheat sheet) is one row per group, units in the header."""
    counts = counts or workloads()["gpu_counts"]
    ms, rate = (lambda x: fmt.num(x * 1e3), fmt.num) if compact else (fmt.ms, fmt.tokens_per_s)
    labels = ["memory", "weights per GPU", "KV budget", "max batch", "step, batch 1", "step, max batch",
              "aggregate", "per user", "cost per million"]
    groups = {}
    for g in counts:
        s = scen.scenario(model, gpu, gpus=g, seq_len=seq_len)
        cells = [fmt.bytes_(s.memory_bytes), fmt.bytes_(s.weight_bytes / g), _signed_bytes(s.kv_budget_bytes)]
        if not s.fits:
            cells += [NO_FIT] + [DASH] * 5
        else:
            one = scen.scenario(model, gpu, gpus=g, seq_len=seq_len, batch=1)
            cost = DASH if s.cost_per_million_tokens is None else fmt.usd(s.cost_per_million_tokens)
            cells += [fmt.count(s.max_batch), ms(one.decode_step_s), ms(s.decode_step_s), rate(s.decode_tokens_per_s),
                      rate(s.decode_tokens_per_s_per_user), cost]
        groups[f"{g} × {s.gpu_spec.name}"] = dict(zip(labels, cells))
    if not compact:
        return table([""] + list(groups), [[label] + [c[label] for c in groups.values()] for label in labels])
    shown = labels[2:-1]
    head = ["group", "KV budget", "max batch", "step, batch 1 (ms)", "step, max batch (ms)", "aggregate (tokens/s)",
            "per user (tokens/s)"]
    return table(head, [[name] + [c[label] for label in shown] for name, c in groups.items()])


def cost_table(model: str | None = None) -> str:
    """Each priced GPU: its dated price, and the model's floor cost per million output tokens on
    the sensible group at max batch, at the default realised efficiency."""
    model = model or workloads()["model"]
    rows = []
    for key in catalog().prices:
        s = scen.scenario(model, key, gpus=scen.sensible_gpus(model, key))
        rows.append([s.gpu_spec.name, price(key), fmt.usd(catalog().prices[key].typical), f"{s.gpus}",
                     fmt.count(s.max_batch), fmt.tokens_per_s(s.decode_tokens_per_s),
                     fmt.usd(s.cost_per_million_tokens)])
    return table(["GPU", "price per hour (as of)", "typical", "GPUs", "max batch", "floor throughput",
                  "cost per million"], rows)


# --- KV cache ---------------------------------------------------------------------------


def attention_note(m: Model, short: bool = False) -> str:
    """The model's attention in words: what it caches per token and layer. `short` for a table
    cell: "GQA 8:1 + window 4,096 on 23/46"."""
    if m.is_mla:
        text = f"MLA {m.kv_lora_rank} + {m.qk_rope_head_dim}" if short else \
            f"MLA: one latent of {m.kv_lora_rank} + {m.qk_rope_head_dim} (RoPE) per layer"
    elif short:
        text = f"{m.attention} {m.query_heads // m.kv_heads}:1"
    elif m.attention == "MHA":
        text = f"MHA: {m.kv_heads} KV heads, one per query head"
    elif m.attention == "MQA":
        text = f"MQA: one KV head for {m.query_heads} query heads"
    else:
        text = f"GQA: {m.query_heads // m.kv_heads} query heads share each of {m.kv_heads} KV heads"
    if m.sliding_window_layers:
        everywhere = m.sliding_window_layers == m.layers
        if short:
            text += f" + window {fmt.count(m.sliding_window)}" + ("" if everywhere else
                                                                   f" on {m.sliding_window_layers}/{m.layers}")
        else:
            which = "every layer" if everywhere else f"{m.sliding_window_layers} of {m.layers} layers"
            text += f"; window of {fmt.count(m.sliding_window)} tokens on {which}"
    return text


def kv_model_table() -> str:
    rows = []
    for _key, m in catalog().models.items():
        bf16, fp8 = scen.kv_bytes_per_token(m, "bf16"), scen.kv_bytes_per_token(m, "fp8")
        mha = scen.mha_kv_bytes_per_token(m, "bf16")
        rows.append([model_fact(m, m.name), cite(attention_note(m, short=True), attention_note(m)),
                     model_fact(m, m.layers),
                     model_fact(m, f"{m.query_heads} / {m.kv_heads}"), model_fact(m, m.head_dim),
                     cite(fmt.count(bf16), show.kv_per_token(m, "bf16")),
                     cite(fmt.count(fp8), show.kv_per_token(m, "fp8")),
                     fmt.count(mha), fmt.times(mha / bf16)])
    return table(["model", "attention", "L", "H_q/H_kv", "d_h", "BF16, B/token", "FP8, B/token",
                  "as MHA, B/token", "saving"], rows, "llrrrrrrr")


def kv_seq_table(kv: str = scen.DEFAULT_DTYPE, contexts: Sequence[int] | None = None) -> str:
    """KV per sequence at each context; "beyond max context" past the model's limit."""
    contexts = contexts or workloads()["contexts"]
    rows = []
    for m in catalog().models.values():
        cells = [fmt.bytes_(scen.model_kv_bytes_per_seq(m, c, kv)) if c <= m.max_context else "beyond max context"
                 for c in contexts]
        rows.append([m.name, fmt.count(m.max_context)] + cells)
    return table(["model", "max context"] + [fmt.tokens(c) for c in contexts], rows)


def capacity_tabs(seq_len: int = scen.DEFAULT_SEQ_LEN, counts: Sequence[int] | None = None,
                  kv: str = scen.DEFAULT_DTYPE) -> str:
    """Max concurrent sequences for every model on each group size of every GPU, one tab per GPU."""
    counts = counts or workloads()["gpu_counts"]
    panes = []
    for key, g in catalog().gpus.items():
        rows = []
        for mkey, m in catalog().models.items():
            if seq_len > m.max_context:
                rows.append([m.name] + ["beyond max context"] * len(counts))
                continue
            cells = []
            for n in counts:
                s = scen.scenario(mkey, key, gpus=n, seq_len=seq_len, kv=kv)
                cells.append(fmt.count(s.max_batch) if s.fits else NO_FIT)
            rows.append([m.name] + cells)
        panes.append((g.name, table(["model"] + [f"{n} GPU" + ("s" if n > 1 else "") for n in counts], rows)))
    return tabs(panes)


# --- the calculator page ------------------------------------------------------------------


def headline_table(part: str = "fit", gpu: str | None = None, batch: int | None = None) -> str:
    """Every model on the smallest group of `gpu` that holds `batch` default-length sequences, in two
    tables that each fit the page: `part` "fit" (group, weights, cache, max batch) or "speed" (the step
    floors, throughput and cost, units in the header)."""
    if part not in ("fit", "speed"):
        raise ValueError(f"headline_table: part must be 'fit' or 'speed', not {part!r}")
    gpu, batch = gpu or workloads()["headline_gpu"], batch or workloads()["batch"]
    rows = []
    for key, m in catalog().models.items():
        n = scen.sensible_gpus(key, gpu, batch)
        s = scen.scenario(key, gpu, gpus=n, seq_len=min(scen.DEFAULT_SEQ_LEN, m.max_context))
        if part == "fit":
            rows.append([m.name, f"{n} × {s.gpu_spec.name}", fmt.bytes_(s.weight_bytes), fmt.bytes_(s.kv_bytes_per_seq),
                         fmt.count(s.max_batch)])
            continue
        one = scen.scenario(key, gpu, gpus=n, seq_len=s.seq_len, batch=1)
        cost = DASH if s.cost_per_million_tokens is None else fmt.usd(s.cost_per_million_tokens)
        rows.append([m.name, fmt.num(one.decode_step_s * 1e3), fmt.num(s.decode_step_s * 1e3),
                     fmt.num(s.decode_tokens_per_s), fmt.num(s.decode_tokens_per_s_per_user), cost])
    if part == "fit":
        return table(["model", "group", "weights", "KV per sequence", "max batch"], rows)
    return table(["model", "step at batch 1, ms", "step at max batch, ms", "aggregate, tokens/s",
                  "per user, tokens/s", "cost per million tokens"], rows)


# --- the reality check ----------------------------------------------------------------


def _measured(c: measurements.Comparison, value: float | None) -> str:
    if value is None:
        return DASH
    return fmt.ms(value) if c.measurement.is_time else fmt.tokens_per_s(value)


def reality_table(metrics: Sequence[str]) -> str:
    """Measurements of the given metrics beside their floors; the source, date, what was measured
    and what the comparison assumes are in the tooltip of the system's name."""
    rows = []
    for c in measurements.comparisons():
        m = c.measurement
        if m.metric not in metrics:
            continue
        where = cite(f"{m.system}, {m.date}", f"{m.what}. Source: {m.source} (checked {m.checked}). "
                                               f"Assumes: {m.assumes}")
        setup = f"{m.weights.upper()}, {m.gpus} × {scen.get_gpu(m.gpu).name}"
        if m.batch is not None:
            setup += f", batch {fmt.count(m.batch)}, {fmt.count(m.input_tokens)} → {fmt.count(m.output_tokens)} tokens"
        ratio = DASH if c.time_ratio is None else fmt.times(c.time_ratio, 2)
        eff = f"{NO_FIT}<br>(holds {c.max_batch})" if c.kind == NO_FIT else fmt.pct(c.efficiency, 2)
        # The run and its setup share a cell, one under the other: as separate columns they squeezed
        # the figures off the right of the page.
        rows.append([f"{where}<br>{setup}", measurements.METRICS[m.metric][0], _measured(c, m.measured),
                     _measured(c, c.modelled), ratio, eff])
    modelled = "floor" if any(measurements.METRICS[k][1] for k in metrics) else "floor or ceiling"
    return table(["system, date, setup", "measured", "value", modelled, "÷ floor", "η"], rows, "llrrrr")


def reality_notes(metrics: Sequence[str]) -> str:
    """How each floor was computed and what it assumes, as a Markdown list."""
    lines = []
    for c in measurements.comparisons():
        if c.measurement.metric in metrics:
            lines.append(f"- **{c.measurement.system}**, {c.measurement.what}: {show.floor_how(c)}"
                         + (f" ({c.bound}-bound)" if c.bound else "") + f". Assumes: {c.measurement.assumes}.")
    return "\n".join(lines)


def efficiency(kind: str) -> dict[str, float]:
    """min, median and max of η over one kind of comparison (see measurements.efficiencies)."""
    values = measurements.efficiencies(kind)
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def register(env: Any) -> None:
    """Called by define_env(): register this module's macros and filters."""
    env.variables["measurements"] = measurements.measurements()
    for fn in (spec, model_fact, price, hardware_table, links_table, gpu_sources, anchors_table,
               cost_table, kv_model_table, kv_seq_table, capacity_tabs, headline_table, reality_table,
               reality_notes, efficiency):
        env.macro(fn, fn.__name__)
    env.macro(scen.sensible_gpus, "sensible_gpus")
    env.macro(lambda key: attention_note(scen.get_model(key)), "attention_note")
    env.macro(lambda: report.listing(catalog()), "calculator_list")
    env.macro(lambda key: measurements.compare(measurements.measurements()[key]), "comparison")
    env.macro(measurements.run_floor, "run_floor")
    env.macro(lambda key, kv: measurements.full_context_max_batch(measurements.measurements()[key], kv),
              "full_context_max_batch")
