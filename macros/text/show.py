"""Derivations as text: each function prints a formula with its values substituted and its
result ("2 × 80 × 8 × 128 × 2 B = 327,680 B"), so a reader can check the arithmetic. The
calculator's report and the pages' show_* macros both use these, so they cannot disagree.
"""

from __future__ import annotations

from ..engine import formulas as f
from ..engine.model.measurements import Comparison, flops_per_output_token
from ..engine.model.scenario import (
    DEFAULT_DTYPE,
    Scenario,
    dtype_bytes,
    get_model,
    kv_bytes_per_token,
    params_read_per_step,
)
from ..engine.specs import Gpu, Model
from . import fmt


def _w(dtype: str) -> str:
    return f"{fmt.num(dtype_bytes(dtype))} B"


def memory(s: Scenario) -> str:
    return f"{s.gpus} × {fmt.bytes_(s.gpu_spec.memory_bytes)} = {fmt.bytes_(s.memory_bytes)}"


def weights(s: Scenario) -> str:
    return f"{fmt.params(s.params)} × {_w(s.weights_dtype)} = {fmt.bytes_(s.weight_bytes)}"


def reserve(s: Scenario) -> str:
    return f"{s.gpus} × {fmt.bytes_(s.reserve_bytes / s.gpus)} = {fmt.bytes_(s.reserve_bytes)}"


def weights_held(s: Scenario) -> str:
    """Under dp-attention every rank holds the attention weights: N w + (g − 1) N_attn w."""
    attention = (s.weight_bytes_held - s.weight_bytes) / (s.gpus - 1) if s.gpus > 1 else 0
    return (f"{fmt.bytes_(s.weight_bytes)} + {s.gpus - 1} × {fmt.bytes_(attention)} attention = "
            f"{fmt.bytes_(s.weight_bytes_held)}")


def budget(s: Scenario) -> str:
    return (f"{fmt.bytes_(s.memory_bytes)} − {fmt.bytes_(s.weight_bytes_held)} − {fmt.bytes_(s.reserve_bytes)}"
            f" = {fmt.bytes_(s.kv_budget_bytes)}")


def kv_per_token(model: Model, kv_dtype: str = DEFAULT_DTYPE) -> str:
    """The KV-per-token formula for this model's attention, substituted."""
    total = fmt.bytes_exact(kv_bytes_per_token(model, kv_dtype))
    if model.is_mla:
        return f"{model.layers} × ({model.kv_lora_rank} + {model.qk_rope_head_dim}) × {_w(kv_dtype)} = {total}"
    return f"2 × {model.layers} × {model.kv_heads} × {model.head_dim} × {_w(kv_dtype)} = {total}"


def kv_per_seq(s: Scenario) -> str:
    m = s.model_spec
    if not m.sliding_window_layers or s.seq_len <= m.sliding_window:
        return f"{fmt.count(s.kv_bytes_per_token)} B × {fmt.count(s.seq_len)} = {fmt.bytes_(s.kv_bytes_per_seq)}"
    per_layer = s.kv_bytes_per_token / m.layers
    full = m.layers - m.sliding_window_layers
    return (f"{fmt.count(per_layer)} B per layer × ({full} × {fmt.count(s.seq_len)} + "
            f"{m.sliding_window_layers} × {fmt.count(m.sliding_window)}) = {fmt.bytes_(s.kv_bytes_per_seq)}")


def kv_copies(s: Scenario) -> str:
    """Why the replica holds c copies of each sequence's KV cache."""
    m = s.model_spec
    if s.layout == "dp-attention":
        return "1: data-parallel attention keeps each sequence on one rank"
    if m.is_mla:
        return f"{fmt.num(s.kv_copies)}: every one of the {s.gpus} ranks holds the whole MLA latent"
    if s.kv_copies > 1:
        return (f"{s.gpus} / {m.kv_heads} = {fmt.num(s.kv_copies)}: a rank holds whole KV heads, so past "
                f"{m.kv_heads} ranks the heads are replicated")
    return f"1: {m.kv_heads} KV heads split over {s.gpus} rank{'s' if s.gpus > 1 else ''}"


def max_batch(s: Scenario) -> str:
    if s.layout == "dp-attention":
        return (f"{s.gpus} × ⌊{fmt.bytes_(s.kv_budget_bytes / s.gpus)} / {fmt.bytes_(s.kv_bytes_per_seq)}⌋"
                f" = {s.max_batch}")
    if s.kv_copies != 1:
        return (f"⌊{fmt.bytes_(s.kv_budget_bytes)} / ({fmt.num(s.kv_copies)} × {fmt.bytes_(s.kv_bytes_per_seq)})⌋"
                f" = {s.max_batch}")
    return f"⌊{fmt.bytes_(s.kv_budget_bytes)} / {fmt.bytes_(s.kv_bytes_per_seq)}⌋ = {s.max_batch}"


def decode_bytes(s: Scenario) -> str:
    read = "weights" if not s.model_spec.is_moe else "weights read"
    copies = f"{fmt.num(s.kv_copies)} × " if s.kv_copies != 1 else ""
    return (f"{fmt.bytes_(s.weight_bytes_read)} {read} + {s.batch} × {copies}{fmt.bytes_(s.kv_bytes_per_seq)} KV"
            f" = {fmt.bytes_(s.decode_bytes)}")


def decode_flops(s: Scenario) -> str:
    """b × (2 N_a + attention over the cached tokens)."""
    attention = s.decode_attention_flops / s.batch
    return (f"{s.batch} × (2 × {fmt.params(s.active_params)} + {fmt.flops(attention, 3)} attention)"
            f" = {fmt.flops(s.decode_flops, 3)}")


def planned_step(s: Scenario) -> str:
    return f"{fmt.ms(s.decode_step_s)} / {fmt.pct(s.efficiency)} = {fmt.ms(s.planned_step_s)}"


def estimated_step(s: Scenario) -> str:
    """The fitted step model's figure and its band, or why there is none."""
    if s.estimated_step_s is None:
        return f"none: {s.estimate_unavailable}"
    return (f"{fmt.ms(s.estimated_step_s)} ({fmt.ms(s.estimated_step_low_s)} to {fmt.ms(s.estimated_step_high_s)}), "
            f"{s.engine} fitted to measured runs; the band is the cross-validated error on {s.estimate_band_from}")


def estimated_rates(s: Scenario) -> str:
    return (f"{fmt.tokens_per_s(s.estimated_tokens_per_s_per_user)} per user, "
            f"{fmt.tokens_per_s(s.estimated_output_tokens_per_s_per_gpu)} per GPU")


def tp_allreduce(s: Scenario) -> str:
    if s.tp_allreduce_s is None:
        return "not modelled for dp-attention (its expert all-to-alls are not priced)"
    if s.gpus == 1:
        return "none on one GPU"
    return (f"2 × {s.model_spec.layers} all-reduces of {s.batch} × {fmt.count(s.model_spec.hidden_size)} × 2 B, "
            f"ring over {fmt.bandwidth(s.gpu_spec.interconnect_bytes_per_s)} per direction (one NVLink domain assumed)"
            f" = {fmt.ms(s.tp_allreduce_s)}"
            f" ({fmt.pct(s.tp_allreduce_s / s.decode_step_s)} of the floor)")


def memory_time(s: Scenario) -> str:
    t = f.memory_time_s(s.decode_bytes, s.gpus, s.gpu_bandwidth_bytes_per_s)
    return f"{fmt.bytes_(s.decode_bytes)} / ({s.gpus} × {fmt.bandwidth(s.gpu_bandwidth_bytes_per_s)}) = {fmt.ms(t)}"


def compute_time(s: Scenario) -> str:
    t = f.compute_time_s(s.decode_flops, s.gpus, s.gpu_peak_flops)
    return f"{fmt.flops(s.decode_flops, 3)} / ({s.gpus} × {fmt.flops_rate(s.gpu_peak_flops)}) = {fmt.ms(t)}"


def machine_balance(gpu: Gpu, peak_flops: float | None = None) -> str:
    peak = gpu.bf16_flops if peak_flops is None else peak_flops
    balance = f.machine_balance(peak, gpu.bandwidth_bytes_per_s)
    return f"{fmt.flops_rate(peak)} / {fmt.bandwidth(gpu.bandwidth_bytes_per_s)} = {fmt.num(balance)} FLOP/B"


def intensity(s: Scenario) -> str:
    return (f"{fmt.flops(s.decode_flops, 3)} / {fmt.bytes_(s.decode_bytes)} = "
            f"{fmt.num(s.decode_intensity)} FLOP/B")


def prefill_compute(s: Scenario) -> str:
    attention = s.prefill_flops - 2 * s.active_params * s.seq_len
    return (f"(2 × {fmt.params(s.active_params)} × {fmt.count(s.seq_len)} + {fmt.flops(attention, 3)} attention)"
            f" / ({s.gpus} × {fmt.flops_rate(s.gpu_peak_flops)}) = {fmt.seconds(s.prefill_compute_s)}")


def prefill_memory(s: Scenario) -> str:
    return (f"{fmt.bytes_(s.weight_bytes)} / ({s.gpus} × {fmt.bandwidth(s.gpu_bandwidth_bytes_per_s)})"
            f" = {fmt.seconds(s.prefill_memory_s)}")


def throughput(s: Scenario) -> str:
    return f"{s.batch} / {fmt.ms(s.decode_step_s)} = {fmt.tokens_per_s(s.decode_tokens_per_s)}"


def per_user(s: Scenario) -> str:
    return f"1 / {fmt.ms(s.decode_step_s)} = {fmt.tokens_per_s(s.decode_tokens_per_s_per_user)}"


def cost(s: Scenario) -> str:
    hourly = s.price_per_gpu_hour * s.gpus
    return (f"{fmt.usd(hourly)}/h / 3,600 / ({fmt.num(s.decode_tokens_per_s)} tokens/s × "
            f"{fmt.pct(s.efficiency)}) × 10⁶ = {fmt.usd(s.cost_per_million_tokens)} per million tokens")


def moe_read(model: Model, batch: int, weights_dtype: str = DEFAULT_DTYPE) -> str:
    """Weights a decode step of `batch` tokens reads from a mixture of experts."""
    read = params_read_per_step(model, batch)
    touched = f.experts_touched(model.experts, model.experts_per_token, batch)
    return (f"{fmt.num(touched)} of {model.experts} experts touched at batch {batch}: "
            f"{fmt.params(read)} parameters × {_w(weights_dtype)} = {fmt.bytes_(read * dtype_bytes(weights_dtype))}")


def floor_how(c: Comparison) -> str:
    """In words, what the floor set beside a measurement is (see engine/model/measurements.py)."""
    m = c.measurement
    if c.what == "ceiling":
        active = get_model(m.model).active
        if m.input_tokens is None:  # no lengths published: decode FLOPs only, prefill left out
            return (f"compute ceiling: {m.gpus} × {fmt.flops_rate(c.peak_flops)} / (2 × {fmt.params(active)} FLOP "
                    "per token; prefill left out)")
        return (f"compute ceiling: {m.gpus} × {fmt.flops_rate(c.peak_flops)} / "
                f"{fmt.flops(flops_per_output_token(m))} per output token (its request's prefill and attention "
                f"included)")
    if c.what == "prefill":
        return f"prefill of one {fmt.count(m.input_tokens)}-token prompt"
    if c.kind == "does not fit":
        return (f"{m.batch} sequences of {fmt.count(m.mean_context)} tokens do not fit; "
                f"the KV budget holds {c.max_batch}")
    step = f"decode step at batch {m.batch}, {fmt.count(m.mean_context)} tokens of context"
    if c.what == "step":
        return step
    return f"prefill of {m.batch} × {fmt.count(m.input_tokens)} tokens, then {fmt.count(m.output_tokens)} × {step}"
