"""The deck's formula cards: one formula to a card, each written once as an expression over named symbols.
The card shows the expression (its `*` as a middle dot, `**` as a power), what each symbol means, and a
worked value: the expression evaluated on the anchor model and GPU. A test holds every worked value to the
engine's own function for the same quantity (macros/engine/formulas), so a card cannot teach a formula the
engine does not compute."""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin

from ..engine import formulas as f
from ..engine.formulas.completion import speculative_tokens_per_step
from ..engine.lookup import dtype_bytes
from ..engine.model.scenario import get_gpu, get_model, kv_bytes_per_token
from ..engine.workloads import workloads
from ..text import fmt
from .pages._reference import reference_group

GREEK = {"lam": "λ", "rho": "ρ", "alpha": "α", "eta": "η"}
EXAMPLE_RHO = 0.8  # a replica at 80 % busy: the queueing cards' example load
EXAMPLE_CV = 2.0  # bursty arrivals: the gaps' coefficient of variation in Kingman's example
EXAMPLE_ACCEPTANCE = 0.7  # a draft token's acceptance rate in the speculative card's example
EXAMPLE_DRAFT = 4  # draft tokens per verify step


@dataclass(frozen=True)
class FormulaCard:
    key: str
    question: str  # the card's front
    expr: str  # a Python expression over `symbols`: what the back shows and what the test evaluates
    legend: tuple[tuple[str, str], ...]  # (symbol, meaning), in the order the expression uses them
    symbols: dict[str, float]  # the worked example's values, in SI units
    engine: Callable[[], float]  # the engine's own value for the same quantity, on the same inputs
    shown: Callable[[float], str]  # the worked value as the site prints it
    teaches: str  # page.md#anchor of the section that derives it

    def value(self) -> float:
        """The expression on the example's symbols (only arithmetic, floor, ceil, max and min)."""
        names = {"floor": math.floor, "ceil": math.ceil, "max": max, "min": min}
        return float(eval(self.expr, {"__builtins__": {}}, {**names, **self.symbols}))  # noqa: S307 (our own text)

    def display(self) -> str:
        out = self.expr.replace(" ** ", "^").replace("**", "^").replace(" * ", "·").replace("*", "·")
        for name, letter in GREEK.items():
            out = out.replace(name, letter)
        return out


def cards() -> list[FormulaCard]:
    """The formula cards, each worked on the anchor model and GPU (the cheat sheet's reference group)."""
    w = workloads()
    m, gpu = get_model(w["model"]), get_gpu(w["gpu"])
    s = reference_group()
    k = dtype_bytes(s.kv_dtype)  # bytes per KV element
    service = s.decode_step_s
    rate = EXAMPLE_RHO / service
    experts, top, tokens = 256, 8, 32  # a DeepSeek-V3-like router: 256 routed experts, 8 per token
    queueing = "guide/autoscaling.md#the-mean-wait-littles-law-mm1-and-md1"
    return [
        FormulaCard("kv-per-token", "KV cache bytes per token (GQA)?", "2 * L * H_kv * d_h * k",
                    (("L", "layers"), ("H_kv", "KV heads"), ("d_h", "head dimension"), ("k", "bytes per element")),
                    {"L": m.layers, "H_kv": m.kv_heads, "d_h": m.head_dim, "k": k},
                    lambda: kv_bytes_per_token(m), fmt.bytes_, "guide/memory.md#32-the-kv-cache-derived"),
        FormulaCard("weight-bytes", "Weight bytes of a model?", "N * w",
                    (("N", "parameters"), ("w", "bytes per weight, scales included")),
                    {"N": m.params, "w": s.weight_bytes / m.params}, lambda: s.weight_bytes, fmt.bytes_,
                    "guide/memory.md#31-weights"),
        FormulaCard("max-batch", "Largest batch the KV budget holds?", "floor(K / (s * c))",
                    (("K", "KV budget in bytes"), ("s", "tokens per sequence"),
                     ("c", "KV bytes per token, every copy")),
                    {"K": s.kv_budget_bytes, "s": s.seq_len, "c": s.kv_bytes_per_seq_group / s.seq_len},
                    lambda: s.max_batch, lambda v: f"{fmt.count(v)} sequences",
                    "guide/memory.md#35-a-complete-worked-budget"),
        FormulaCard("decode-floor", "The decode step's floor?", "max(R / (g * B), F / (g * P))",
                    (("R", "bytes read per step"), ("g", "GPUs"), ("B", "bandwidth per GPU"),
                     ("F", "FLOPs per step"), ("P", "dense peak per GPU")),
                    {"R": s.decode_bytes, "g": s.gpus, "B": s.gpu_bandwidth_bytes_per_s, "F": s.decode_flops,
                     "P": s.gpu_peak_flops},
                    lambda: s.decode_step_s, fmt.ms, "guide/roofline.md#25-one-formula-for-every-step"),
        FormulaCard("machine-balance", "A GPU's machine balance?", "P / B",
                    (("P", "dense peak FLOP/s"), ("B", "memory bandwidth")),
                    {"P": gpu.bf16_flops, "B": gpu.bandwidth_bytes_per_s},
                    lambda: f.machine_balance(gpu.bf16_flops, gpu.bandwidth_bytes_per_s),
                    lambda v: f"{fmt.count(v)} FLOP per byte", "guide/roofline.md#21-arithmetic-intensity"),
        FormulaCard("prefill-flops", "Prefill FLOPs of a prompt, attention left out?", "2 * N_a * s",
                    (("N_a", "active parameters"), ("s", "prompt tokens")),
                    {"N_a": s.active_params, "s": w["prompt_tokens"]},
                    lambda: f.prefill_flops(s.active_params, w["prompt_tokens"]), fmt.flops,
                    "guide/roofline.md#23-prefill-is-compute-bound"),
        FormulaCard("littles-law", "Little's law: requests in the system?", "lam * W",
                    (("lam", "arrival rate"), ("W", "time in the system")),
                    {"lam": rate, "W": service}, lambda: f.in_system(rate, service),
                    lambda v: f"{fmt.num(v)} requests", queueing),
        FormulaCard("mm1-wait", "M/M/1: the mean wait in the queue?", "rho / (1 - rho) * S",
                    (("rho", "utilisation, rate × service time"), ("S", "mean service time")),
                    {"rho": EXAMPLE_RHO, "S": service}, lambda: f.mm1_wait_s(rate, service), fmt.ms, queueing),
        FormulaCard("md1-wait", "M/D/1: the mean wait in the queue?", "rho / (2 * (1 - rho)) * S",
                    (("rho", "utilisation"), ("S", "fixed service time")),
                    {"rho": EXAMPLE_RHO, "S": service}, lambda: f.md1_wait_s(rate, service), fmt.ms, queueing),
        FormulaCard("kingman", "Kingman's approximation: the mean wait in the queue?",
                    "rho / (1 - rho) * (c_a ** 2 + c_s ** 2) / 2 * S",
                    (("rho", "utilisation"), ("c_a", "the arrival gaps' coefficient of variation"),
                     ("c_s", "the service times' coefficient of variation"), ("S", "mean service time")),
                    {"rho": EXAMPLE_RHO, "c_a": EXAMPLE_CV, "c_s": 0.0, "S": service},
                    lambda: f.kingman_wait_s(rate, service, EXAMPLE_CV, 0.0), fmt.ms,
                    "guide/autoscaling.md#bursty-arrivals-kingmans-approximation"),
        FormulaCard("ring-allreduce", "Bytes each GPU sends in a ring all-reduce?", "2 * (g - 1) / g * V",
                    (("g", "GPUs in the ring"), ("V", "bytes of the vector: one token's hidden state in BF16")),
                    {"g": s.gpus, "V": m.hidden_size * 2}, lambda: f.ring_allreduce_bytes(s.gpus, 1, m.hidden_size),
                    fmt.bytes_, "guide/toolkit.md#allreduce"),
        FormulaCard("experts-touched", "Distinct experts a batch of b tokens touches, on average?",
                    "E * (1 - (1 - t / E) ** b)",
                    (("E", "routed experts"), ("t", "experts per token"), ("b", "tokens in the batch")),
                    {"E": experts, "t": top, "b": tokens}, lambda: f.experts_touched(experts, top, tokens),
                    lambda v: f"{fmt.num(v)} experts", "guide/roofline.md#22-decode-is-memory-bandwidth-bound"),
        FormulaCard("speculative-tokens", "Tokens one speculative verify step yields, on average?",
                    "(1 - alpha ** (n + 1)) / (1 - alpha)",
                    (("alpha", "a draft token's acceptance rate"), ("n", "draft tokens per step")),
                    {"alpha": EXAMPLE_ACCEPTANCE, "n": EXAMPLE_DRAFT},
                    lambda: speculative_tokens_per_step(EXAMPLE_ACCEPTANCE, EXAMPLE_DRAFT),
                    lambda v: f"{fmt.num(v)} tokens", "guide/toolkit.md#52-speculative-decoding"),
        FormulaCard("cost-per-million", "Cost per million output tokens?", "p * g / 3600 / (r * eta) * 1e6",
                    (("p", "price per GPU-hour"), ("g", "GPUs"), ("r", "output tokens per second at the floor"),
                     ("eta", "the share of the floor reached")),
                    {"p": s.price_per_gpu_hour, "g": s.gpus, "r": s.decode_tokens_per_s, "eta": s.efficiency},
                    lambda: s.cost_per_million_tokens, fmt.usd, "guide/roofline.md#26-everything-that-follows"),
    ]


def front(c: FormulaCard) -> str:
    return html.escape(c.question)


def back(c: FormulaCard, site_url: str | None = None) -> str:
    """The formula, its symbols, its value on the example, and where the site derives it, as HTML."""
    legend = "".join(f"<li>{html.escape(GREEK.get(sym, sym))}: {html.escape(meaning)}</li>"
                     for sym, meaning in c.legend)
    out = (f"<p><code>{html.escape(c.display())}</code></p><ul>{legend}</ul>"
           f"<p>Worked: {html.escape(c.shown(c.value()))}</p>")
    if site_url:
        page, anchor = c.teaches.split("#")
        href = html.escape(urljoin(site_url, page.removesuffix(".md") + "/"))
        out += f'<p><a href="{href}#{anchor}">Derived here</a></p>'
    return out
