"""The mock round's figures, from the page model of the round's page (a worked design's plan and answer,
or chapter 7's fleet): the {names} the follow-ups' answers use (`figures`), and the key numbers a reader
enters and the browser checks (`key_numbers`), each with the page's value, the band it accepts and why,
and its derivation in the words the pages print (text/show.py, text/plan_report.py).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ...engine.fleet.answer import Answer
from ...engine.fleet.planner import NODE_GPUS, Plan
from ...engine.model.scenario import scenario
from ...text import fmt, plan_report, show
from . import design, design_answer

COUNT, BYTES, SECONDS, USD = "count", "bytes", "seconds", "usd"  # a number's unit (the browser parses each)
EXACT = 0.10  # arithmetic from the model's shape: what only rounding should move
CHOICES = 2.0  # a figure that depends on the designer's choices (shape, efficiency, headroom): within this factor
BUDGET_CUT = 1 / 3  # the interruption "Finance cuts the GPU budget by a third"
LONG_CONTEXT = 128_000  # the interruption about long contexts: a code base or a year of tickets in one prompt
NAPKIN_STEPS = ("peak traffic", "peak tokens", "SLO batch", "decode capacity", "prefill", "replica time", "replicas")


@dataclass(frozen=True)
class KeyNumber:
    """A number the reader enters, checked against the page's: accepted from `low` to `high` (SI units)."""
    key: str
    label: str  # what to enter, shown while the round runs (no figure of the page's in it)
    unit: str  # COUNT, BYTES, SECONDS or USD
    value: float  # the page's
    low: float
    high: float
    page: str  # the page's value in words, shown once the round ends
    band: str  # what the band accepts and why
    derivation: tuple[str, ...]  # the formula with the page's values substituted, one step a line

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "derivation": list(self.derivation)}


def _fleet(p: Plan, a: Answer) -> tuple[int, str]:
    """The fleet's GPUs and its words: the serving model's answer, or the napkin's where it finds none."""
    if a.feasible:
        return a.gpus, design_answer.fleet(a)
    return p.gpus, f"the napkin's {fmt.count(p.gpus)} GPUs (the serving model finds no fleet that meets the targets)"


def _shape(p: Plan) -> str:
    return f"{p.gpus_per_replica} × {p.at_slo.gpu_spec.name}"


def bigger_model(p: Plan) -> str:
    """What a model twice the size does to the replica's memory, if the KV per token stayed the same."""
    s = p.at_slo
    left = s.kv_budget_bytes - s.weight_bytes_held  # every weight the replica holds, held twice over
    doubled = fmt.bytes_(2 * s.weight_bytes)
    if s.weight_bytes_held > s.weight_bytes:  # data-parallel attention: each rank keeps its own attention weights
        doubled += f", {fmt.bytes_(2 * s.weight_bytes_held)} held with every rank's copy of the attention weights"
    memory = f"{_shape(p)}'s {fmt.bytes_(s.memory_bytes)} of memory"
    if 2 * s.weight_bytes_held + s.reserve_bytes > s.memory_bytes:
        return f"Its weights become {doubled}, more than {memory} holds with its reserve: the replica must widen."
    if left < s.kv_bytes_per_seq_group:
        return (f"Its weights become {doubled}: with them and the reserve, {memory} no longer holds one "
                "sequence's KV cache, so the replica must widen.")
    return (f"Its weights become {doubled}: on {_shape(p)} the KV budget falls from {fmt.bytes_(s.kv_budget_bytes)} "
            f"to {fmt.bytes_(left)}, room for about {math.floor(left / s.kv_bytes_per_seq_group)} sequences at "
            f"full context instead of {p.max_batch}, if the KV per token stayed the same.")


def long_context(p: Plan) -> str:
    """What one LONG_CONTEXT-token sequence holds on the plan's replica, or why it cannot be served."""
    m = p.at_slo.model_spec
    if m.max_context < LONG_CONTEXT:
        return (f"{m.name} reads at most {fmt.tokens(m.max_context)} of context, short of {fmt.tokens(LONG_CONTEXT)}: "
                "the model itself must change.")
    long = scenario(p.model, p.gpu, gpus=p.gpus_per_replica, seq_len=LONG_CONTEXT, weights=p.weights_dtype,
                    kv=p.kv_dtype, layout=p.layout)
    held = (f"One {fmt.count(LONG_CONTEXT)}-token sequence holds {fmt.bytes_(long.kv_bytes_per_seq)} of KV cache "
            f"on {m.name}")
    if long.max_batch == 0:
        return (f"{held}, more than {_shape(p)}'s KV budget of {fmt.bytes_(long.kv_budget_bytes)}: the replica "
                "must widen.")
    return (f"{held}; {_shape(p)}'s KV budget of {fmt.bytes_(long.kv_budget_bytes)} holds {long.max_batch} of them, "
            f"against {p.max_batch} sequences of {fmt.tokens(p.seq_len)} today.")


def figures(p: Plan, a: Answer) -> dict[str, str]:
    """Every name of _round_follow_ups.FIGURES, as the page would print it."""
    s, w = p.at_slo, p.workload
    gpus, fleet = _fleet(p, a)
    price = p.price_per_gpu_hour
    unpriced = "no price on record"
    return {
        "model": s.model_spec.name, "gpu": s.gpu_spec.name, "replica": _shape(p),
        "answer_replica": f"{a.gpus_per_replica} × {s.gpu_spec.name}" if a.feasible else _shape(p),
        "fleet": fleet, "gpus": fmt.count(gpus), "napkin_gpus": fmt.count(p.gpus),
        "gpus_doubled": fmt.count(2 * gpus), "gpus_after_cut": fmt.count(math.floor(gpus * (1 - BUDGET_CUT))),
        "kv_per_token": fmt.bytes_(s.kv_bytes_per_token), "kv_per_seq": fmt.bytes_(p.kv_bytes_per_seq),
        "kv_budget": fmt.bytes_(s.kv_budget_bytes), "weights": fmt.bytes_(s.weight_bytes),
        "max_batch": str(p.max_batch), "slo_batch": str(p.slo_batch), "binding": design.binds_words(p),
        "prefill": fmt.seconds(p.planned_prefill_s),
        "ttft_p95": "not simulated" if a.json.get("ttft_p95_s") is None else fmt.seconds(a.ttft_p95_s),
        "ttft_target": fmt.seconds(w.ttft_s), "tpot_target": fmt.seconds(w.tpot_s),
        "cost_per_day": unpriced if a.json.get("cost_per_day") is None else fmt.usd(a.cost_per_day),
        "cost_per_million": (unpriced if a.json.get("cost_per_million_output_tokens") is None
                             else fmt.usd(a.cost_per_million_output_tokens)),
        "price": unpriced if price is None else fmt.usd(price),
        "headroom": fmt.pct(p.headroom), "efficiency": fmt.pct(p.efficiency), "hit_rate": fmt.pct(w.prefix_hit_rate),
        "node_gpus": str(NODE_GPUS), "node_share": fmt.pct(NODE_GPUS / gpus),
        "bigger_model": bigger_model(p), "long_context": long_context(p),
    }


def _steps(p: Plan, names: tuple[str, ...]) -> tuple[str, ...]:
    """The napkin's steps named, as "what: the formula with its values"."""
    return tuple(f"{what}: {how}" for what, how in plan_report.steps(p) if what in names)


def _choices_band(values: list[float], words: Any) -> tuple[float, float, str]:
    """From the lowest of `values` over CHOICES to the highest times CHOICES, and the sentence that says so."""
    low, high = min(values) / CHOICES, max(values) * CHOICES
    return low, high, (f"Accepted: {words(low)} to {words(high)}, within a factor of {fmt.num(CHOICES)} of the "
                       "page's answer and its napkin. A fleet depends on choices (the replica shape, the "
                       "efficiency, the headroom, the prefix hit rate), so the check asks for the right size, "
                       "not the page's count.")


def fleet_gpus(p: Plan, a: Answer) -> KeyNumber:
    gpus, words = _fleet(p, a)
    low, high, band = _choices_band([gpus, p.gpus], lambda x: f"{fmt.count(x)} GPUs")
    page = f"{fmt.count(gpus)} GPUs: {words}."
    if a.feasible:
        page = (f"{fmt.count(gpus)} GPUs: {words}, the serving model simulated at the peak; the napkin, the "
                f"whiteboard's derivation, gives {fmt.count(p.gpus)}.")
    return KeyNumber("fleet_gpus", "GPUs in the fleet at the peak", COUNT, gpus, low, high, page, band,
                     (*_steps(p, NAPKIN_STEPS), plan_report.answer(p, a.json)))


def kv_per_seq(p: Plan) -> KeyNumber:
    s, v = p.at_slo, p.kv_bytes_per_seq
    low, high = v * (1 - EXACT), v * (1 + EXACT)
    copies = () if s.kv_copies == 1 else (f"copies of it on the replica: {show.kv_copies(s)}",)
    return KeyNumber(
        "kv_per_seq", "KV cache per sequence at full context (prompt plus output)", BYTES, v, low, high,
        f"{fmt.bytes_(v)} for a sequence of {fmt.tokens(p.seq_len)} on {s.model_spec.name}, its KV cache in "
        f"{p.kv_dtype.upper()}: {fmt.bytes_exact(s.kv_bytes_per_token)} a token.",
        f"Accepted: {fmt.bytes_(low)} to {fmt.bytes_(high)}, within {fmt.pct(EXACT)}: the KV cache is exact "
        "arithmetic from the model's shape, so only rounding should move it.",
        (f"KV per token: {show.kv_per_token(s.model_spec, p.kv_dtype)}", f"KV per sequence: {show.kv_per_seq(s)}",
         *copies))


def time_to_first_token(p: Plan, a: Answer) -> KeyNumber:
    w = p.workload
    floor = p.planned_prefill_s * p.efficiency  # the planner plans the prefill as its floor over the efficiency
    p95 = a.json.get("ttft_p95_s")
    low, high = floor / CHOICES, max(p.planned_prefill_s, p95 or 0) * CHOICES
    simulated = ("" if p95 is None else
                 f"; the simulated p95 time to first token at the peak is {fmt.seconds(p95)}")
    return KeyNumber(
        "ttft", "Time to first token of a typical prompt (its prefill, or the p95 with the queue)", SECONDS,
        p.planned_prefill_s if p95 is None else p95, low, high,
        f"{fmt.seconds(p.planned_prefill_s)} of planned prefill for the {fmt.count(p.uncached_prompt_tokens)} "
        f"uncached tokens of a {fmt.count(w.prompt_tokens)}-token prompt, its floor {fmt.seconds(floor)}{simulated}, "
        f"against a target of {fmt.seconds(w.ttft_s)}.",
        f"Accepted: {fmt.seconds(low)} to {fmt.seconds(high)}, within a factor of {fmt.num(CHOICES)} below the "
        "prefill's floor (the fastest a first token can come) and above the larger of the planned prefill and "
        "the simulated p95. A first token is a prefill plus a queue, and the queue depends on the load you assume.",
        (*_steps(p, ("prefill",)),
         *(() if p95 is None else (f"simulated p95 at the peak: {fmt.seconds(p95)} against the "
                                   f"{fmt.seconds(w.ttft_s)} target (the serving model, queueing included)",))))


def max_batch(p: Plan) -> KeyNumber:
    s = p.at_slo
    bare = scenario(p.model, p.gpu, gpus=p.gpus_per_replica, seq_len=p.seq_len, weights=p.weights_dtype,
                    kv=p.kv_dtype, layout=p.layout, reserve_bytes=0)  # the batch if no memory is kept back
    low, high = math.floor(p.max_batch * (1 - EXACT)), math.ceil(bare.max_batch * (1 + EXACT))
    return KeyNumber(
        "max_batch", "Max batch on one replica: the sequences at full context its KV budget holds", COUNT,
        p.max_batch, low, high,
        f"{p.max_batch} sequences on {_shape(p)}: a KV budget of {fmt.bytes_(s.kv_budget_bytes)} over "
        f"{fmt.bytes_(p.kv_bytes_per_seq)} a sequence.",
        f"Accepted: {low} to {high}: the page's {p.max_batch} with its reserve of "
        f"{fmt.bytes_(s.reserve_bytes / s.gpus)} a GPU for activations, up to {bare.max_batch} with none kept "
        f"back, each within {fmt.pct(EXACT)}. The reserve is a placeholder, so leaving it out is no error; "
        f"another replica shape is, and the page's is {_shape(p)}.",
        (f"memory: {show.memory(s)}", f"weights: {show.weights(s)}", f"KV budget: {show.budget(s)}",
         f"max batch: {show.max_batch(s)}"))


def cost_per_day(p: Plan, a: Answer) -> KeyNumber | None:
    """None where the page has no price."""
    if p.cost_per_day is None:
        return None
    cost = a.cost_per_day if a.feasible else p.cost_per_day
    gpus, words = _fleet(p, a)
    low, high, band = _choices_band([cost, p.cost_per_day], lambda x: f"{fmt.usd(x)} a day")
    return KeyNumber(
        "cost_per_day", "Cost a day of the fleet held at its peak size", USD, cost, low, high,
        f"{fmt.usd(cost)} a day: {words} at {fmt.usd(p.price_per_gpu_hour)} per GPU-hour; the napkin's "
        f"{fmt.count(p.gpus)} GPUs cost {fmt.usd(p.cost_per_day)}.", band,
        (*_steps(p, ("cost",)),
         f"the answer: {fmt.count(gpus)} × {fmt.usd(p.price_per_gpu_hour)} × 24 = {fmt.usd(cost)} a day"))


def key_numbers(p: Plan, a: Answer) -> list[dict[str, Any]]:
    """The numbers the round asks for, in the order a design derives them, as JSON."""
    cost = cost_per_day(p, a)
    found = [kv_per_seq(p), max_batch(p), time_to_first_token(p, a), fleet_gpus(p, a), *([cost] if cost else [])]
    return [n.as_json() for n in found]
