"""A serving scenario: one model on a tensor-parallel group of GPUs, every figure of the
memory budget and the decode floor. The calculator's --json and the pages' `scenario(...)`
are this object; the arithmetic itself is in formulas.py.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from . import formulas as f
from .specs import Gpu, Model, catalog
from .workloads import workloads

DEFAULT_SEQ_LEN = 4096
DEFAULT_DTYPE = "bf16"
DEFAULT_RESERVE_BYTES = 4e9  # per GPU, for activations and overhead: a placeholder, not a measurement
DEFAULT_EFFICIENCY = 0.4  # realised fraction of the floor's throughput
MAX_AUTO_GPUS = 4096

JSON_KEYS = (
    "model", "gpu", "gpus", "seq_len", "batch", "weights_dtype", "kv_dtype", "params",
    "active_params", "weight_bytes", "kv_bytes_per_token", "kv_bytes_per_seq", "memory_bytes",
    "reserve_bytes", "kv_budget_bytes", "fits", "max_batch", "gpu_bandwidth_bytes_per_s",
    "gpu_peak_flops", "machine_balance", "decode_bytes", "decode_flops", "decode_intensity",
    "bound", "decode_step_s", "decode_tokens_per_s", "decode_tokens_per_s_per_user", "prefill_s",
    "price_per_gpu_hour", "efficiency", "cost_per_million_tokens",
)


class InputError(ValueError):
    """A bad request: unknown key, impossible count, unsupported dtype. One line, no traceback."""


def lookup(kind: str, key: str, table: dict[str, Any]) -> Any:
    if key in table:
        return table[key]
    close = difflib.get_close_matches(key, list(table), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise InputError(f"unknown {kind} {key!r}.{hint} Valid: {', '.join(table)}")


def get_model(key: str) -> Model:
    return lookup("model", key, catalog().models)


def get_gpu(key: str) -> Gpu:
    return lookup("GPU", key, catalog().gpus)


def dtype_bytes(key: str) -> float:
    return lookup("dtype", key, catalog().precisions).bytes


def compute_dtype(gpu: Gpu, weights_dtype: str) -> str:
    """The dtype the matmuls run in: FP8 weights use FP8 compute (an error on a GPU without it);
    everything else runs in BF16 (INT8 and INT4 are weight-only formats)."""
    if weights_dtype == "fp8":
        if not gpu.has_fp8:
            raise InputError(f"{gpu.name} has no FP8 compute: use --weights bf16, int8 or int4")
        return "fp8"
    return "bf16"


def peak_flops(gpu: Gpu, weights_dtype: str) -> float:
    """The compute dtype's dense peak per GPU."""
    return gpu.fp8_flops if compute_dtype(gpu, weights_dtype) == "fp8" else gpu.bf16_flops


# --- model-aware wrappers over formulas.py ------------------------------------------


def kv_bytes_per_token(model: Model, kv_dtype: str = DEFAULT_DTYPE) -> float:
    """KV bytes one token adds across all layers (before any sliding window applies)."""
    k = dtype_bytes(kv_dtype)
    if model.is_mla:
        return f.kv_bytes_per_token_mla(model.layers, model.kv_lora_rank, model.qk_rope_head_dim, k)
    return f.kv_bytes_per_token_gqa(model.layers, model.kv_heads, model.head_dim, k)


def mha_kv_bytes_per_token(model: Model, kv_dtype: str = DEFAULT_DTYPE) -> float:
    """The same model with one KV head per query head: the baseline GQA and MLA save against.
    For MLA the key carries the RoPE dimensions too (d_h + rope for K, d_h for V)."""
    k = dtype_bytes(kv_dtype)
    if model.is_mla:
        return f.kv_bytes_per_token_mla_as_mha(model.layers, model.query_heads, model.head_dim,
                                               model.qk_rope_head_dim, k)
    return f.kv_bytes_per_token_gqa(model.layers, model.query_heads, model.head_dim, k)


def kv_bytes_per_seq(model: Model, seq_len: Any, kv_dtype: str = DEFAULT_DTYPE) -> Any:
    return f.kv_bytes_per_seq(kv_bytes_per_token(model, kv_dtype), model.layers, seq_len,
                              model.sliding_window_layers, model.sliding_window)


def params_read_per_step(model: Model, batch: Any) -> Any:
    """Parameters one decode step reads: all of them for a dense model, u(b) experts for MoE."""
    if not model.is_moe:
        return model.params + 0 * batch
    return f.moe_params_read(model.params, model.active, model.experts, model.experts_per_token, batch)


# --- the scenario --------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    model_spec: Model
    gpu_spec: Gpu
    gpus_chosen: bool  # True when the GPU count was picked, not given
    batch_given: bool  # False when the batch is the max batch
    price_source: str | None
    model: str
    gpu: str
    gpus: int
    seq_len: int
    batch: int
    weights_dtype: str
    kv_dtype: str
    params: float
    active_params: float
    weight_bytes: float
    kv_bytes_per_token: float
    kv_bytes_per_seq: float
    memory_bytes: float
    reserve_bytes: float
    kv_budget_bytes: float
    fits: bool
    max_batch: int
    gpu_bandwidth_bytes_per_s: float
    gpu_peak_flops: float
    machine_balance: float
    decode_bytes: float | None
    decode_flops: float | None
    decode_intensity: float | None
    bound: str | None
    decode_step_s: float | None
    decode_tokens_per_s: float | None
    decode_tokens_per_s_per_user: float | None
    prefill_s: float | None
    price_per_gpu_hour: float | None
    efficiency: float
    cost_per_million_tokens: float | None

    def as_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in JSON_KEYS}

    @property
    def weight_bytes_read(self) -> float | None:
        """Weights one decode step reads (less than weight_bytes for MoE at small batch)."""
        if self.decode_bytes is None:
            return None
        return self.decode_bytes - self.batch * self.kv_bytes_per_seq

    @property
    def kv_bytes_total(self) -> float:
        return self.batch * self.kv_bytes_per_seq

    @property
    def prefill_compute_s(self) -> float:
        """The compute term of prefilling one seq_len-token prompt on the group."""
        return f.compute_time_s(f.prefill_flops(self.active_params, self.seq_len), self.gpus, self.gpu_peak_flops)

    @property
    def prefill_memory_s(self) -> float:
        """The memory term of that prefill: every weight read once."""
        return f.memory_time_s(self.weight_bytes, self.gpus, self.gpu_bandwidth_bytes_per_s)

    @property
    def prefill_bound(self) -> str:
        return "compute" if self.prefill_compute_s >= self.prefill_memory_s else "memory"


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(f"{name} must be a positive whole number, got {value!r}")
    return value


def _positive(name: str, value: Any, upper: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or (upper and value > upper):
        bound = f" and at most {upper:g}" if upper else ""
        raise InputError(f"{name} must be positive{bound}, got {value!r}")
    return float(value)


def choose_gpus(model: Model, gpu: Gpu, seq_len: int, sequences: int, weights: str, kv: str,
                reserve_bytes: float) -> int:
    """The smallest of 1, 2, 4, 8, ... that holds the weights, the reserve and `sequences` sequences."""
    need = sequences * kv_bytes_per_seq(model, seq_len, kv)
    total = f.weight_bytes(model.params, dtype_bytes(weights))
    g = 1
    while f.kv_budget_bytes(g, gpu.memory_bytes, total, reserve_bytes) < need:
        g *= 2
        if g > MAX_AUTO_GPUS:
            raise InputError(f"no group of up to {MAX_AUTO_GPUS} {gpu.name} holds {model.name}: "
                             "is the reserve larger than the GPU's memory?")
    return g


def scenario(
    model: str,
    gpu: str,
    gpus: int | None = None,
    seq_len: int = DEFAULT_SEQ_LEN,
    batch: int | None = None,
    weights: str = DEFAULT_DTYPE,
    kv: str = DEFAULT_DTYPE,
    reserve_bytes: float = DEFAULT_RESERVE_BYTES,
    price: float | None = None,
    efficiency: float = DEFAULT_EFFICIENCY,
) -> Scenario:
    """Every figure for `model` on `gpus` x `gpu` at `seq_len` tokens per sequence.

    gpus=None picks the smallest power of two that holds the weights, the reserve and
    max(1, batch) sequences; batch=None uses the max batch.
    """
    m, g = get_model(model), get_gpu(gpu)
    seq_len = _positive_int("seq-len", seq_len)
    if seq_len > m.max_context:
        raise InputError(f"{m.name} supports at most {m.max_context:,} tokens of context, got {seq_len:,}")
    if batch is not None:
        batch = _positive_int("batch", batch)
    if isinstance(reserve_bytes, bool) or not isinstance(reserve_bytes, (int, float)) or not reserve_bytes >= 0:
        raise InputError(f"reserve must be zero or positive, got {reserve_bytes!r}")
    efficiency = _positive("efficiency", efficiency, upper=1.0)
    w = dtype_bytes(weights)
    peak = peak_flops(g, weights)
    price_source = None
    if price is None and gpu in catalog().prices:
        quote = catalog().prices[gpu]
        price, price_source = quote.typical, f"typical price as of {quote.as_of}, unverified; --price overrides"
    elif price is not None:
        price, price_source = _positive("price", price), "given with --price"

    chosen = gpus is None
    if chosen:
        gpus = choose_gpus(m, g, seq_len, batch or 1, weights, kv, reserve_bytes)
    gpus = _positive_int("gpus", gpus)

    weights_total = f.weight_bytes(m.params, w)
    kv_token = kv_bytes_per_token(m, kv)
    kv_seq = kv_bytes_per_seq(m, seq_len, kv)
    budget = f.kv_budget_bytes(gpus, g.memory_bytes, weights_total, reserve_bytes)
    most = int(f.max_batch(budget, kv_seq))
    fits = most >= 1
    if batch is not None and fits and batch > most:
        need = choose_gpus(m, g, seq_len, batch, weights, kv, reserve_bytes)
        raise InputError(f"batch {batch} does not fit: {gpus} x {g.name} hold at most {most} sequences of "
                         f"{seq_len:,} tokens; use --gpus {need} or a smaller batch")
    b = (batch or most) if fits else (batch or 0)
    balance = f.machine_balance(peak, g.bandwidth_bytes_per_s)

    decode: dict[str, Any] = dict.fromkeys(
        ("decode_bytes", "decode_flops", "decode_intensity", "bound", "decode_step_s", "decode_tokens_per_s",
         "decode_tokens_per_s_per_user", "prefill_s", "cost_per_million_tokens"))
    if fits:
        moved = f.decode_step_bytes(params_read_per_step(m, b) * w, b, kv_seq)
        flops = f.decode_step_flops(m.active, b)
        step = f.step_time_s(moved, flops, gpus, g.bandwidth_bytes_per_s, peak)
        rate = f.tokens_per_s(b, step)
        decode.update(
            decode_bytes=moved, decode_flops=flops, decode_intensity=f.intensity(flops, moved),
            bound="memory" if f.is_memory_bound(flops, moved, balance) else "compute",
            decode_step_s=step, decode_tokens_per_s=rate, decode_tokens_per_s_per_user=1 / step,
            prefill_s=f.prefill_time_s(m.active, seq_len, weights_total, gpus, peak, g.bandwidth_bytes_per_s),
            cost_per_million_tokens=(None if price is None
                                     else f.cost_per_million_tokens(price, gpus, rate, efficiency)),
        )
    return Scenario(
        model_spec=m, gpu_spec=g, gpus_chosen=chosen, batch_given=batch is not None, price_source=price_source,
        model=model, gpu=gpu, gpus=gpus, seq_len=seq_len, batch=b, weights_dtype=weights, kv_dtype=kv,
        params=m.params, active_params=m.active, weight_bytes=weights_total, kv_bytes_per_token=kv_token,
        kv_bytes_per_seq=kv_seq, memory_bytes=gpus * g.memory_bytes, reserve_bytes=gpus * reserve_bytes,
        kv_budget_bytes=budget, fits=fits, max_batch=most if fits else 0,
        gpu_bandwidth_bytes_per_s=g.bandwidth_bytes_per_s, gpu_peak_flops=peak, machine_balance=balance,
        price_per_gpu_hour=price, efficiency=efficiency, **decode,
    )


def sensible_gpus(model: str, gpu: str, batch: int | None = None) -> int:
    """The smallest power-of-two group of `gpu` that holds `batch` (default: the worked batch)
    sequences of the default context: the group the reference pages and charts use."""
    m = get_model(model)
    seq = min(DEFAULT_SEQ_LEN, m.max_context)
    return scenario(model, gpu, seq_len=seq, batch=batch or workloads()["batch"]).gpus
