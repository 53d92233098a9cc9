"""Published measurements (data/measurements.toml) set beside the roofline floor for the same
configuration: the reality-check page and the calculator's efficiency default rest on these.

Each measurement names its model, GPUs, dtypes, batch and sequence lengths, and the floor is
computed for exactly that with the scenario and formulas every other page uses. The ratio
measured ÷ floor (in time) says how far a real system runs above the model; its inverse is the
realised efficiency η the calculator's cost figure assumes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .. import formulas as f
from ..specs import DATA_DIR, catalog, load_table
from . import scenario as scen
from .geometry import request_flops

# metric -> (what it is, whether it is a time: False means a rate in output tokens/s)
METRICS: dict[str, tuple[str, bool]] = {
    "itl": ("inter-token latency", True),
    "ttft": ("time to first token", True),
    "e2e": ("end-to-end latency", True),
    "tokens_per_s": ("throughput", False),
    "tokens_per_s_per_gpu": ("throughput", False),
}


@dataclass(frozen=True)
class Measurement:
    key: str
    what: str
    system: str
    model: str  # a key in models.toml with the measured model's geometry
    gpu: str
    gpus: int
    weights: str
    kv: str
    metric: str
    value: float  # SI: seconds, or output tokens/s
    source: str
    date: str  # the source's own date, as precise as it is known
    checked: str
    batch: int | None = None  # batch or concurrency; None when not published
    input_tokens: int | None = None
    output_tokens: int | None = None
    assumes: str = ""
    note: str = ""

    @property
    def is_time(self) -> bool:
        return METRICS[self.metric][1]

    @property
    def measured(self) -> float:
        """Seconds, or output tokens/s for the whole group (per-GPU figures multiplied out)."""
        return self.value * self.gpus if self.metric == "tokens_per_s_per_gpu" else self.value

    @property
    def mean_context(self) -> int:
        """Tokens of context over the output on average: the prompt plus half the output."""
        return self.input_tokens + self.output_tokens // 2


def _check(m: Measurement, fail) -> None:
    cat = catalog()
    for name, table in (("model", cat.models), ("gpu", cat.gpus), ("weights", cat.precisions),
                        ("kv", cat.precisions)):
        if getattr(m, name) not in table:
            fail(name, f"{getattr(m, name)!r} is not a key of {name if name != 'kv' else 'weights'} data "
                       f"(known: {', '.join(table)})")
    if m.metric not in METRICS:
        fail("metric", f"{m.metric!r} is not one of {', '.join(METRICS)}")
    lengths = (m.batch, m.input_tokens, m.output_tokens)
    if m.is_time and None in lengths:
        fail("batch", "a latency needs batch, input_tokens and output_tokens for its floor")
    if not m.is_time and (m.input_tokens is None) != (m.output_tokens is None):
        fail("input_tokens", "give input_tokens and output_tokens together, or neither")
    if not m.is_time and m.batch is not None and m.input_tokens is None:
        fail("batch", "a batch needs input_tokens and output_tokens for its floor")


def load_measurements(path: Path) -> dict[str, Measurement]:
    """Load and validate a measurements file."""
    return load_table(path, Measurement, _check, "measurement")


@functools.lru_cache(maxsize=1)
def measurements() -> dict[str, Measurement]:
    """The project's measurements, loaded once per process."""
    return load_measurements(DATA_DIR / "measurements.toml")


@dataclass(frozen=True)
class Comparison:
    """One measurement beside its floor. `modelled` is in the measurement's own unit; the words
    for how the floor was computed are macros/text/show.py's floor_how()."""

    measurement: Measurement
    kind: str  # "floor", "ceiling" (compute only: batch and lengths unknown) or "does not fit"
    modelled: float | None
    what: str  # which floor: "ceiling", "prefill", "step" (one decode step) or "run" (prefill, then decode)
    peak_flops: float  # the compute dtype's dense peak per GPU
    bound: str | None = None  # "memory" or "compute" for the step that sets the floor
    max_batch: int | None = None  # when the batch does not fit

    @property
    def time_ratio(self) -> float | None:
        """Measured time ÷ floor time: how many times slower than the model the system ran."""
        if self.modelled is None:
            return None
        m = self.measurement
        return m.measured / self.modelled if m.is_time else self.modelled / m.measured

    @property
    def efficiency(self) -> float | None:
        """η: the fraction of the floor's throughput (or speed) the system realised."""
        return None if self.time_ratio is None else 1 / self.time_ratio


def _bound(s: scen.Scenario) -> str:
    return s.bound or "memory"


def compare(m: Measurement) -> Comparison:
    peak = scen.peak_flops(scen.get_gpu(m.gpu), m.weights)
    if m.batch is None:  # throughput without a published batch: only the compute ceiling holds
        return Comparison(m, "ceiling", ceiling_tokens_per_s(m, peak), "ceiling", peak, bound="compute")
    if m.metric == "ttft":
        s = scen.scenario(m.model, m.gpu, gpus=m.gpus, seq_len=m.input_tokens, batch=1, weights=m.weights, kv=m.kv)
        return Comparison(m, "floor", s.prefill_s, "prefill", peak, s.prefill_bound)
    try:
        s = scen.scenario(m.model, m.gpu, gpus=m.gpus, seq_len=m.mean_context, batch=m.batch,
                          weights=m.weights, kv=m.kv)
    except scen.InputError:  # more sequences than the KV budget holds: the rest must queue
        most = scen.scenario(m.model, m.gpu, gpus=m.gpus, seq_len=m.mean_context, weights=m.weights,
                             kv=m.kv).max_batch
        return Comparison(m, "does not fit", None, "step", peak, max_batch=most)
    if m.metric == "itl":
        return Comparison(m, "floor", s.decode_step_s, "step", peak, _bound(s))
    prefill, step_s = _run(s, m.input_tokens)
    if m.metric == "e2e":
        return Comparison(m, "floor", prefill + m.output_tokens * step_s, "run", peak, _bound(s))
    return Comparison(m, "floor", f.run_tokens_per_s(m.batch, m.output_tokens, prefill, step_s), "run", peak,
                      _bound(s))


def flops_per_output_token(m: Measurement) -> float:
    """FLOPs each output token costs: 2 * N_a alone without lengths; with them, its request's
    prefill and attention shared over the request's output tokens."""
    model = scen.get_model(m.model)
    if m.input_tokens is None:
        return f.decode_step_flops(model.active, 1)
    return request_flops(model, m.input_tokens + m.output_tokens) / m.output_tokens


def ceiling_tokens_per_s(m: Measurement, peak: float) -> float:
    """The compute ceiling for a throughput measurement: prefill included when the lengths are known."""
    model = scen.get_model(m.model)
    if m.input_tokens is None:
        return f.compute_ceiling_tokens_per_s(model.active, m.gpus, peak)
    return f.compute_ceiling_run_tokens_per_s(request_flops(model, m.input_tokens + m.output_tokens),
                                              m.output_tokens, m.gpus, peak)


def _run(s: scen.Scenario, input_tokens: int) -> tuple[float, float]:
    """(prefill of the whole batch, decode step) for scenario `s` at the mean context: every prompt
    of the batch prefills together, then each request decodes its output one step per token."""
    prefill = f.prefill_time_s(s.active_params, s.batch * input_tokens, s.weight_bytes, s.gpus, s.gpu_peak_flops,
                               s.gpu_bandwidth_bytes_per_s)
    return prefill, s.decode_step_s


def run_max_batch(model: str, gpu: str, gpus: int, input_tokens: int, output_tokens: int,
                  weights: str = scen.DEFAULT_DTYPE, kv: str = scen.DEFAULT_DTYPE) -> int:
    """The most sequences run_floor's configuration holds at its mean context (0: not even the weights
    and one sequence fit)."""
    return scen.scenario(model, gpu, gpus=gpus, seq_len=input_tokens + output_tokens // 2, weights=weights,
                         kv=kv).max_batch


def run_floor(model: str, gpu: str, gpus: int, batch: int, input_tokens: int, output_tokens: int,
              weights: str = scen.DEFAULT_DTYPE, kv: str = scen.DEFAULT_DTYPE) -> float:
    """The floor's output tokens/s for a batch that prefills together and then decodes: the same
    computation the throughput comparisons use, for a configuration no measurement names. A batch
    over run_max_batch() is an InputError: there is no floor for a run that does not fit."""
    most = run_max_batch(model, gpu, gpus, input_tokens, output_tokens, weights, kv)
    if batch > most:
        raise scen.InputError(f"{model} on {gpus} × {gpu}: a batch of {batch} does not fit (at most {most} sequences "
                              f"of {input_tokens + output_tokens // 2:,} tokens with {weights} weights and {kv} KV)")
    s = scen.scenario(model, gpu, gpus=gpus, seq_len=input_tokens + output_tokens // 2, batch=batch,
                      weights=weights, kv=kv)
    prefill, step = _run(s, input_tokens)
    return f.run_tokens_per_s(batch, output_tokens, prefill, step)


def full_context_max_batch(m: Measurement, kv: str) -> int:
    """The most sequences of input + output tokens the group holds with KV in `kv`: did the
    batch need an FP8 cache to reach its full length?"""
    return scen.scenario(m.model, m.gpu, gpus=m.gpus, seq_len=m.input_tokens + m.output_tokens,
                         weights=m.weights, kv=kv).max_batch


def comparisons() -> list[Comparison]:
    return [compare(m) for m in measurements().values()]


def efficiencies(kind: str) -> list[float]:
    """η of the comparisons of one kind: "latency" (inter-token latency at concurrency 1, a pure
    bandwidth measure), "throughput" (whole runs with a computed floor) or "ceiling"."""
    out = []
    for c in comparisons():
        if c.efficiency is None:
            continue
        m = c.measurement
        if kind == "latency" and m.metric == "itl" and m.batch == 1:
            out.append(c.efficiency)
        elif kind == "throughput" and not m.is_time and c.kind == "floor":
            out.append(c.efficiency)
        elif kind == "ceiling" and c.kind == "ceiling":
            out.append(c.efficiency)
    return out
