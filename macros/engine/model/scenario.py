"""A serving scenario: one model on one replica of g GPUs, every figure of the memory budget, the
decode floor and the planned step. The calculator's --json and the pages' `scenario(...)` are this
object; the arithmetic itself is in formulas/, placement in placement.py.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import formulas as f
from .. import rules
from ..lookup import DEFAULT_DTYPE, InputError, compute_dtype, dtype_bytes, get_gpu, get_model, lookup, peak_flops  # noqa: F401
from ..memo import memoized
from ..serving.estimate import DEFAULT_ENGINE, decode_estimate
from ..specs import Gpu, Model, catalog
from ..workloads import workloads
from .geometry import (  # noqa: F401
    decode_attention_flops_per_seq,
    kv_bytes_per_token,
    mha_kv_bytes_per_token,
    model_kv_bytes_per_seq,
    model_weight_bytes,
    params_read_per_step,
    prefill_attention_flops,
    weight_bytes_read,
)
from .placement import DEFAULT_LAYOUT, LAYOUTS, MAX_AUTO_GPUS, choose_gpus, place  # noqa: F401

DEFAULT_SEQ_LEN = 4096
DEFAULT_RESERVE_BYTES = 4e9  # per GPU, for activations and overhead: a placeholder, not a measurement
DEFAULT_EFFICIENCY = 0.4  # realised fraction of the floor's throughput
ALLREDUCE_LATENCY_CLAIM = "allreduce-latency"  # claims.toml: the fixed cost of one small all-reduce
CLAIMS = (ALLREDUCE_LATENCY_CLAIM,)  # the claims the engine reads: part of every drawing's cache key

JSON_KEYS = (
    "model", "gpu", "gpus", "layout", "seq_len", "batch", "weights_dtype", "kv_dtype", "params",
    "active_params", "weight_bytes", "kv_bytes_per_token", "kv_bytes_per_seq", "kv_copies",
    "kv_bytes_per_seq_group", "memory_bytes", "reserve_bytes", "kv_budget_bytes", "fits", "max_batch",
    "gpu_bandwidth_bytes_per_s", "gpu_peak_flops", "machine_balance", "decode_bytes", "decode_flops",
    "decode_attention_flops", "decode_intensity", "bound", "decode_step_s", "planned_step_s",
    "decode_tokens_per_s", "decode_tokens_per_s_per_user", "planned_tokens_per_s", "tp_allreduce_s",
    "prefill_s", "price_per_gpu_hour", "efficiency", "cost_per_million_tokens",
    "engine", "estimated_step_s", "estimated_step_low_s", "estimated_step_high_s",
    "estimated_tokens_per_s_per_user", "estimated_output_tokens_per_s_per_gpu", "estimate_band_from",
    "estimate_unavailable",
)
_DECODE_KEYS = ("decode_bytes", "decode_flops", "decode_attention_flops", "decode_intensity", "bound",
                "decode_step_s", "planned_step_s", "decode_tokens_per_s", "decode_tokens_per_s_per_user",
                "planned_tokens_per_s", "tp_allreduce_s", "prefill_s", "cost_per_million_tokens")


def _estimated(key: str) -> property:
    """One figure of Scenario.estimate, None where it has none."""
    return property(lambda self: self.estimate.get(key))


@dataclass(frozen=True)
class Scenario:
    model_spec: Model
    gpu_spec: Gpu
    gpus_chosen: bool  # True when the GPU count was picked, not given
    batch_given: bool  # False when the batch is the max batch
    price_source: str | None
    weight_bytes_held: float  # across the replica: more than weight_bytes under dp-attention
    model: str
    gpu: str
    gpus: int
    layout: str
    seq_len: int
    batch: int
    weights_dtype: str
    kv_dtype: str
    params: float
    active_params: float
    weight_bytes: float  # one copy of every weight, N * w
    kv_bytes_per_token: float
    kv_bytes_per_seq: float  # one copy
    kv_copies: float
    kv_bytes_per_seq_group: float  # every copy the replica holds
    memory_bytes: float
    reserve_bytes: float
    kv_budget_bytes: float
    fits: bool
    max_batch: int
    gpu_bandwidth_bytes_per_s: float
    gpu_peak_flops: float
    machine_balance: float
    efficiency: float
    price_per_gpu_hour: float | None
    decode_bytes: float | None = None
    decode_flops: float | None = None  # weights and attention
    decode_attention_flops: float | None = None
    decode_intensity: float | None = None
    bound: str | None = None
    decode_step_s: float | None = None  # the floor
    planned_step_s: float | None = None  # floor / efficiency
    decode_tokens_per_s: float | None = None
    decode_tokens_per_s_per_user: float | None = None
    planned_tokens_per_s: float | None = None
    tp_allreduce_s: float | None = None  # beside the floor, not in it; None where not modelled
    prefill_s: float | None = None
    cost_per_million_tokens: float | None = None
    engine: str = DEFAULT_ENGINE  # whose fitted step model the estimate below is

    # The fitted step model's decode step for the same batch and context (serving/estimate.py): what the
    # engine was measured to do, with the band of its cross-validated error; None where it cannot say.
    # Worked out when first asked for: most pages' scenarios never need it.
    @functools.cached_property
    def estimate(self) -> dict[str, Any]:
        if not self.fits:
            return {"estimate_unavailable": "the batch does not fit"}
        return _estimate(self.model_spec, self.gpu_spec, self.gpus, self.layout, self.weights_dtype, self.kv_dtype,
                         self.batch, self.seq_len, self.engine)

    estimated_step_s = _estimated("estimated_step_s")
    estimated_step_low_s = _estimated("estimated_step_low_s")
    estimated_step_high_s = _estimated("estimated_step_high_s")
    estimated_tokens_per_s_per_user = _estimated("estimated_tokens_per_s_per_user")
    estimated_output_tokens_per_s_per_gpu = _estimated("estimated_output_tokens_per_s_per_gpu")
    estimate_band_from = _estimated("estimate_band_from")
    estimate_unavailable = _estimated("estimate_unavailable")  # why there is no estimate

    def as_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in JSON_KEYS}

    @property
    def kv_bytes_total(self) -> float:
        """Every sequence's KV cache, every copy: what the decode step reads besides the weights."""
        return self.batch * self.kv_bytes_per_seq_group

    @property
    def weight_bytes_read(self) -> float | None:
        """Weights one decode step reads (less than weight_bytes for MoE at small batch)."""
        return None if self.decode_bytes is None else self.decode_bytes - self.kv_bytes_total

    @property
    def prefill_flops(self) -> float:
        """Prefilling one seq_len-token prompt: 2 * N_a * s plus causal attention."""
        return f.prefill_flops(self.active_params, self.seq_len, prefill_attention_flops(self.model_spec, self.seq_len))

    @property
    def prefill_compute_s(self) -> float:
        """The compute term of prefilling one seq_len-token prompt on the replica."""
        return f.compute_time_s(self.prefill_flops, self.gpus, self.gpu_peak_flops)

    @property
    def prefill_memory_s(self) -> float:
        """The memory term of that prefill: every weight read once."""
        return f.memory_time_s(self.weight_bytes, self.gpus, self.gpu_bandwidth_bytes_per_s)

    @property
    def prefill_bound(self) -> str:
        return "compute" if self.prefill_compute_s >= self.prefill_memory_s else "memory"


def _arg(field: str, value: Any) -> Any:
    """One of scenario()'s arguments, checked against data/rules.toml's `scenario` set."""
    try:
        return rules.check_value(rules.rule_of("scenario", field), value, field)
    except rules.RuleError as exc:
        raise InputError(str(exc)) from None


def _entry(entry: Model | Gpu, kind: str, known: Mapping[str, Any]) -> None:
    """A model or GPU handed in as an object (a custom one, or one read from a config.json) passes
    the rules a data file's entry passes; the catalog's own entries passed them when loaded."""
    if known.get(entry.key) is entry:
        return
    try:
        rules.check_object(kind, dataclasses.asdict(entry), rules.lists(catalog().precisions))
    except rules.RuleError as exc:
        raise InputError(f"{entry.name}: {exc}") from None


def _price(gpu: str, price: float | None) -> tuple[float | None, str | None]:
    if price is not None:
        return float(_arg("price", price)), "given with --price"
    quote = catalog().prices.get(gpu)
    if quote is None:
        return None, None
    return quote.typical, f"typical price as of {quote.as_of}, unverified; --price overrides"


def allreduce_s(model: Model, gpu: Gpu, gpus: int, tokens: int, layout: str) -> float | None:
    """TP's two all-reduces per layer for `tokens` tokens; None under dp-attention, whose expert
    all-to-alls this model does not price."""
    if layout != "tp" or model.hidden_size is None:
        return None
    latency = catalog().claims[ALLREDUCE_LATENCY_CLAIM].low
    return f.tp_allreduce_s(model.layers, gpus, tokens, model.hidden_size, gpu.interconnect_bytes_per_s, latency)


def prefill_floor_s(m: Model, g: Gpu, gpus: int, weights: str, tokens: float, cached_tokens: float = 0) -> float:
    """The floor of prefilling `tokens` new prompt tokens that follow `cached_tokens` already in the
    cache (a prefix hit): 2 N_a per new token, plus their causal attention, which still reaches back
    over the cached prefix; against one read of every weight."""
    attention = (prefill_attention_flops(m, cached_tokens + tokens) - prefill_attention_flops(m, cached_tokens))
    return f.prefill_time_s(m.active, tokens, model_weight_bytes(m, weights), gpus, peak_flops(g, weights),
                            g.bandwidth_bytes_per_s, attention)


def _decode(m: Model, g: Gpu, gpus: int, b: int, seq_len: int, weights: str, kv_seq_group: float,
            attention_weight_bytes: float | None, peak: float, balance: float, efficiency: float,
            price: float | None, layout: str) -> dict[str, Any]:
    """The decode step's figures at batch b, every sequence at full context (the worst case)."""
    weights_read = weight_bytes_read(m, b, weights)
    if attention_weight_bytes is not None:  # each rank reads its own copy of the attention weights
        weights_read += (gpus - 1) * attention_weight_bytes
    moved = f.decode_step_bytes(weights_read, b, kv_seq_group)
    attention_per_seq = decode_attention_flops_per_seq(m, seq_len)
    attention = b * attention_per_seq
    flops = f.decode_step_flops(m.active, b, attention_per_seq)
    step = f.step_floor_s(moved, flops, gpus, g.bandwidth_bytes_per_s, peak)
    planned = f.planned_time_s(step, efficiency)
    rate = f.tokens_per_s(b, step)
    prefill = prefill_floor_s(m, g, gpus, weights, seq_len)
    return dict(
        decode_bytes=moved, decode_flops=flops, decode_attention_flops=attention,
        decode_intensity=f.intensity(flops, moved),
        bound="memory" if f.is_memory_bound(flops, moved, balance) else "compute",
        decode_step_s=step, planned_step_s=planned, decode_tokens_per_s=rate, decode_tokens_per_s_per_user=1 / step,
        planned_tokens_per_s=f.tokens_per_s(b, planned), tp_allreduce_s=allreduce_s(m, g, gpus, b, layout),
        prefill_s=prefill,
        cost_per_million_tokens=None if price is None else f.cost_per_million_tokens(price, gpus, rate, efficiency),
    )


@memoized
def scenario(
    model: str | Model,
    gpu: str | Gpu,
    gpus: int | None = None,
    seq_len: int = DEFAULT_SEQ_LEN,
    batch: int | None = None,
    weights: str | None = None,
    kv: str = DEFAULT_DTYPE,
    reserve_bytes: float = DEFAULT_RESERVE_BYTES,
    price: float | None = None,
    efficiency: float = DEFAULT_EFFICIENCY,
    layout: str = DEFAULT_LAYOUT,
    engine: str = DEFAULT_ENGINE,
) -> Scenario:
    """Every figure for `model` (a key of models.toml, or a Model, e.g. read from a config.json) on
    `gpus` x `gpu` (a key of gpus.toml, or a Gpu: a custom spec) at `seq_len` tokens per sequence.

    gpus=None picks the smallest power of two that holds the weights, the reserve and
    max(1, batch) sequences; batch=None uses the max batch; weights=None the checkpoint's own format
    (models.toml's native_weights: FP8 for DeepSeek-V3, MXFP4 for GPT-OSS, BF16 for Llama).
    """
    m = model if isinstance(model, Model) else get_model(_arg("model", model))
    g = gpu if isinstance(gpu, Gpu) else get_gpu(_arg("gpu", gpu))
    _entry(m, "model", catalog().models)
    _entry(g, "gpu", catalog().gpus)
    model, gpu = m.key, g.key
    weights = m.native_weights if weights is None else _arg("weights", weights)
    seq_len = _arg("seq_len", seq_len)
    if seq_len > m.max_context:
        raise InputError(f"{m.name} supports at most {m.max_context:,} tokens of context, got {seq_len:,}")
    if batch is not None:
        batch = _arg("batch", batch)
    reserve_bytes = _arg("reserve_bytes", reserve_bytes)
    efficiency = float(_arg("efficiency", efficiency))
    layout = _arg("layout", layout)
    dtype_bytes(weights)  # an unknown format fails here, naming the valid ones
    dtype_bytes(_arg("kv", kv))
    peak = peak_flops(g, weights)
    price, price_source = _price(gpu, price)

    chosen = gpus is None
    gpus = choose_gpus(m, g, seq_len, batch or 1, weights, kv, reserve_bytes, layout) if chosen else _arg("gpus", gpus)
    where = place(m, g, gpus, seq_len, weights, kv, reserve_bytes, layout)
    kv_seq = model_kv_bytes_per_seq(m, seq_len, kv)
    most = where.max_batch
    fits = most >= 1
    if batch is not None and fits and batch > most:
        need = choose_gpus(m, g, seq_len, batch, weights, kv, reserve_bytes, layout)
        raise InputError(f"batch {batch} does not fit: {gpus} x {g.name} hold at most {most} sequences of "
                         f"{seq_len:,} tokens; {need} GPUs would hold them, or use a smaller batch")
    b = (batch or most) if fits else (batch or 0)
    balance = f.machine_balance(peak, g.bandwidth_bytes_per_s)
    decode = dict.fromkeys(_DECODE_KEYS)
    engine = _arg("engine", engine)
    if fits:
        decode = _decode(m, g, gpus, b, seq_len, weights, where.kv_copies * kv_seq, where.attention_weight_bytes, peak,
                         balance, efficiency, price, layout)
    return Scenario(
        model_spec=m, gpu_spec=g, gpus_chosen=chosen, batch_given=batch is not None, price_source=price_source,
        weight_bytes_held=where.weight_bytes_held,
        model=model, gpu=gpu, gpus=gpus, layout=layout, seq_len=seq_len, batch=b, weights_dtype=weights, kv_dtype=kv,
        params=m.params, active_params=m.active, weight_bytes=model_weight_bytes(m, weights),
        kv_bytes_per_token=kv_bytes_per_token(m, kv), kv_bytes_per_seq=kv_seq, kv_copies=where.kv_copies,
        kv_bytes_per_seq_group=where.kv_copies * kv_seq, memory_bytes=gpus * g.memory_bytes,
        reserve_bytes=gpus * reserve_bytes, kv_budget_bytes=where.kv_budget_bytes, fits=fits,
        max_batch=most if fits else 0, gpu_bandwidth_bytes_per_s=g.bandwidth_bytes_per_s, gpu_peak_flops=peak,
        machine_balance=balance, efficiency=efficiency, price_per_gpu_hour=price, **decode, engine=engine,
    )


def _estimate(m: Model, g: Gpu, gpus: int, layout: str, weights: str, kv: str, b: int, seq_len: int,
              engine: str) -> dict[str, Any]:
    """The estimate's figures, or why there are none: a GPU in no family of gpu_families.toml (a custom
    spec, or one the serving model has no parameters for)."""
    if g.key not in catalog().gpus or catalog().gpus[g.key] != g:
        return {"estimate_unavailable": f"{g.name} is a custom GPU: the serving model has no fitted parameters for it"}
    try:
        e = decode_estimate(m, g.key, gpus, layout, weights, kv, b, seq_len, engine)
    except InputError as err:
        return {"estimate_unavailable": str(err)}
    return dict(estimated_step_s=e.step_s, estimated_step_low_s=e.low_s, estimated_step_high_s=e.high_s,
                estimated_tokens_per_s_per_user=1 / e.step_s,
                estimated_output_tokens_per_s_per_gpu=b / e.step_s / gpus, estimate_band_from=e.band_from)


def sensible_gpus(model: str, gpu: str, batch: int | None = None) -> int:
    """The smallest power-of-two group of `gpu` that holds `batch` (default: the worked batch)
    sequences of the default context: the group the reference pages and charts use."""
    m = get_model(model)
    seq = min(DEFAULT_SEQ_LEN, m.max_context)
    return scenario(model, gpu, seq_len=seq, batch=batch or workloads()["batch"]).gpus


def anchor(**overrides: Any) -> Scenario:
    """The chapters' anchor (data/workloads.toml: model, GPU and group size), optionally at another
    batch, context, dtype or group size: anchor(batch=1) is the anchor group serving one sequence."""
    w = workloads()
    return scenario(w["model"], w["gpu"], **{"gpus": w["gpus"], **overrides})
